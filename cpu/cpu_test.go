package cpu

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"perfsim/sim"
)

// boot runs body as CPU0's only thread; the thread idles when body returns.
func boot(t *testing.T, ch sim.Chooser, cpus int, body func(th *Thread)) *Machine {
	t.Helper()
	m := NewMachine(Config{CPUs: cpus}, ch)
	m.Trace().Keep = true
	th := m.NewThread("t0", func(th *Thread) {
		body(th)
		for {
			th.Idle()
		}
	})
	m.CPUs[0].Start(th)
	return m
}

func kinds(recs []sim.Record) []string {
	var out []string
	for _, r := range recs {
		if r.Kind == sim.KEnter || r.Kind == sim.KExit || r.Kind == sim.KNote {
			out = append(out, r.Kind.String()+" "+r.Name+" "+r.Detail)
		}
	}
	return out
}

func note(c *CPU, what string) { c.m.note(c, sim.KNote, what, "", 0) }

func TestIrqWaitsForIrqsOn(t *testing.T) {
	m := boot(t, nil, 1, func(th *Thread) {
		c := th.CPU()
		f := c.LocalIrqSave()
		c.RaiseIRQ(Interrupt{Name: "dev", Fn: func(c *CPU) { note(c, "handler") }})
		c.Step("a")
		c.Spend(sim.Microsecond) // time passes with irqs off: still pending
		note(c, "restore")
		c.LocalIrqRestore(f)
		note(c, "after")
	})
	defer m.Close()
	if err := m.Run(sim.Never); err != nil {
		t.Fatal(err)
	}
	want := []string{"note restore ", "enter irq dev", "note handler ", "exit irq dev", "note after "}
	if diff := cmp.Diff(want, kinds(m.Trace().Records)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestNMINeverNestsAndIrqWorkRunsAfter(t *testing.T) {
	m := boot(t, nil, 1, func(th *Thread) {
		c := th.CPU()
		c.RaiseNMI(Interrupt{Name: "pmi", Now: true, Fn: func(c *CPU) {
			note(c, "nmi-start")
			c.RaiseNMI(Interrupt{Name: "pmi2", Now: true, Fn: func(c *CPU) { note(c, "nmi2") }})
			c.Step("inside-nmi") // a forced NMI must still not nest
			c.IrqWorkQueue(func(c *CPU) { note(c, "irq_work") })
			c.Spend(100)
			note(c, "nmi-end")
		}})
		c.Step("x")
		note(c, "task")
	})
	defer m.Close()
	if err := m.Run(sim.Never); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"enter nmi pmi", "note nmi-start ", "note nmi-end ", "exit nmi pmi",
		"enter irq irq_work", "note irq_work ", "exit irq irq_work",
		"enter nmi pmi2", "note nmi2 ", "exit nmi pmi2", "note task ",
	}
	if diff := cmp.Diff(want, kinds(m.Trace().Records)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestTimerNMIDuringSpend(t *testing.T) {
	var at sim.Time
	m := boot(t, nil, 1, func(th *Thread) {
		c := th.CPU()
		tm := c.NewTimer(true, Interrupt{Name: "overflow", Fn: func(c *CPU) { at = c.Now() }})
		tm.Arm(300)
		th.Spend(1000)
		if c.Now() != 1000 || th.Ran != 1000 {
			t.Errorf("now %d ran %d", c.Now(), th.Ran)
		}
	})
	defer m.Close()
	if err := m.Run(sim.Never); err != nil {
		t.Fatal(err)
	}
	if at != 300 {
		t.Errorf("NMI at %d, want 300", at)
	}
}

func TestPerCPU(t *testing.T) {
	m := NewMachine(Config{CPUs: 3}, nil)
	p := NewPerCPU[int](m)
	*p.Get(m.CPUs[2]) = 7
	if *p.At(2) != 7 || *p.At(0) != 0 || p.Len() != 3 {
		t.Errorf("per-cpu %v", p.v)
	}
}

func TestPreemptUnderflowIsOops(t *testing.T) {
	m := boot(t, nil, 1, func(th *Thread) { th.CPU().PreemptEnable() })
	defer m.Close()
	err := m.Run(sim.Never)
	if o, ok := err.(*sim.Oops); !ok || o.Msg != "preempt_count underflow on cpu0" {
		t.Fatalf("Run = %v", err)
	}
}
