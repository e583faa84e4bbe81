package runner

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// epcToken is a schedule of pmu-ctx-put-vs-open (found by `simrun explore
// --strategy random --kernel pmu-ctx-serialize=pre-4f64a6c9f6f1`, schedule
// 33, shrunk to one disturbing decision): at put_pmu_ctx:dec_and_test, after
// closer's put took the epc of task-clock to 0, cpu2 runs opener's
// find_get_pmu_context().
const epcToken = "s2.HwAeAhNxxiY"

// TestPMUContextSerialize: on the schedule of epcToken today's put_pmu_ctx()
// has no window (the decision is not offered: closer's put frees the epc,
// opener makes a new one, freed at its close; the run is clean); before 4f64a6c9f6f1 the lookup takes the dying epc from 0 to 1,
// the put frees it under opener's event, and its close oopses in
// list_del_event() (KASAN), each report naming both places.
func TestPMUContextSerialize(t *testing.T) {
	f := loadBuiltin(t, "pmu-ctx-put-vs-open")
	for _, tc := range []struct {
		value string
		want  []string // each violation up to its first "; "
	}{
		{"today", nil},
		{"pre-4f64a6c9f6f1", []string{
			"object-lifetime at 20.1us on cpu2: atomic_inc() on 0: the perf_event_pmu_context of PMU task_clock in the context of target/101 taken from 0 by find_get_pmu_context on cpu2 by opener/103 in perf_event_open after step perf_event_task_sched_in at 20.1us",
			"object-lifetime at 320.2us on cpu0: BUG: KASAN: slab-use-after-free in list_del_event: the perf_event_pmu_context of PMU task_clock in the context of target/101 freed by free_epc_rcu() at 220.1us, its last reference dropped by _free_event on cpu1 by closer/102 after step ttwu_queue_wakelist at 20.1us",
		}},
	} {
		d, err := sim.DecodeToken(epcToken)
		if err != nil {
			t.Fatal(err)
		}
		_, res, err := RunOnce(f, Options{Knobs: map[string]string{"pmu-ctx-serialize": tc.value}, Chooser: sim.NewReplay(d)})
		if err != nil {
			t.Fatalf("pmu-ctx-serialize=%s: %v", tc.value, err)
		}
		var got []string
		for _, v := range res.Violations {
			got = append(got, strings.SplitN(v.String(), "; ", 2)[0])
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("pmu-ctx-serialize=%s: violations (-want +got):\n%s", tc.value, d)
		}
		if tc.value == "today" && res.Failed {
			t.Errorf("pmu-ctx-serialize=%s: the built-in's outcomes failed: %+v", tc.value, res.Outcomes)
		}
		if tc.value == "today" && res.Observables["pmu-ctx.freed"] != 2 {
			t.Errorf("today: pmu-ctx.freed = %d, want 2 (closer's put came first: opener made a new epc)", res.Observables["pmu-ctx.freed"])
		}
	}
}
