package pmu_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestExitTeardownFootprints: what the exit of a task with its own
// (per-task) event annotates from perf_event_exit_task_context()'s step
// point on (pmu/footprint_exit.go), fragment by fragment: the sched-out
// of its context active here ends the first at ctx_sched_out()'s step
// point; the fragment that returns from the last event_sched_out()
// (event_sched_out:del) runs the detach (task->perf_event_ctxp, the
// references, the clone link) and ctx->lock's release up to the tombstone's
// step point; the tombstone's runs the EXIT walk of the context (no
// side-band event: nothing written), the original event's exit (its state
// EXIT, perf_event_wakeup()), ctx->mutex released, the pin's put, the CPU
// context's EXIT walk, then do_exit()'s rest (sched/footprint_exit.go)
// up to schedule(): no mark on the way. With the event's buffer mapped,
// exit_mm()'s last mmput() runs exit_mmap(): mmap_lock and the VMAs, then
// the mapping's perf_mmap_close() up to its first step point; once
// munmap(2) took the mapping, mmap_lock's unlock instead.
func TestExitTeardownFootprints(t *testing.T) {
	const (
		// perf_event_exit_task_context()'s step point: task_ctx_sched_out()'s
		// look, ctx->task TOMBSTONE, ctx_sched_out()'s looks
		exitCtx = "cpuctx->task_ctx r, ctx->task w, ctx->is_active r, cpuctx->task_ctx r"
		// event_sched_out() after pmu->del (footprint_sched.go), the walk's
		// end, then the detach: task->perf_event_ctxp, the context's
		// reference, the task's, the clone link, ctx->lock released
		detach = "event->oncpu w, event->pending_disable r, event->tstamp w, ctx->time r, ctx->is_active r, event->state w, ctx->nr_active w, " +
			"cpc->pmu_disable_count w, event->sibling_list r, cpc->pmu_disable_count w, pmu_ctx->rotate_necessary w, " +
			"task->perf_event_ctxp w, ctx->refcount w, task->usage w, ctx->parent_ctx w, ctx->lock w, sync w"
		// the tombstone: the context's EXIT walk (the event's look, nothing
		// written), the original's exit: ring_buffer_wakeup()'s looks
		// (its buffer's event list when mapped), pending_kill, the state
		// EXIT; ctx->mutex released, the pin's put, the CPU context's walk
		walk   = "ctx->event_list r, event->state r, event->rb r, task_pt_regs(current) r, ctx->event_list r, event->rb r, "
		wakeup = "event->waitq r, event->pending_kill w, event->tstamp w, ctx->time r, ctx->is_active r, event->state w, event->waitq r, event->waitq r, event->pending_kill w, " +
			"sync w, current->lockdep_depth w, sync w, ctx->refcount w, ctx->event_list r, task->perf_event_ctxp r, ctx->task r, "
		// do_exit() on (sched/footprint_exit.go): the deferred unwind's
		// exit, exit_mm() (sched's, then perf's mmput())
		exitMM = "task->unwind_info.unwind_mask r, task->unwind_info w, task->mm w, mm->mm_users w, "
		perfMM = "task->mm w, mm->mm_users w, mm->mmap_lock w, current->lockdep_depth w, mm->mm_mt w, "
		// exit_files(): the table's last user closes the perf fd, whose
		// last fput() queues ____fput; exit_task_work() runs it (its step)
		files = "task->files w, files->count w, files->count w, fdt->fd[] w, fdt->fd[] w, file->f_count w, sync w, task->task_works w, thread_info->flags w, sync w, task->task_works r, task->task_works w"
	)
	for _, tc := range []struct {
		name string
		mmap int // 0: no buffer; 1: mapped at exit; 2: mapped and unmapped before it
		want map[string][]string
	}{
		{name: "no buffer", want: map[string][]string{
			"perf_event_exit_task_context":           {exitCtx},
			"event_sched_out:del":                    {detach},
			"perf_event_exit_task_context:tombstone": {walk + wakeup + exitMM + files},
		}},
		{name: "the buffer mapped at exit", mmap: 1, want: map[string][]string{
			"perf_event_exit_task_context": {exitCtx},
			"event_sched_out:del":          {detach},
			// exit_mmap(): mmap_lock, the VMAs detached, then perf_mmap_close()
			// up to its step point (footprint_munmap.go)
			"perf_event_exit_task_context:tombstone": {walk + "rb->event_list r, " + wakeup + exitMM + perfMM + "sync w, event->rb r, rb->refcount w, rb->aux_nr_pages r, rb->mmap_count w"},
		}},
		{name: "the buffer unmapped before exit", mmap: 2, want: map[string][]string{
			"perf_event_exit_task_context": {exitCtx},
			"event_sched_out:del":          {detach},
			// exit_mmap(): nothing to close, mmap_lock's unlock
			"perf_event_exit_task_context:tombstone": {walk + wakeup + exitMM + perfMM + "mm->mmap_lock w, current->lockdep_depth w, sync w, sync w, " + files},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mc := newMachine(t, 2, nil, pmu.Knobs{})
			l := &fragLog{}
			mc.m.OnSegments(l)
			mc.s.Spawn("work", sched.MaskOf(0), sched.Call(func(t2 *sched.Task) {
				a := swAttr(uapi.PERF_COUNT_SW_CPU_CLOCK)
				fd, err := mc.k.PerfEventOpen(t2, &a, 0, -1, -1, 0)
				if err != nil {
					panic(err)
				}
				if tc.mmap > 0 {
					m, err := mc.k.Mmap(t2, fd, 0, 9*4096, pmu.ProtRead|pmu.ProtWrite)
					if err != nil {
						panic(err)
					}
					if tc.mmap == 2 {
						if err := mc.k.Munmap(t2, m); err != nil {
							panic(err)
						}
					}
				}
				mc.s.RunOps(t2, []sched.Op{sched.Compute(sim.Microsecond)})
			}))
			if err := mc.m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			got := l.startedAt("perf_event_exit_task_context", "event_sched_out:del", "perf_event_exit_task_context:tombstone")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("fragments (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReleaseReapedTargetFootprint: the release of an event on a child that
// exited and was reaped (perf record's close after its workload's end):
// its context was tombstoned at the exit, so perf_remove_from_context()
// finds it inactive; _free_event()'s puts are each the last: the target's
// task_struct (the task reaped: __put_task_struct() frees it), the
// pmu_ctx (off ctx->pmu_ctx_list), the context (its parent and task
// looked at, freed). No mark on the way to close(2)'s return.
func TestReleaseReapedTargetFootprint(t *testing.T) {
	mc := newMachine(t, 2, nil, pmu.Knobs{})
	l := &fragLog{}
	mc.m.OnSegments(l)
	mc.runIn(t, 0, func(tk *sched.Task) {
		mc.s.RunOps(tk, []sched.Op{sched.Fork("child", sched.ForkFlags, sched.Compute(20*sim.Microsecond))})
		child := tk.Children()[0]
		a := swAttr(uapi.PERF_COUNT_SW_TASK_CLOCK)
		fd, err := mc.k.PerfEventOpen(tk, &a, child.PID, -1, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		mc.s.RunOps(tk, []sched.Op{sched.Wait4()})
		if err := mc.k.Close(tk, fd); err != nil {
			t.Fatal(err)
		}
	})
	var got []string
	for _, f := range l.frags {
		if slices.Contains(f, "event (freed) w") {
			got = append(got, strings.Join(f, ", "))
		}
	}
	want := []string{
		// __perf_remove_from_context() of the tombstoned context (under
		// ctx->lock), the release's tail (footprint_release.go) ...
		"__perf_remove_from_context, ctx->is_active r, event->state r, event->oncpu r, ctx->event_list w, ctx->generation (pin_count, parent_gen) w, " +
			"event->group_leader r, event->sibling_list w, event->read_size w, pmu_ctx->rotate_necessary w, cpuctx->task_ctx r, ctx->lock w, sync w, " +
			"event->state w, sync w, current->lockdep_depth w, sync w, sync w, current->lockdep_depth w, sync w, event->child_list r, sync w, current->lockdep_depth w, sync w, " +
			"event->refcount w, event->pending_irq r, event->pending_disable_irq r, event->state w, event (freed) w, " +
			// ... the last puts: the reaped target's, the pmu_ctx's, the context's
			"task->usage w, task_struct (freed) w, epc->refcount w, ctx->event_list w, the model's epc counts add, " +
			"ctx->refcount w, ctx->parent_ctx r, ctx->task r, ctx (freed) w, the model's context counts add, ctx->lock w, sync w, ctx->lock w, sync w, " +
			// close(2)'s return
			"tp_event->perf_refcount r, tp_event->perf_refcount r, task_pt_regs(current) w"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the release's free (-want +got):\n%s", diff)
	}
}
