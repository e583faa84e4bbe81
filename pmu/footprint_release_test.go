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

// TestReleaseFootprints: what close(2) of a perf fd and the event's
// release annotate, fragment by fragment (pmu/footprint_release.go). Today
// (fput_close_sync()): the syscall's body (the fd table, f_count) goes on
// into the release up to ctx->mutex; perf_event_release_kernel() with it
// held runs up to __perf_remove_from_context()'s step point, and the
// removal returns through the release's tail (the state, the mutexes, the
// child list, put_event() and _free_event()'s references) into close(2)'s
// return and exit_to_user_mode_loop. With close-fput=pre-021a160abf62 the
// body queues ____fput instead, its task work takes ctx->mutex, and the
// tail returns into task_work_run(). PrintFrags is a debugging aid.
func TestReleaseFootprints(t *testing.T) {
	var (
		// close(2)'s entry and body: the sys_enter tracepoints' looks, the
		// fd's lookup and its slot cleared, f_count, ____fput queued
		// (task_work_add(): the works' list and TIF_NOTIFY_RESUME), the
		// sys_exit tracepoints, the registers (sched/footprint_entry.go)
		closeBody = []string{"tp_event->perf_refcount r, tp_event->perf_refcount r, task->files r, fdt->fd[] r, fdt->fd[] w, fdt->fd[] w, file->f_count w, sync w, task->task_works w, thread_info->flags w, " +
			"tp_event->perf_refcount r, tp_event->perf_refcount r, task_pt_regs(current) w"}
		fput = map[string][]string{"task_work_run:____fput": {
			// __fput()'s FASYNC look, event->ctx, ctx->mutex taken
			"file->f_flags r, event->ctx r, sync w, current->lockdep_depth w, sync w"}}
		// the state, ctx->lock and ctx->is_active, event_function_call()'s ctx->task
		locked = "event->state r, event->ctx r, ctx->lock w, sync w, ctx->is_active r, ctx->lock w, sync w, ctx->task r"
		// the state DEAD, ctx->mutex released, child_mutex around the child
		// list, put_event() and _free_event() up to the pmu_ctx's put
		tail = "event->state w, sync w, current->lockdep_depth w, sync w, sync w, current->lockdep_depth w, sync w, event->child_list r, sync w, current->lockdep_depth w, sync w, " +
			"event->refcount w, event->pending_irq r, event->pending_disable_irq r, event->state w, event (freed) w, "
		// today's close(2) (fput_close_sync()): the entry, the fd's slot
		// and f_count, then __fput()'s FASYNC look, event->ctx and
		// ctx->mutex taken, up to perf_event_release_kernel:ctx-locked
		closeSync = "tp_event->perf_refcount r, tp_event->perf_refcount r, task->files r, fdt->fd[] r, fdt->fd[] w, fdt->fd[] w, file->f_count w, " +
			"file->f_flags r, event->ctx r, sync w, current->lockdep_depth w, sync w"
		// close(2)'s return after the release: the sys_exit tracepoints,
		// the registers, exit_to_user_mode_loop's look
		closeExit = "tp_event->perf_refcount r, tp_event->perf_refcount r, task_pt_regs(current) w"
	)
	deferred := pmu.Knobs{Extra: map[string]string{"close-fput": "pre-021a160abf62"}}
	for _, tc := range []struct {
		name  string
		knobs pmu.Knobs
		cpu   int // the event's CPU (-1: the task's own context)
		pid   int
		want  map[string][]string
	}{
		{name: "today: a task's own event, released in close(2)", cpu: -1, pid: 0, want: map[string][]string{
			"close from syscall_enter_from_user_mode": {closeSync},
			"perf_event_release_kernel:ctx-locked":    {locked + ", p->se (exec_start, wake_cpu) r, p->on_cpu r, event->ctx r, ctx->task r"},
			// the tail returns into close(2)'s return: sys_exit, then
			// exit_to_user_mode_loop's look at the thread flags
			"tail from ctx_sched_out": {"cpuctx->cgrp r, cpuctx->cgrp r, ctx->time w, ctx->is_active w, cpuctx->task_ctx w, ctx->event_list r, ctx->event_list r, pmu_ctx->rotate_necessary w, " +
				tail + "task->usage w, epc->refcount w, ctx->event_list w, the model's epc counts add, ctx->refcount w, ctx->lock w, sync w, ctx->lock w, sync w, " + closeExit},
		}},
		{name: "today: a CPU event on another CPU: the IPI from close(2)", cpu: 1, pid: -1, want: map[string][]string{
			"close from syscall_enter_from_user_mode": {closeSync},
			"perf_event_release_kernel:ctx-locked":    {locked + ", posts w"},
			"tail from resume":                        {"sync w, " + tail + "epc->refcount w, " + closeExit},
		}},
		{name: "pre-021a160abf62: a task's own event, its context active here", knobs: deferred, cpu: -1, pid: 0, want: map[string][]string{
			"close from syscall_enter_from_user_mode": closeBody,
			"task_work_run:____fput":                  fput["task_work_run:____fput"],
			// task_function_call() to this CPU: remote_function()'s look, then
			// event_function()'s, run here
			"perf_event_release_kernel:ctx-locked": {locked + ", p->se (exec_start, wake_cpu) r, p->on_cpu r, event->ctx r, ctx->task r"},
			// the last event: ctx_sched_out() (footprint_sched.go), then the
			// release's tail: the task's reference and the last pmu_ctx's
			// marked, the context's last but one annotated
			"tail from ctx_sched_out": {"cpuctx->cgrp r, cpuctx->cgrp r, ctx->time w, ctx->is_active w, cpuctx->task_ctx w, ctx->event_list r, ctx->event_list r, pmu_ctx->rotate_necessary w, " +
				tail + "task->usage w, epc->refcount w, ctx->event_list w, the model's epc counts add, ctx->refcount w, ctx->lock w, sync w, ctx->lock w, sync w, task->task_works r"},
		}},
		{name: "pre-021a160abf62: a CPU event on another CPU: the IPI", knobs: deferred, cpu: 1, pid: -1, want: map[string][]string{
			"close from syscall_enter_from_user_mode": closeBody,
			"task_work_run:____fput":                  fput["task_work_run:____fput"],
			"perf_event_release_kernel:ctx-locked":    {locked + ", posts w"}, // the IPI raised, then the wait's step
			// the wait's last round resumed (csd_lock_wait()'s acquire), then
			// the tail: the CPU context's pmu_ctx is not its last reference
			"tail from resume": {"sync w, " + tail + "epc->refcount w, task->task_works r"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mc := newMachine(t, 2, nil, tc.knobs)
			l := &fragLog{}
			mc.m.OnSegments(l)
			mc.s.Spawn("work", sched.MaskOf(0), sched.Call(func(t2 *sched.Task) {
				a := swAttr(uapi.PERF_COUNT_SW_CPU_CLOCK)
				fd, err := mc.k.PerfEventOpen(t2, &a, tc.pid, tc.cpu, -1, 0)
				if err != nil {
					panic(err)
				}
				mc.s.RunOps(t2, []sched.Op{sched.Compute(sim.Microsecond)})
				if err := mc.k.Close(t2, fd); err != nil {
					panic(err)
				}
				mc.s.RunOps(t2, []sched.Op{sched.Compute(sim.Microsecond)})
			}))
			if err := mc.m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			got := l.startedAt("task_work_run:____fput", "perf_event_release_kernel:ctx-locked", "perf_remove_from_context:inactive")
			// the close's body, by the fd's slot and f_count written from
			// the syscall's entry (the open's fd_install() writes them
			// after its install's step points); the tail: the
			// fragment the removal returns in, by _free_event()'s free (the
			// open's fragments write the fd table and event->refcount too)
			for _, f := range l.frags {
				if f[0] == "syscall_enter_from_user_mode" && slices.Contains(f, "fdt->fd[] w") && slices.Contains(f, "file->f_count w") {
					got["close from "+f[0]] = []string{strings.Join(f[1:], ", ")}
				}
				if slices.Contains(f, "event (freed) w") {
					got["tail from "+f[0]] = []string{strings.Join(f[1:], ", ")}
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("fragments (-want +got):\n%s", diff)
			}
		})
	}
}
