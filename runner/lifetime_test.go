package runner

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// TestLifetimeOracleFindsChildLeak runs sigtrap-inherit-vs-close, whose
// outcomes do not name the bug, on today's kernel and on the code before
// 3a5465418f5f: today nothing; before, the object-lifetime oracle reports the
// inherited event leaked at the end of the scenario, with the reference the
// overflow took for perf_pending_task() (in the PMI, over the child), the
// last put (perf_pending_task() at the child's return to user), and the
// free_event() that refused it (the closer's release).
func TestLifetimeOracleFindsChildLeak(t *testing.T) {
	f := loadBuiltin(t, "sigtrap-inherit-vs-close")
	for _, tc := range []struct {
		value string
		want  []string
	}{
		{"today", nil},
		{"pre-3a5465418f5f", []string{"object-lifetime at 950.1us: unreferenced object (leak): event 2 (cpu, DEAD) has refcount 1 at the end, 0 held " +
			"(inherited from event 1, its task exited); " +
			"last reference taken by atomic_long_inc_not_zero(&event->refcount) on cpu0 in nmi context over parent/103 after step syscall_enter_from_user_mode at 1.867us, " +
			"last dropped by put_event on cpu0 by parent/103 after step task_work_run:perf_pending_task at 500.2us; " +
			"free_event() refused it (\"unexpected event refcount\") at free_event on cpu1 by closer/102 in close after step perf_event_release_kernel:child-detached at 150.1us"}},
	} {
		// cost-model=free: the report names times; the leak does not depend on costs.
		_, res, err := RunOnce(f, Options{Knobs: map[string]string{"child-release": tc.value, "cost-model": "free"}, Chooser: sim.NewRandom(1)})
		if err != nil {
			t.Fatalf("child-release=%s: %v", tc.value, err)
		}
		got := violationStrings(res.Violations)
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("child-release=%s: violations (-want +got):\n%s", tc.value, d)
		}
		if tc.value == "today" && res.Failed {
			t.Errorf("child-release=today: the built-in's outcomes failed: %+v", res.Outcomes)
		}
	}
}

// TestLifetimeOracleOff: object-lifetime=off reports nothing on the old code.
func TestLifetimeOracleOff(t *testing.T) {
	f := loadBuiltin(t, "sigtrap-inherit-vs-close")
	_, res, err := RunOnce(f, Options{Knobs: map[string]string{"child-release": "pre-3a5465418f5f", "object-lifetime": "off"}, Chooser: sim.NewRandom(1)})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Violations {
		if strings.HasPrefix(v.Invariant, "object-lifetime") {
			t.Errorf("object-lifetime=off still reported: %v", v)
		}
	}
}
