package explore

import (
	"strings"
	"testing"

	"perfsim/scenarios"
)

// The bounded strategy runs every schedule with at most Budget disturbing
// decisions, fewest first, and says when it ran them all. Here it is a
// regression test too: with two CPUs, perf installing its events into app's
// context on cpu0 (event_function_call() for a task not running) while cpu1
// schedules app in used to interleave inside ctx->lock. perf_ctx_disable()
// then saw only the tracepoint PMU and perf_ctx_enable() also the cycles one
// the install had added meanwhile: "pmu_disable_count of cpu below zero".
func TestExploreBoundedExhaustsCtxLock(t *testing.T) {
	src := `scenario install-vs-sched-in
cpus 2
task app cpu1
  repeat 2
    syscall getpid
    compute 2us
record -e syscalls:sys_enter_getpid -e cycles/period=100000000/ -- app
always perf.error == 0
`
	f, err := scenarios.Parse("install-vs-sched-in.sim", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ex, err := Explore(f, Options{Strategy: "bounded", Budget: 2, Runs: 20000})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	ex.WriteText(&b)
	if ex.Failed || ex.CompleteUpTo != 2 || ex.Exhausted {
		t.Fatalf("want every schedule with at most 2 disturbances clean, and more disturbing ones not run:\n%s", b.String())
	}
	if ex.Schedules < 100 || !strings.Contains(b.String(), "complete up to 2 disturbing decisions (not exhaustive: schedules with more were not run)") {
		t.Errorf("%d schedules:\n%s", ex.Schedules, b.String())
	}
	t.Logf("%d schedules", ex.Schedules)
}

// The bounded strategy runs the quiet schedule first: a violation there is
// reported at schedule 1 with nothing to shrink.
func TestExploreBoundedQuietFirst(t *testing.T) {
	f := loadBuiltinForTest(t, "aux-munmap-split")
	ex, err := Explore(f, Options{Strategy: "bounded", Budget: 2, Runs: 10, Knobs: map[string]string{"vma-split": "pre-b024d7b56c77"}})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Found == nil || ex.Found.Schedule != 1 || len(ex.Found.Lines) != 0 {
		var b strings.Builder
		ex.WriteText(&b)
		t.Fatalf("want the violation at the quiet schedule:\n%s", b.String())
	}
}
