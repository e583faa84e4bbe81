package pmu_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestExecReschedReturn: ctx_resched() of perf_event_enable_on_exec()
// returns unmarked within an exec (pmu/footprint_exec_resched.go: the code
// after it annotated up to the next step point), marked from a direct call
// outside one. The fragment the reschedule's last step point starts (the
// enabled event's event_sched_in) is the one that returns; what it reaches
// is listed by its start and marks.
func TestExecReschedReturn(t *testing.T) {
	for _, tc := range []struct {
		name string
		exec bool // execve(2); else EnableOnExec called from the task's Go code
		want []string
	}{
		{name: "within execve", exec: true, want: []string{"event_sched_in"}},
		// (then the test's thread returns and exits: do_exit(), annotated since sched/footprint_exit.go, in the same fragment)
		{name: "a direct call", want: []string{"event_sched_in UNAUDITED ctx_resched"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mc := newMachine(t, 1, nil, pmu.Knobs{})
			l := &fragLog{}
			mc.m.OnSegments(l)
			n := 0
			mc.s.Spawn("workload", sched.MaskOf(0), sched.Call(func(t2 *sched.Task) {
				a := swAttr(uapi.PERF_COUNT_SW_PAGE_FAULTS)
				a.Disabled, a.EnableOnExec = true, true
				if _, err := mc.k.PerfEventOpen(t2, &a, 0, -1, -1, 0); err != nil {
					panic(err)
				}
				n = len(l.frags)
				if tc.exec {
					mc.s.Exec(t2, "/usr/local/bin/workload")
				} else {
					mc.k.EnableOnExec(t2)
				}
			}))
			if err := mc.m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range l.frags[n:] {
				if f[0] != "event_sched_in" {
					continue
				}
				s := f[0]
				for _, x := range f[1:] {
					if strings.HasPrefix(x, "UNAUDITED ") {
						s += " " + x
					}
				}
				got = append(got, s)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("the enable's event_sched_in fragments and their marks (-want +got):\n%s", diff)
			}
		})
	}
}
