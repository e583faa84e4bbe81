package pmu_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestTaskExitRecordReturn: a CPU-wide event with attr.task hears a task's
// EXIT from perf_event_exit_task()'s last call, perf_event_task() over the
// CPU contexts (pmu/sideband.go), whose return is into do_exit() after its
// TaskExitHooks (annotated by sched/footprint_exit.go): the fragment after
// the record's nest-zero does not mark its caller; a FORK's return into
// copy_process() does.
func TestTaskExitRecordReturn(t *testing.T) {
	mc := newMachine(t, 1, nil, pmu.Knobs{})
	l := &fragLog{}
	mc.m.OnSegments(l)
	mc.s.Spawn("perf", sched.MaskOf(0), sched.Call(func(t2 *sched.Task) {
		a := swAttr(uapi.PERF_COUNT_SW_DUMMY)
		a.Task = true
		fd, err := mc.k.PerfEventOpen(t2, &a, -1, 0, -1, 0)
		if err != nil {
			panic(err)
		}
		if _, err := mc.k.Mmap(t2, fd, 0, 9*4096, pmu.ProtRead|pmu.ProtWrite); err != nil {
			panic(err)
		}
		mc.s.RunOps(t2, []sched.Op{sched.Fork("child", 0, sched.Compute(sim.Microsecond)), sched.Compute(10 * sim.Microsecond)})
	}))
	if err := mc.m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	// the rest of the walk: the CPU context's list, current's context (gone)
	const walkEnd = "rb->head r, rb->wakeup r, ctx->event_list r, task->perf_event_ctxp r"
	want := []string{
		// the child's FORK, back into copy_process(): marked
		walkEnd + ", UNAUDITED perf_event_task's caller",
		// perf's own EXIT, back into do_exit() (sched/footprint_exit.go): the deferred unwind's exit, exit_mm() and
		// perf's last mmput() of the mm with its buffer (exit_mmap(): mmap_lock, the VMA tree, pmu/footprint_exit.go),
		// perf_mmap_close() up to its first step
		walkEnd + ", task->unwind_info.unwind_mask r, task->unwind_info w, task->mm w, mm->mm_users w, task->mm w, mm->mm_users w, mm->mmap_lock w, " +
			"current->lockdep_depth w, mm->mm_mt w, sync w, event->rb r, rb->refcount w, rb->aux_nr_pages r, rb->mmap_count w",
	}
	if diff := cmp.Diff(want, l.started("perf_output_put_handle:nest-zero")); diff != "" {
		t.Errorf("the records' nest-zero fragments (-want +got):\n%s", diff)
	}
}
