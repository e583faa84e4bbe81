package explore

import (
	"testing"

	"perfsim/cpu"
	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// groupAttachSrc: a thread on cpu0 opens a counting group's leader and
// then a member, both of cpu1, where another task runs: each install is
// an IPI to cpu1 (__perf_install_in_context), the member's with
// perf_group_attach()'s three step points (pmu/footprint_group.go), while
// cpu0 waits for it.
const groupAttachSrc = `scenario group-attach-tiny
title "a sibling added on another CPU while the leader's CPU runs"

cpus 2

task adder cpu0
  open lead -e instructions cpu1 read_format=GROUP|ID
  open sib -e instructions cpu1 group lead read_format=GROUP|ID
  compute 2us

task spin cpu1
  compute 10us

never kernel.oops
always fd.errors == 0
`

// TestDPORGroupAttach: dpor, with perf_group_attach()'s step points
// declared, walks groupAttachSrc whole (45 schedules, 6 final states: 63
// before the happens-before filter on races, dpor_hb.go, and 315 before
// the tasks' do_exit() was annotated, sched/footprint_exit.go) and
// reaches every final state of 200 random schedules (the built-ins with
// groups do not finish within the sweep's budget, even cut).
func TestDPORGroupAttach(t *testing.T) {
	f, err := scenarios.Parse("group-attach-tiny.sim", []byte(groupAttachSrc))
	if err != nil {
		t.Fatal(err)
	}
	got, runs, ex := finalStates(t, f, func(one func(sim.Chooser, func(*cpu.Machine))) bool { return walkTree(t, true, 2000, one) })
	if !ex {
		t.Fatalf("dpor: not exhaustive within 2000 schedules (%d run)", runs)
	}
	// The full tree has more than 20000 schedules (whose first 20000 reach
	// the same 6 final states as dpor: measured, 150 s): random schedules,
	// as the sweep does.
	want, wruns, _ := finalStates(t, f, func(one func(sim.Chooser, func(*cpu.Machine))) bool {
		for seed := range uint64(200) {
			one(runner.ScheduleChooser(seed+1, 0), nil)
		}
		return true
	})
	for _, miss := range missingStates(want, got) {
		t.Errorf("a final state of random schedules that dpor does not reach: %s", miss)
	}
	if runs != 45 || len(got) != 6 {
		t.Errorf("dpor: %d schedules, %d final states; want 45 and 6", runs, len(got))
	}
	t.Logf("dpor %d schedules, %d final states; random: %d schedules, %d final states", runs, len(got), wruns, len(want))
}
