package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTpTargetTaskKnob: tp-target-task-wakeup's ten sched_wakeup records,
// delivered to the sleeper's own (not ACTIVE) events by
// perf_tp_event_target_task(), are counted on both kernels; today none is a
// sample (perf_swevent_event()'s state test, 64a6eb7e1051), before it each
// is (swevent-active-check=pre-64a6eb7e1051), all of a non-ACTIVE event.
func TestTpTargetTaskKnob(t *testing.T) {
	f := loadBuiltin(t, "tp-target-task-wakeup")
	for _, tc := range []struct {
		knob string
		want map[string]int64
	}{
		{"today", map[string]int64{"read.value": 10, "samples": 0, "samples.not-active": 0, "kernel.oops": 0}},
		{"pre-64a6eb7e1051", map[string]int64{"read.value": 10, "samples": 10, "samples.not-active": 10, "kernel.oops": 0}},
	} {
		r, err := Build(f, Options{Knobs: map[string]string{"swevent-active-check": tc.knob}})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Execute(); err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for n := range tc.want {
			got[n], _ = r.Observe(n)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("swevent-active-check=%s (-want +got):\n%s", tc.knob, d)
		}
	}
}
