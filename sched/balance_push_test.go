package sched

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// TestBalancePushThroughStopper takes cpu1 down while a, b and d (a and d
// pinned to it, b allowed on cpus 1-2) share it in turns (10us slices and
// ticks). As the kernel does it: the control task wakes cpuhp/1 and waits
// for it (D); cpuhp/1 takes cpu1 at a's next tick, runs
// sched_cpu_deactivate() there and sleeps (D) in sched_cpu_wait_empty().
// b, picked next, is handed by balance_push(), in b's context after its
// switch-in, to migration/1 (its wake-up), which preempts b and moves it to
// cpu2 (__balance_push_cpu_stop(): select_fallback_rq()); then d and a,
// switched in in turn, go the same way, to cpu0 with their affinity
// widened (no CPU of it is active: "no longer affine"); the idle task
// switched in with nothing queued wakes cpuhp/1 on cpu1, once (a per-CPU
// kthread: balance_push() leaves it), which completes the control task's
// wait and sleeps (S). e, asleep when cpu1 goes (pinned to it, last on
// it), is not pushed (balance_push() acts on switches only): its wake-up
// places it on an active CPU (select_task_rq(): is_cpu_allowed() refuses
// the inactive cpu1; select_fallback_rq() widens its mask). The model
// before cpuhp/N ran the teardowns in the control task on cpu0, which
// slept in sched_cpu_wait_empty() itself and was woken from cpu1's idle.
// kernel/cpu.c: cpuhp_kick_ap_work(), cpuhp_thread_fun(); kernel/sched/core.c: sched_cpu_deactivate(), balance_push(), __balance_push_cpu_stop(), select_fallback_rq(), balance_hotplug_wait(), select_task_rq()
func TestBalancePushThroughStopper(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Tick, cfg.Slice = 10*sim.Microsecond, 10*sim.Microsecond // cpuhp/1, woken at 20us, gets cpu1 within a few slices
	m, s := newSched(t, 3, cfg)
	l := &traceLog{}
	s.TraceHooks = append(s.TraceHooks, l)
	e := s.Spawn("e", MaskOf(1), Compute(5*sim.Microsecond), Sleep(60*sim.Microsecond), Compute(5*sim.Microsecond))
	c := s.Spawn("c", MaskOf(2), Compute(100*sim.Microsecond))
	s.Spawn("c2", MaskOf(2), Compute(100*sim.Microsecond)) // cpu2 as loaded as cpu1: b starts on cpu1
	a := s.Spawn("a", MaskOf(1), Compute(100*sim.Microsecond))
	b := s.Spawn("b", MaskOf(1, 2), Compute(100*sim.Microsecond))
	d := s.Spawn("d", MaskOf(1), Compute(100*sim.Microsecond))
	s.Spawn("hotplug", MaskOf(0), Sleep(20*sim.Microsecond),
		Call(func(tk *Task) { s.Syscall(tk, "write", func(tk *Task) { _ = s.CPUDown(tk, 1) }) }))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	// from the control task's sleep in sched_cpu_wait_empty() to cpu1's idle
	var got []string
	on := false
	for _, x := range l.lines {
		on = on || x == "cpu0 switch hotplug/107 state=0x2 -> swapper/0"
		if on && (strings.HasPrefix(x, "cpu1 ") || strings.Contains(x, "hotplug/107")) {
			got = append(got, x)
		}
		if x == "cpu1 switch cpuhp/1/20 state=0x1 -> swapper/1" {
			break
		}
	}
	want := []string{
		"cpu0 switch hotplug/107 state=0x2 -> swapper/0", // wait_for_ap_thread()
		"cpu1 switch a/104 state=0x0 -> cpuhp/1/20",
		"cpu1 switch cpuhp/1/20 state=0x2 -> b/105", // balance_hotplug_wait()
		"cpu1 wakeup new=false migration/1/21 target=1",
		"cpu1 switch b/105 state=0x0 -> migration/1/21",
		"cpu1 migrate b/105 1->2",
		"cpu1 switch migration/1/21 state=0x1 -> d/106",
		"cpu1 wakeup new=false migration/1/21 target=1",
		"cpu1 switch d/106 state=0x0 -> migration/1/21",
		"cpu1 migrate d/106 1->0",
		"cpu1 switch migration/1/21 state=0x1 -> a/104",
		"cpu1 wakeup new=false migration/1/21 target=1",
		"cpu1 switch a/104 state=0x0 -> migration/1/21",
		"cpu1 migrate a/104 1->0",
		"cpu1 switch migration/1/21 state=0x1 -> swapper/1",
		"cpu1 wakeup new=false cpuhp/1/20 target=1", // balance_push() from the idle task: rcuwait_wake_up()
		"cpu1 switch swapper/1 state=0x0 -> cpuhp/1/20",
		"cpu1 wakeup new=false hotplug/107 target=0", // complete_ap_thread()
		"cpu1 switch cpuhp/1/20 state=0x1 -> swapper/1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cpu1 going down (-want +got):\n%s\nwhole trace:\n%s", diff, strings.Join(l.lines, "\n"))
	}
	wakes := 0
	for _, x := range l.lines {
		if strings.HasPrefix(x, "cpu1 wakeup new=false cpuhp/1/") {
			wakes++
		}
	}
	if wakes != 1 {
		t.Errorf("the hotplug waiter cpuhp/1 woken %d times from cpu1, want once (when it went empty)", wakes)
	}
	type where struct {
		Allowed string
		CPU     int
	}
	gotW := map[string]where{}
	for _, x := range []*Task{a, b, c, d, e} {
		gotW[x.Comm] = where{x.Allowed.String(), x.lastCPU}
	}
	wantW := map[string]where{
		"a": {"0,2", 0}, // select_fallback_rq(): widened
		"b": {"1,2", 2},
		"c": {"2", 2},
		"d": {"0,2", 0},
		"e": {"0,2", 0}, // its wake-up's select_fallback_rq(): widened
	}
	if diff := cmp.Diff(wantW, gotW); diff != "" {
		t.Errorf("affinity and last CPU (-want +got):\n%s", diff)
	}
}
