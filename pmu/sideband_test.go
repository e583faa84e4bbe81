package pmu_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/perftool"
	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestSwitchRecords: a task's own dummy event with attr.context_switch gets
// PERF_RECORD_SWITCH out (not preempted: it sleeps) and in around each sleep,
// and the task's PERF_RECORD_EXIT at the end, but no COMM (no exec here).
func TestSwitchRecords(t *testing.T) {
	mc := newMachine(t, 1, nil, pmu.Knobs{})
	var m *pmu.Mapping
	var got []string
	mc.s.Spawn("app", sched.MaskOf(0), sched.Call(func(tk *sched.Task) {
		a := pmu.Attr{Type: uapi.PERF_TYPE_SOFTWARE, Size: uapi.AttrSize, Config: uapi.PERF_COUNT_SW_DUMMY,
			ContextSwitch: true, Task: true, Comm: true}
		fd, err := mc.k.PerfEventOpen(tk, &a, 0, -1, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if m, err = mc.k.Mmap(tk, fd, 0, 9*4096, pmu.ProtRead|pmu.ProtWrite); err != nil {
			t.Fatal(err)
		}
	}), sched.Sleep(sim.Microsecond), sched.Compute(sim.Microsecond), sched.Sleep(sim.Microsecond))
	if err := mc.m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	mm, _ := perftool.NewMmap(m.RB, false)
	drain(mm, rb.NoSteps{}, func(rec []byte) {
		d, err := rb.Decode(rec, 0, false)
		if err != nil {
			got = append(got, err.Error())
			return
		}
		switch x := d.Sideband.(type) {
		case *rb.Switch:
			s := "in"
			if x.Out {
				s = "out"
			}
			if x.Preempt {
				s += " preempt"
			}
			got = append(got, "switch "+s)
		case *rb.Task:
			got = append(got, "exit")
		default:
			got = append(got, "other")
		}
	})
	want := []string{"switch out", "switch in", "switch out", "switch in", "exit"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("side-band records (-want +got):\n%s", d)
	}
}
