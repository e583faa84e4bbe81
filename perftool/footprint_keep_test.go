package perftool

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
)

// keepLog is a footprint listener that logs the keep budget's accesses
// and the marks of unaudited code.
type keepLog struct{ log []string }

func (l *keepLog) Boundary(*cpu.CPU, cpu.BoundaryKind, cpu.Context, *cpu.Thread, string) {}

func (l *keepLog) Touch(obj any, field string, write bool) {
	switch o := obj.(type) {
	case cpu.Unaudited:
		if strings.HasPrefix(string(o), "PerfData.") { // not the task's own marks
			l.log = append(l.log, "unaudited "+string(o))
		}
	case *KeepBudget:
		op := "read"
		if write {
			op = "write"
		}
		l.log = append(l.log, field+" "+op)
	}
}

func (l *keepLog) TouchAdd(obj any, field string) {
	if _, ok := obj.(*KeepBudget); ok {
		l.log = append(l.log, field+" add")
	}
}

// TestAccessKeep: a write(2) of perf.data that leaves half the keep
// budget or more is an add (it commutes with another session's), one that
// leaves less a write, one that goes over it the drop nobody annotated.
func TestAccessKeep(t *testing.T) {
	m := cpu.NewMachine(cpu.Config{CPUs: 1}, sim.NewReplay(nil))
	t.Cleanup(m.Close)
	s := sched.New(m, sched.DefaultConfig())
	ss := &Session{S: s, Data: &PerfData{Keep: NewKeepBudget(100)}}
	l := &keepLog{}
	var lefts []int64
	s.Spawn("perf", sched.MaskOf(0), sched.Call(func(t *sched.Task) {
		for _, n := range []int{40, 10, 20, 40} { // left 60, 50, 30, then over
			ss.accessKeep(t, n)
			ss.Data.keep(n)
			lefts = append(lefts, ss.Data.Keep.Left)
		}
	}))
	m.OnSegments(l)
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	want := []string{"keep budget: Left add", "keep budget: Left add", "keep budget: Left write", "unaudited PerfData.drop"}
	if d := cmp.Diff(want, l.log); d != "" {
		t.Errorf("accesses (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int64{60, 50, 30, 30}, lefts); d != "" { // the drop gives back what was kept: none here (keep() alone appends no chunk)
		t.Errorf("left (-want +got):\n%s", d)
	}
}
