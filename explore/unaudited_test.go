package explore

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sim"
)

func init() {
	cpu.DeclareComplete("start:marker0", "unaudited-test:a", "unaudited-test:b", "unaudited-test:c")
}

// markLog is a cpu.SegmentListener that logs boundaries and marks.
type markLog struct{ log []string }

func (l *markLog) Boundary(c *cpu.CPU, kind cpu.BoundaryKind, ctx cpu.Context, _ *cpu.Thread, label string) {
	if kind == cpu.BoundaryStep {
		l.log = append(l.log, "step "+label)
	} else {
		l.log = append(l.log, fmt.Sprintf("boundary %d %s", kind, ctx))
	}
}

func (l *markLog) Touch(obj any, field string, _ bool) {
	if u, ok := obj.(cpu.Unaudited); ok {
		l.log = append(l.log, "unaudited "+string(u))
		return
	}
	k, _ := cpu.FootprintKey(obj)
	l.log = append(l.log, "touch "+k+" "+field)
}

// unauditedRun runs one thread that marks the fragment of step a
// unaudited, spends time in it while an irq comes and goes (the fragment
// goes on after the handler returns), then steps to b and c.
func unauditedRun(ch sim.Chooser, attach func(*cpu.Machine)) {
	m := cpu.NewMachine(cpu.Config{CPUs: 1}, ch)
	defer m.Close()
	tick := m.CPUs[0].NewTimer(false, cpu.Interrupt{Name: "tick", Fn: func(*cpu.CPU) {}})
	th := m.NewThread("marker0", func(th *cpu.Thread) {
		th.Step("unaudited-test:a")
		th.CPU().Unaudited("test_unaudited")
		tick.Arm(th.CPU().Now() + 5)
		th.Spend(10)
		th.CPU().Access(porShapeObj("obj"), "x", cpu.PlainWrite, "test")
		th.Step("unaudited-test:b")
		th.CPU().Access(porShapeObj("obj"), "x", cpu.PlainWrite, "test")
		th.Step("unaudited-test:c")
		for {
			th.Idle()
		}
	})
	m.CPUs[0].Start(th)
	attach(m)
	if err := m.Run(sim.Never); err != nil {
		panic(err)
	}
}

// TestUnauditedMarkLasts: a fragment marked unaudited (cpu.CPU.Unaudited)
// is told so again after every boundary it goes on across (an irq's
// return), up to the context's next step point, where the mark
// ends; the component-wise walk refuses it by its start and what it
// reached, and the write audit does not check it.
func TestUnauditedMarkLasts(t *testing.T) {
	l := &markLog{}
	unauditedRun(sim.NewRandom(1), func(m *cpu.Machine) { m.OnSegments(l) })
	want := []string{
		"boundary 3 task", "boundary 3 task", // the thread's first fragment (start:marker0)
		"step unaudited-test:a",
		"unaudited test_unaudited",
		"touch cpu0 pending",                          // the timer armed
		"boundary 3 task", "unaudited test_unaudited", // the lane resumed (the timer's time): the mark again
		"touch cpu0 pending",
		"boundary 3 task", "unaudited test_unaudited",
		"boundary 1 irq", "touch cpu0 pending", "touch ipi@cpu0 sync", // the irq's handler: a fragment of its own, no mark
		"boundary 2 task", "unaudited test_unaudited", // the handler returned: the task's fragment goes on, marked
		"touch obj x",
		"step unaudited-test:b", // a new fragment: no mark
		"touch obj x",
		"step unaudited-test:c",
	}
	if len(l.log) > len(want) {
		l.log = l.log[:len(want)] // then the idle waits
	}
	if diff := cmp.Diff(want, l.log); diff != "" {
		t.Errorf("boundaries and marks (-want +got):\n%s", diff)
	}
	s, complete := compWalk(10, unauditedRun)
	if wantWhy := "fragment unaudited-test:a: reaches test_unaudited, whose code nobody annotated (cpu.CPU.Unaudited)"; complete || s.Refused != wantWhy {
		t.Errorf("component-wise walk: complete %v, refused %q; want refused %q", complete, s.Refused, wantWhy)
	}
	a := newWriteAudit(nil)
	unauditedRun(sim.NewRandom(1), func(m *cpu.Machine) { m.OnSegments(a) })
	a.finish()
	if a.Checked["unaudited-test:a"] != 0 || a.Checked["unaudited-test:b"] == 0 {
		t.Errorf("write audit checked %v: want unaudited-test:b and not the marked unaudited-test:a", a.Checked)
	}
}
