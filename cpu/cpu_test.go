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

// skidChooser answers 1 to the decisions labelled hold and counts every question.
type skidChooser struct {
	hold  map[string]bool
	asked []string
}

func (s *skidChooser) Choose(n int, what string) int {
	s.asked = append(s.asked, what)
	if s.hold[what] {
		return 1
	}
	return 0
}

// TestNMISkid: an NMI with a Skid that falls due within it of the end of a
// Spend may be held to the end ("nmi-skid") and is then offered at the step
// points that follow; one due earlier than that is taken at once without a
// question, and so is any NMI without a Skid.
func TestNMISkid(t *testing.T) {
	for _, tc := range []struct {
		name    string
		due     sim.Time // the timer's NMI, during Spend(1000) from 0
		skid    sim.Duration
		kernel  bool // CPU.Spend rather than the thread's (user mode)
		hold    map[string]bool
		at      sim.Time // when the handler ran
		where   string   // the last point passed before it ("": during the Spend)
		asked   []string
		holdRec bool
	}{
		{name: "held-to-step", due: 850, skid: 200, hold: map[string]bool{"nmi-skid": true, "b": true},
			at: 1000, where: "after-a", asked: []string{"nmi-skid", "a", "b"}, holdRec: true},
		{name: "held-kernel", due: 850, skid: 200, kernel: true, hold: map[string]bool{"nmi-skid": true, "a": true},
			at: 1000, where: "before-a", asked: []string{"nmi-skid", "a"}, holdRec: true},
		{name: "held-to-next-advance", due: 850, skid: 200, hold: map[string]bool{"nmi-skid": true},
			at: 1000, where: "after-b", asked: []string{"nmi-skid", "a", "b"}, holdRec: true},
		{name: "not-held", due: 850, skid: 200, at: 850, asked: []string{"nmi-skid"}},
		{name: "too-early", due: 700, skid: 200, hold: map[string]bool{"nmi-skid": true}, at: 700},
		{name: "no-skid", due: 850, hold: map[string]bool{"nmi-skid": true}, at: 850},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := &skidChooser{hold: tc.hold}
			var at sim.Time = -1
			var last, where string
			m := boot(t, ch, 1, func(th *Thread) {
				c := th.CPU()
				th.User = !tc.kernel
				tm := c.NewTimer(true, Interrupt{Name: "pmi", Skid: tc.skid, Fn: func(c *CPU) {
					at, where = c.Now(), last
				}})
				tm.Arm(tc.due)
				if tc.kernel {
					c.Spend(1000)
				} else {
					th.Spend(1000)
				}
				th.User = false
				last = "before-a"
				c.Step("a")
				last = "after-a"
				c.Step("b")
				last = "after-b"
				c.Spend(10)
				if at < 0 {
					t.Error("the NMI was never taken")
				}
			})
			defer m.Close()
			if err := m.Run(sim.Never); err != nil {
				t.Fatal(err)
			}
			if at != tc.at || where != tc.where {
				t.Errorf("NMI at %d after %q, want %d after %q", at, where, tc.at, tc.where)
			}
			if diff := cmp.Diff(tc.asked, ch.asked); diff != "" {
				t.Errorf("decisions asked (-want +got):\n%s", diff)
			}
			held := false
			for _, r := range m.Trace().Records {
				if r.Kind == sim.KChoice && r.Name == "nmi-skid" && r.Detail == "hold nmi pmi" {
					held = true
				}
			}
			if held != tc.holdRec {
				t.Errorf("hold recorded %v, want %v", held, tc.holdRec)
			}
		})
	}
}
