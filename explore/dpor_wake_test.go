package explore

import (
	"testing"

	"perfsim/cpu"
	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// wakePingPongSrc: two tasks on two CPUs wake each other through two
// pipes, each wake-up crossing CPUs (through the idle target's wake list,
// or directly when the target still runs). With try_to_wake_up() and the
// wake list annotated (sched/footprint_wake.go), dpor reduces across the
// wake-ups: the test pins how far, and that nothing is lost.
const wakePingPongSrc = `scenario wake-ping-pong
title "two tasks on two CPUs ping-pong through two pipes"

cpus 2

task a cpu0
  compute 2us
  pipe write p
  pipe read q
  compute 2us

task b cpu1
  pipe read p
  compute 2us
  pipe write q
`

// TestDPORWakePingPong: every final state of 200 random schedules (all
// observables and the violation signature) is one dpor's exhaustive walk
// reaches, in the 16 schedules it takes with the wake-ups and the tasks'
// do_exit() annotated (48 when do_exit() took no time, before
// cost.Profile.Exit*; 160 with do_exit() marked, 1000 with the wake-ups
// marked too).
func TestDPORWakePingPong(t *testing.T) {
	if testing.Short() {
		t.Skip("dpor's walk and 200 random schedules: seconds")
	}
	f, err := scenarios.Parse("wake-ping-pong.sim", []byte(wakePingPongSrc))
	if err != nil {
		t.Fatal(err)
	}
	const maxRuns = 200000
	got, runs, ex := finalStates(t, f, func(one func(sim.Chooser, func(*cpu.Machine))) bool { return walkTree(t, true, maxRuns, one) })
	if !ex || runs != 16 {
		t.Errorf("dpor: %d schedules, exhausted %v; want 16, exhausted", runs, ex)
	}
	// the whole tree is too large for a test (more than 15 minutes):
	// random schedules, as TestDPORBuiltinSweep does for such a built-in
	want, wruns, _ := finalStates(t, f, func(one func(sim.Chooser, func(*cpu.Machine))) bool {
		for seed := range uint64(200) {
			one(runner.ScheduleChooser(seed+1, 0), nil)
		}
		return true
	})
	for _, miss := range missingStates(want, got) {
		t.Errorf("a final state of a random schedule that dpor does not reach: %s", miss)
	}
	t.Logf("dpor %d schedules, %d distinct final states; random schedules: %d schedules, %d distinct final states", runs, len(got), wruns, len(want))
}
