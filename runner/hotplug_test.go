package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/scenarios"
	"perfsim/sim"
)

// TestHotplugTraceLockOrderKnob runs hotplug-trace-lock-order on today's
// release path and on the one before 82d94856fa22: today lockdep reports
// nothing; before, it reports the circular dependency once, closing
// event_mutex -> cpu_hotplug_lock -> cpuctx_mutex -> event->child_mutex
// with event->child_mutex -> event_mutex, naming who took each edge: the
// hotplug's cpuctx_mutex under cpu_hotplug_lock is cpuhp/1's, on cpu1
// (perf_event_exit_cpu() runs in the hotplug thread, which lockdep sees
// holding cpu_hotplug_lock and the cpuhp_state-down map), not the writing
// task's. The writer ties both cpuhp_state maps to cpu_hotplug_lock.
// kernel/cpu.c: cpuhp_thread_fun(), cpuhp_kick_ap_work()
func TestHotplugTraceLockOrderKnob(t *testing.T) {
	const cycle = "circular-dependency: possible circular locking dependency: tracer/101 on cpu0 at 60.2us takes event_mutex while holding event->child_mutex " +
		"(taken by tracer/101 on cpu0 at 60.2us); the run already took event_mutex then cpu_hotplug_lock (tracer/101 on cpu0 at 100ns in perf_event_open); " +
		"cpu_hotplug_lock then cpuctx_mutex (cpuhp/1/20 on cpu1 at 30us); cpuctx_mutex then event->child_mutex (tracer/101 on cpu0 at 20.1us in read)"
	for _, tc := range []struct {
		value string
		want  []string
	}{
		{"today", nil},
		{"pre-82d94856fa22", []string{"lockdep: " + cycle}},
	} {
		f := loadBuiltin(t, "hotplug-trace-lock-order")
		// cost-model=free: the report names times; the lock order does not depend on costs.
		r, res, err := RunOnce(f, Options{Knobs: map[string]string{"release-child-free": tc.value, "cost-model": "free"}, Chooser: sim.NewRandom(1)})
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
			"cpu_hotplug_lock -> pmus_lock", "pmus_lock -> cpuctx_mutex", "cpuctx_mutex -> event->child_mutex",
			"cpu_hotplug_lock -> cpuhp_state-down", "cpu_hotplug_lock -> cpuhp_state-up", "cpuhp_state-down -> pmus_lock", "cpuhp_state-up -> pmus_lock"} {
			if !deps[d] {
				t.Errorf("release-child-free=%s: dependency %s not recorded", tc.value, d)
			}
		}
		// ctx->mutex -> event_mutex is on both: the fork's inherit_event()
		// allocates the tracepoint event (perf_trace_init(): event_mutex)
		// under perf_event_init_context()'s parent_ctx->mutex.
		if old := tc.value != "today"; deps["event->child_mutex -> event_mutex"] != old || !deps["ctx->mutex -> event_mutex"] {
			t.Errorf("release-child-free=%s: event_mutex under child_mutex %v (want %v), under ctx->mutex %v (want true)", tc.value,
				deps["event->child_mutex -> event_mutex"], old, deps["ctx->mutex -> event_mutex"])
		}
	}
}

// TestHotplugForceAndOfflineActions: a cpu-offline forced at a step point
// (the install of a CPU event on cpu1, inside perf_event_open()'s
// cpuctx_mutex) waits for the open to finish and then removes the event it
// installed; an action timer armed on cpu1 fires while cpu1 is offline and
// does nothing; a second offline of the offline CPU and an offline of cpu0
// (no online file on x86) change nothing. spin sleeps when cpu1 goes
// (cpuhp/1, SCHED_NORMAL, gets the idle CPU at once) and wakes on cpu2.
func TestHotplugForceAndOfflineActions(t *testing.T) {
	const src = `scenario hp
cpus 3

task opener cpu0
  compute 5us
  open c1 -e cpu-clock cpu1
  sleep 60us
  read c1
  close c1

task spin cpus 1-2
  compute 2us
  sleep 20us
  compute 100us

cpu-offline cpu1 at __perf_install_in_context
at 30us nmi cpu1
at 40us cpu-offline cpu1
at 45us cpu-offline cpu0
`
	f, err := scenarios.Parse("hp.sim", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if errs := scenarios.Check(f, NewRegistry(f, nil)); len(errs) > 0 {
		t.Fatal(errs)
	}
	r, err := Build(f, Options{Chooser: sim.NewRandom(1)})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Execute(); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, n := range []string{"hotplug.offlines", "hotplug.failed", "hotplug.events-removed", "hotplug.cpus-online", "fd.opened", "fd.errors", "events.closed", "cpu1.nmis", "task.spin.cpu"} {
		v, ok := r.Observe(n)
		if !ok {
			t.Fatalf("no observable %s", n)
		}
		got[n] = v
	}
	want := map[string]int64{"hotplug.offlines": 1, "hotplug.failed": 1, "hotplug.events-removed": 1, "hotplug.cpus-online": 2,
		"fd.opened": 1, "fd.errors": 0, "events.closed": 1, "cpu1.nmis": 0, "task.spin.cpu": 2}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("observables (-want +got):\n%s", d)
	}
}
