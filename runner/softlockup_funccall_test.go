package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// tracerSpin is what the soft-lockup report of task-function-call-offline
// says tracer spins in, from the step point on.
const tracerSpin = "at step task_function_call:retry: task_function_call() on sleeper/101: smp_call_function_single(cpu1) fails with -ENXIO " +
	"(task_cpu(sleeper/101) is offline: sleeper/101 is asleep on pipe p, last on cpu1) and task-function-call=pre-6d6b8b9f4fce retries it " +
	"as -EAGAIN on every round; the run ends here"

// TestTaskFunctionCallOffline: task-function-call-offline on today's kernel
// opens, disables and enables the event on the task asleep on the offline
// cpu1, each task_function_call() returning -ENXIO once (funccall.enxio 3)
// and each caller going on under ctx->lock, with no report; between
// 2ed6edd33a21 and 6d6b8b9f4fce the -ENXIO is retried as -EAGAIN and
// tracer's perf_event_open() spins on cpu0 until the livelock bound
// (hung-task-timeout) has passed: one soft-lockup report naming cpu0, the
// step point task_function_call:retry and the offline CPU, the run ended
// there (the open never returned). The bound moves the report; the cost
// model moves only when the spin began.
func TestTaskFunctionCallOffline(t *testing.T) {
	f := loadBuiltin(t, "task-function-call-offline")
	old := map[string]string{"task-function-call": "pre-6d6b8b9f4fce"}
	with := func(m map[string]string, k, v string) map[string]string {
		out := map[string]string{k: v}
		for a, b := range m {
			out[a] = b
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		knobs  map[string]string
		want   []string
		opened int64
		enxio  int64 // funccall.enxio, or 0: more than 1000 (every spin round is one)
	}{
		{"today", map[string]string{}, nil, 1, 3},
		{"today-free", map[string]string{"cost-model": "free"}, nil, 1, 3},
		{"pre-6d6b8b9f4fce", old, []string{"soft-lockup at 10.041446ms on cpu0: watchdog: BUG: soft lockup - CPU#0 stuck for 10ms [tracer:102] " +
			"(the livelock bound, hung-task-timeout=10ms: the kernel's 2*watchdog_thresh=20s in the run's time scale), spinning since 41.446us " + tracerSpin}, 0, 0},
		{"pre-6d6b8b9f4fce-1ms", with(old, "hung-task-timeout", "1ms"), []string{"soft-lockup at 1.041446ms on cpu0: watchdog: BUG: soft lockup - CPU#0 stuck for 1ms [tracer:102] " +
			"(the livelock bound, hung-task-timeout=1ms: the kernel's 2*watchdog_thresh=20s in the run's time scale), spinning since 41.446us " + tracerSpin}, 0, 0},
		{"pre-6d6b8b9f4fce-free", with(old, "cost-model", "free"), []string{"soft-lockup at 10.04ms on cpu0: watchdog: BUG: soft lockup - CPU#0 stuck for 10ms [tracer:102] " +
			"(the livelock bound, hung-task-timeout=10ms: the kernel's 2*watchdog_thresh=20s in the run's time scale), spinning since 40us " + tracerSpin}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, res, err := RunOnce(f, Options{Knobs: tc.knobs, Chooser: sim.NewRandom(1)})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range res.Violations {
				got = append(got, v.String())
				if v.Invariant != "soft-lockup" || v.CPU != 0 {
					t.Errorf("violation %s on cpu%d, want soft-lockup on cpu0 (tracer's)", v.Invariant, v.CPU)
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("violations (-want +got):\n%s", d)
			}
			if res.Failed {
				t.Errorf("the built-in's outcomes failed: %+v", res.Outcomes)
			}
			if g := res.Observables["fd.opened"]; g != tc.opened {
				t.Errorf("fd.opened = %d, want %d", g, tc.opened)
			}
			switch n := res.Observables["funccall.enxio"]; {
			case tc.enxio != 0 && n != tc.enxio:
				t.Errorf("funccall.enxio = %d, want %d", n, tc.enxio)
			case tc.enxio == 0 && n <= 1000:
				t.Errorf("funccall.enxio = %d, want a spin's worth (> 1000)", n)
			}
		})
	}
}
