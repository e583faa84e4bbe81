package sched

import (
	"fmt"

	"perfsim/cpu"
	"perfsim/sim"
)

// workload is a randomly drawn machine: CPUs, task programs, and periodic NMI and
// irq sources. It is described by plain values so that rapid and the seeded
// determinism test can both build it.
type workload struct {
	CPUs      int
	Tasks     []taskSpec
	NMIPeriod []sim.Duration // per CPU, 0: none
	IRQPeriod []sim.Duration
}

type taskSpec struct {
	Mask CPUMask
	Ops  []opSpec
}

type opSpec struct {
	Kind  string // compute, syscall, sleep, migrate, loop, critical
	D     sim.Duration
	N     int
	CPU   int
	Inner []opSpec
}

// genWorkload draws a workload from any int source (rapid or a seeded Random).
func genWorkload(draw func(lo, hi int, what string) int) workload {
	w := workload{CPUs: draw(1, 4, "cpus")}
	nt := draw(1, 4, "tasks")
	for i := 0; i < nt; i++ {
		var ts taskSpec
		if draw(0, 3, "pinned") == 0 {
			ts.Mask = MaskOf(draw(0, w.CPUs-1, "pin"))
		}
		ts.Ops = genOps(draw, w.CPUs, draw(1, 6, "ops"), 0)
		w.Tasks = append(w.Tasks, ts)
	}
	for c := 0; c < w.CPUs; c++ {
		w.NMIPeriod = append(w.NMIPeriod, sim.Duration(draw(0, 400, "nmi-period"))*sim.Microsecond)
		w.IRQPeriod = append(w.IRQPeriod, sim.Duration(draw(0, 900, "irq-period"))*sim.Microsecond)
	}
	return w
}

func genOps(draw func(lo, hi int, what string) int, cpus, n, depth int) []opSpec {
	var ops []opSpec
	for i := 0; i < n; i++ {
		k := draw(0, 6, "op")
		switch {
		case k == 0 || k == 1:
			ops = append(ops, opSpec{Kind: "compute", D: sim.Duration(draw(1, 3000, "us")) * sim.Microsecond})
		case k == 2:
			ops = append(ops, opSpec{Kind: "syscall"})
		case k == 3:
			ops = append(ops, opSpec{Kind: "sleep", D: sim.Duration(draw(1, 1000, "us")) * sim.Microsecond})
		case k == 4:
			ops = append(ops, opSpec{Kind: "migrate", CPU: draw(0, cpus-1, "to")})
		case k == 5 && depth == 0:
			ops = append(ops, opSpec{Kind: "loop", N: draw(2, 3, "n"), Inner: genOps(draw, cpus, draw(1, 3, "inner"), 1)})
		default:
			ops = append(ops, opSpec{Kind: "critical"})
		}
	}
	return ops
}

// observed is what the oracles saw, apart from the model's own bookkeeping.
type observed struct {
	violations []string
	critical   []bool // per CPU: inside a test critical section (irqs off)
}

func (o *observed) fail(format string, args ...any) {
	if len(o.violations) < 10 {
		o.violations = append(o.violations, fmt.Sprintf(format, args...))
	}
}

// oracle checks the trace as it happens: one context per CPU at a time (interrupt
// entries and exits nest properly), NMIs never nest, no irq enters while irqs are
// off, no switch inside an interrupt, a thread never current on two CPUs, time
// never goes backwards on a CPU.
func newOracle(o *observed, cpus int) sim.Observer {
	stack := make([][]string, cpus)
	last := make([]sim.Time, cpus)
	where := map[string]int{}
	for c := 0; c < cpus; c++ {
		where[fmt.Sprintf("swapper/%d", c)] = c
	}
	return sim.ObserverFunc(func(r *sim.Record) {
		c := r.CPU
		if c < 0 || c >= cpus {
			return
		}
		if r.T < last[c] {
			o.fail("cpu%d: time went backwards: %s after %s", c, r.T, last[c])
		}
		last[c] = r.T
		switch r.Kind {
		case sim.KEnter:
			for _, s := range stack[c] {
				if s == "nmi" {
					o.fail("cpu%d: %s entered inside an NMI at %s", c, r.Name, r.T)
				}
				if s == "irq" && r.Name == "irq" {
					o.fail("cpu%d: irq nested in irq at %s", c, r.T)
				}
			}
			if r.Name == "irq" && o.critical[c] {
				o.fail("cpu%d: irq %s delivered with irqs off at %s", c, r.Detail, r.T)
			}
			stack[c] = append(stack[c], r.Name)
		case sim.KExit:
			n := len(stack[c])
			if n == 0 || stack[c][n-1] != r.Name {
				o.fail("cpu%d: exit %s does not match %v at %s", c, r.Name, stack[c], r.T)
				return
			}
			stack[c] = stack[c][:n-1]
		case sim.KSwitch:
			if len(stack[c]) != 0 {
				o.fail("cpu%d: context switch inside %v at %s", c, stack[c], r.T)
			}
			if w, ok := where[r.Name]; !ok || w != c {
				o.fail("cpu%d: switch from %s which is not current here (at cpu%d, %v)", c, r.Name, w, ok)
			}
			delete(where, r.Name)
			if w, ok := where[r.Detail]; ok {
				o.fail("cpu%d: %s switched in while running on cpu%d at %s", c, r.Detail, w, r.T)
			}
			where[r.Detail] = c
		}
	})
}

// build sets the workload up on a machine driven by ch.
func (w workload) build(ch sim.Chooser, o *observed, trace bool) (*cpu.Machine, *Sched, []sim.Duration) {
	m := cpu.NewMachine(cpu.Config{CPUs: w.CPUs}, ch)
	tr := m.Trace()
	if trace {
		tr.Keep, tr.Steps = true, true
	}
	if o != nil {
		o.critical = make([]bool, w.CPUs)
		tr.Observers = append(tr.Observers, newOracle(o, w.CPUs))
	}
	cfg := DefaultConfig()
	cfg.Balance = true
	cfg.Tick = sim.Millisecond
	s := New(m, cfg)
	var want []sim.Duration
	for i, ts := range w.Tasks {
		ops, total := w.ops(ts.Ops, o)
		want = append(want, total)
		s.Spawn(fmt.Sprintf("t%d", i), ts.Mask, ops...)
	}
	for c := 0; c < w.CPUs; c++ {
		for _, src := range []struct {
			nmi    bool
			period sim.Duration
		}{{true, w.NMIPeriod[c]}, {false, w.IRQPeriod[c]}} {
			if src.period == 0 {
				continue
			}
			period := src.period
			var tm *cpu.Timer
			name := "dev"
			if src.nmi {
				name = "pmi"
			}
			tm = m.CPUs[c].NewTimer(src.nmi, cpu.Interrupt{Name: name, Fn: func(c *cpu.CPU) {
				c.Step(name + ":handler")
				c.Spend(200)
				c.Step(name + ":done")
				if !s.AllExited() {
					tm.Arm(c.Now() + period)
				}
			}})
			tm.Arm(period)
		}
	}
	return m, s, want
}

func (w workload) ops(specs []opSpec, o *observed) ([]Op, sim.Duration) {
	var ops []Op
	var total sim.Duration
	for _, sp := range specs {
		switch sp.Kind {
		case "compute":
			ops = append(ops, Compute(sp.D))
			total += sp.D
		case "syscall":
			ops = append(ops, Syscall("close"))
		case "sleep":
			ops = append(ops, Sleep(sp.D))
		case "migrate":
			ops = append(ops, Migrate(sp.CPU))
		case "loop":
			inner, t := w.ops(sp.Inner, o)
			ops = append(ops, Loop(sp.N, inner...))
			total += t * sim.Duration(sp.N)
		case "critical":
			ops = append(ops, Call(func(t *Task) {
				t.User = false
				c := t.CPU()
				f := c.LocalIrqSave()
				if o != nil {
					o.critical[c.ID] = true
				}
				c.Step("critical:a")
				c.Spend(300)
				c.Step("critical:b")
				if o != nil {
					o.critical[c.ID] = false
				}
				c.LocalIrqRestore(f)
				t.User = true
			}))
		}
	}
	return ops, total
}
