package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// TestHotplugTraceLockOrderKnob runs hotplug-trace-lock-order on today's
// release path and on the one before 82d94856fa22: today lockdep reports
// nothing; before, it reports the circular dependency once, closing
// event_mutex -> cpu_hotplug_lock -> cpuctx_mutex -> event->child_mutex
// with event->child_mutex -> event_mutex, naming who took each edge.
func TestHotplugTraceLockOrderKnob(t *testing.T) {
	const cycle = "circular-dependency: possible circular locking dependency: tracer/101 on cpu0 at 60.2us takes event_mutex while holding event->child_mutex " +
		"(taken by tracer/101 on cpu0 at 60.2us); the run already took event_mutex then cpu_hotplug_lock (tracer/101 on cpu0 at 100ns in perf_event_open); " +
		"cpu_hotplug_lock then cpuctx_mutex (hotplug-cpu1/103 on cpu0 at 30us in write); cpuctx_mutex then event->child_mutex (tracer/101 on cpu0 at 20.1us in read)"
	for _, tc := range []struct {
		value string
		want  []string
	}{
		{"today", nil},
		{"pre-82d94856fa22", []string{"lockdep: " + cycle}},
	} {
		f := loadBuiltin(t, "hotplug-trace-lock-order")
		r, res, err := RunOnce(f, Options{Knobs: map[string]string{"release-child-free": tc.value}, Chooser: sim.NewRandom(1)})
		if err != nil {
			t.Fatalf("%s: %v", tc.value, err)
		}
		var got []string
		for _, v := range res.Violations {
			got = append(got, v.Invariant+": "+v.Message)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("release-child-free=%s: violations (-want +got):\n%s", tc.value, d)
		}
		// Both sides record the chains that make the cycle; only the old
		// release adds the closing edge.
		deps := map[string]bool{}
		for _, d := range r.S.Lockdep.Dependencies() {
			deps[d] = true
		}
		for _, d := range []string{"event_mutex -> tracepoints_mutex", "tracepoints_mutex -> cpu_hotplug_lock",
			"cpu_hotplug_lock -> pmus_lock", "pmus_lock -> cpuctx_mutex", "cpuctx_mutex -> event->child_mutex"} {
			if !deps[d] {
				t.Errorf("release-child-free=%s: dependency %s not recorded", tc.value, d)
			}
		}
		if old := tc.value != "today"; deps["event->child_mutex -> event_mutex"] != old || deps["ctx->mutex -> event_mutex"] != old {
			t.Errorf("release-child-free=%s: event_mutex under child_mutex %v, under ctx->mutex %v; want %v", tc.value,
				deps["event->child_mutex -> event_mutex"], deps["ctx->mutex -> event_mutex"], old)
		}
	}
}
