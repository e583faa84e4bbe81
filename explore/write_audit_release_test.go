package explore

import (
	"testing"
)

// c2Shape is the replicated shape of the must-show
// (aux-pause-resume-nmi on each of two CPUs, mmap-update-time=proposed):
// perf record closes its events at the end of each run.
const c2Shape = `scenario aux-pause-resume-nmi-percpu
title "aux-pause-resume-nmi on each of 2 CPUs"

cpus 2
pmu intel_pt rate=1000 region=4K
pmu cpu skid=200ns
kernel aux-pause-guard=on
kernel mmap-update-time=proposed

task uname0 cpu0
  repeat 2
    syscall newuname
    compute 700ns
task uname1 cpu1
  repeat 2
    syscall newuname
    compute 700ns
record r0: -e '{intel_pt/aux-action=start-paused/k,syscalls:sys_enter_newuname/aux-action=resume/,cycles/period=6800,aux-action=pause/}' -m 8,8 --per-thread -- uname0
record r1: -e '{intel_pt/aux-action=start-paused/k,syscalls:sys_enter_newuname/aux-action=resume/,cycles/period=6800,aux-action=pause/}' -m 8,8 --per-thread -- uname1

always perf.error == 0
`

// TestWriteAuditRelease: close(2)'s body and the event's release, declared
// complete (pmu/footprint_release.go: close(2)'s body and the release it
// runs, ____fput's task work (a munmap()'s last fput()),
// perf_event_release_kernel() with ctx->mutex held, perf_remove_from_context()
// of an inactive context, and __perf_remove_from_context()'s return into
// the release's tail), write nothing they do not annotate, on built-ins
// that close perf fds and on c2's shape. Each run checks the fragments it
// lists at least once.
func TestWriteAuditRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	// close(2) releases the event in the syscall (fput_close_sync()); a
	// munmap()'s last fput() queues ____fput (close-vs-sample's)
	release := []string{"perf_event_release_kernel:ctx-locked"}
	for _, tc := range []struct {
		name string
		src  string   // the scenario's text ("": the built-in name)
		want []string // the fragments checked at least once
	}{
		{"close-vs-sample", "", append([]string{"syscall_enter_from_user_mode", "__perf_remove_from_context", "task_work_run:____fput"}, release...)},
		{"set-output-vs-munmap", "", release},
		{"rb-data-head-backwards", "", append([]string{"perf_remove_from_context:inactive", "__perf_remove_from_context"}, release...)},
		{"sigtrap-vs-close", "", append([]string{"syscall_enter_from_user_mode"}, release...)},
		{"cgroup-enable-stale-time", "", release},
		{"c2", c2Shape, append([]string{"perf_remove_from_context:inactive", "__perf_remove_from_context"}, release...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auditChecked(t, auditScenario(t, tc.name, tc.src), tc.want)
		})
	}
}
