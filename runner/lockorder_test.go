package runner

import (
	"slices"
	"strings"
	"testing"

	"perfsim/scenarios"
)

// upstreamLockOrder is the lock order kernel/events/core.c documents above
// perf_event_ctx_lock_nested() ("Lock order:"), outermost first, each chain
// one nesting path, named as the model names the locks. A CPU context's
// mutex is its own lockdep class, cpuctx_mutex ("cpuctx->mutex /
// perf_event_context::mutex"). The last chain is the tracing side's order:
// a task context's event freed under its ctx->mutex at exit
// (perf_event_exit_event() -> put_event() -> perf_trace_destroy()) takes
// event_mutex, perf_trace_init() takes tracepoints_mutex
// (tracepoint_probe_register()) and cpu_hotplug_lock (static_key_enable())
// inside it, and hotplug takes pmus_lock and cpuctx_mutex inside that.
// The hotplug chains are kernel/cpu.c's: the control task takes the
// cpuhp_state maps under cpu_hotplug_lock (cpuhp_kick_ap_work()), and
// cpuhp/N runs perf's callbacks under the lockdep view of both
// (cpuhp_thread_fun()); perf_event_exit_cpu_context()'s cross-call is
// local there and takes ctx->lock inside the CPU context's mutex.
var upstreamLockOrder = [][]string{
	{"cpu_hotplug_lock", "cpuhp_state-down", "pmus_lock", "cpuctx_mutex", "ctx->lock"},
	{"cpu_hotplug_lock", "cpuhp_state-up", "pmus_lock", "cpuctx_mutex", "ctx->lock"},
	{"task_struct::perf_event_mutex", "ctx->mutex", "event->child_mutex", "ctx->lock"},
	{"task_struct::perf_event_mutex", "cpuctx_mutex", "event->child_mutex", "ctx->lock"},
	{"ctx->mutex", "mm->mmap_lock", "event->mmap_mutex", "rb->aux_mutex"},
	{"cpuctx_mutex", "mm->mmap_lock", "event->mmap_mutex", "rb->aux_mutex"},
	{"cpu_hotplug_lock", "pmus_lock", "ctx->mutex"},
	{"ctx->mutex", "event_mutex", "tracepoints_mutex", "cpu_hotplug_lock", "pmus_lock", "cpuctx_mutex"},
}

// TestBuiltinsTakeLocksInUpstreamOrder runs every built-in once and checks
// each lock dependency the model recorded against the documented order: a
// model that nests two locks the other way round would be reported by the
// lockdep invariant only when a schedule also takes them the right way, so
// this catches an inversion the built-ins exercise on one side only.
func TestBuiltinsTakeLocksInUpstreamOrder(t *testing.T) {
	before := map[[2]string]bool{}
	for _, chain := range upstreamLockOrder {
		for i := range chain {
			for j := i + 1; j < len(chain); j++ {
				before[[2]string{chain[i], chain[j]}] = true
			}
		}
	}
	seen := map[string][]string{}
	for _, b := range scenarios.Builtins() {
		if testing.Short() && b.Name == "seed-close-benchmark" {
			continue // 6,000,000 tracepoint samples and no lock
		}
		f := loadBuiltin(t, b.Name)
		r, _, err := RunOnce(f, Options{MaxWall: -1}) // no wall limit: the result must not depend on load
		if err != nil {
			t.Fatalf("%s: %v", b.Name, err)
		}
		for _, d := range r.S.Lockdep.Dependencies() {
			seen[d] = append(seen[d], b.Name)
		}
	}
	if len(seen) == 0 {
		t.Fatal("no built-in nests two locks: the check checks nothing")
	}
	for d, names := range seen {
		a, z, _ := strings.Cut(d, " -> ")
		a, z = baseClass(a), baseClass(z)
		if a == z {
			continue // a nested subclass (mutex_lock_double)
		}
		if !before[[2]string{a, z}] {
			slices.Sort(names)
			t.Errorf("%s: %s is taken inside %s, which core.c's lock order does not allow (built-ins: %s)", d, z, a, strings.Join(names, ", "))
		}
	}
	for d, names := range seen {
		t.Logf("%s (%d built-ins)", d, len(names))
	}
}

// baseClass drops a lockdep subclass ("event->mmap_mutex/1").
func baseClass(c string) string {
	if i := strings.LastIndexByte(c, '/'); i > 0 && !strings.ContainsAny(c[i+1:], "abcdefghijklmnopqrstuvwxyz>") {
		return c[:i]
	}
	return c
}
