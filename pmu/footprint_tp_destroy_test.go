package pmu_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/perftool"
	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestTpDestroyFootprint: the fragment from perf_trace_destroy:event_mutex
// (pmu/footprint_tp_destroy.go) of a tracepoint event closed by the task
// that opened it, released in close(2): perf_refcount's decrement (and for
// the last user the probe's unregistration: tracepoints_mutex, the static
// key, cpu_hotplug_lock, every CPU's perf_events list freed), event_mutex
// released, _free_event()'s rest (the task's reference and the last pmu_ctx
// put, which free: marked; the context's put, annotated), then the
// release's return into close(2)'s exit: the sys_exit tracepoints' looks
// and the registers. PrintFrags is a debugging aid.
func TestTpDestroyFootprint(t *testing.T) {
	const (
		// event_mutex released (its word, current's held locks, the
		// data-race oracle's release)
		unlock = "sync w, current->lockdep_depth w, sync w, "
		// tracepoint_probe_unregister(): tracepoints_mutex taken, the
		// funcs and static key, cpus_read_lock() and _unlock(),
		// tracepoints_mutex released
		probe = "sync w, current->lockdep_depth w, sync w, tp_event->perf_refcount w, users w, " +
			"sync w, current->lockdep_depth w, sync w, sync w, current->lockdep_depth w, sync w, " +
			"sync w, current->lockdep_depth w, sync w, "
		// _free_event() after event->destroy(): the target's reference;
		// the pmu_ctx's (the last: off ctx->pmu_ctx_list, then its ctx->lock) or not;
		// the context's; the event DEAD and freed
		lastEpc  = "task->usage w, epc->refcount w, ctx->event_list w, the model's epc counts add, ctx->refcount w, event->state w, event (freed) w, ctx->lock w, sync w, ctx->lock w, sync w, "
		otherEpc = "task->usage w, epc->refcount w, ctx->refcount w, event->state w, event (freed) w, "
		// close(2)'s return: the sys_exit tracepoints' looks (raw and per
		// syscall), the registers written back
		closeExit = "tp_event->perf_refcount r, tp_event->perf_refcount r, task_pt_regs(current) w"
	)
	tp, ok := perftool.LookupTracepoint("syscalls", "sys_enter_getpid")
	if !ok {
		t.Fatal("no syscalls:sys_enter_getpid in the catalogue")
	}
	for _, tc := range []struct {
		name   string
		events int // tracepoint events opened; the last one opened is closed
		want   []string
	}{
		{name: "the last perf user: the probe unregistered", events: 1, want: []string{
			// perf_refcount, total_ref_count (perf_trace_buf[] freed with
			// it), every CPU's perf_events list freed
			"tp_event->perf_refcount w, users w, total_ref_count w, tp_event->perf_events w, tp_event->perf_events w, " + probe + unlock + lastEpc + closeExit}},
		{name: "another user left: perf_refcount only", events: 2, want: []string{
			"tp_event->perf_refcount w, users w, " + unlock + otherEpc + closeExit,
			// the other event, released at the task's exit (exit_files()'s
			// ____fput, run by exit_task_work()): the last user, whose
			// references are the last ones too (but the task's, not reaped yet: its
			// task_struct stays); then task_work_run()'s
			// return into do_exit() (sched/footprint_exit.go): the state,
			// signal->live, the sigqueues, the cgroup's population, no
			// parent (init reaps it), the exec waiter's look
			"tp_event->perf_refcount w, users w, total_ref_count w, tp_event->perf_events w, tp_event->perf_events w, " + probe + unlock +
				"task->usage w, epc->refcount w, ctx->event_list w, the model's epc counts add, ctx->refcount w, ctx->parent_ctx r, ctx->task r, ctx (freed) w, the model's context counts add, event->state w, event (freed) w, ctx->lock w, sync w, ctx->lock w, sync w, " +
				"task->task_works r, p->__state w, signal->live w, signal->shared_pending w, task->pending w, cset->nr_tasks add, p->real_parent r, p->exit_state w, signal->group_exec_task r"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mc := newMachine(t, 2, nil, pmu.Knobs{})
			l := &fragLog{}
			mc.m.OnSegments(l)
			mc.s.Spawn("work", sched.MaskOf(0), sched.Call(func(t2 *sched.Task) {
				a := pmu.Attr{Type: uapi.PERF_TYPE_TRACEPOINT, Size: uapi.AttrSize, Config: tp.ID}
				var fd int
				for range tc.events {
					var err error
					if fd, err = mc.k.PerfEventOpen(t2, &a, 0, -1, -1, 0); err != nil {
						panic(err)
					}
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
			if diff := cmp.Diff(tc.want, l.started("perf_trace_destroy:event_mutex")); diff != "" {
				t.Errorf("perf_trace_destroy:event_mutex (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTpInitFootprint: the fragment from perf_trace_init:event_mutex
// (pmu/footprint_tp_destroy.go) of a tracepoint event opened by its task:
// the first perf user registers the probe; then the open's annotated body
// goes on (footprint_open.go) up to its next step point.
func TestTpInitFootprint(t *testing.T) {
	tp, ok := perftool.LookupTracepoint("syscalls", "sys_enter_getpid")
	if !ok {
		t.Fatal("no syscalls:sys_enter_getpid in the catalogue")
	}
	mc := newMachine(t, 2, nil, pmu.Knobs{})
	l := &fragLog{}
	mc.m.OnSegments(l)
	mc.s.Spawn("work", sched.MaskOf(0), sched.Call(func(t2 *sched.Task) {
		a := pmu.Attr{Type: uapi.PERF_TYPE_TRACEPOINT, Size: uapi.AttrSize, Config: tp.ID}
		if _, err := mc.k.PerfEventOpen(t2, &a, 0, -1, -1, 0); err != nil {
			panic(err)
		}
	}))
	if err := mc.m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	// perf_refcount (the model's count too), total_ref_count (the first
	// tracepoint's perf_trace_buf[] allocated), every CPU's perf_events list
	// allocated, tracepoint_probe_register() (tracepoints_mutex, the funcs
	// and static key, cpus_read_lock() and unlock, tracepoints_mutex),
	// event_mutex released
	reg := "tp_event->perf_refcount w, users w, total_ref_count w, tp_event->perf_events w, tp_event->perf_events w, " +
		"sync w, current->lockdep_depth w, sync w, tp_event->perf_refcount w, users w, sync w, current->lockdep_depth w, sync w, sync w, current->lockdep_depth w, sync w, " +
		"sync w, current->lockdep_depth w, sync w, sync w, current->lockdep_depth w, sync w, "
	// then perf_event_open()'s body (footprint_open.go): the id, the
	// allocation, the target's reference, find_get_context()'s new context,
	// find_get_pmu_context(), the install's look at the task and its
	// cross call to the task's CPU
	open := "perf_event_id r, perf_event_id w, perf_event w, event->state w, task->usage w, task->perf_event_ctxp r, task->flags r, perf_event_context w, task->usage w, " +
		"task->perf_event_ctxp w, task->perf_event_ctxp w, ctx->lock w, sync w, ctx->pin_count w, ctx->lock w, sync w, ctx->refcount w, sync w, sync w, current->lockdep_depth w, sync w, " +
		"ctx->task r, ctx->event_list w, epc->refcount w, ctx->lock w, sync w, ctx->lock w, sync w, ctx->task r, event->ctx w, event->state r, ctx->event_list r, ctx->task r, " +
		"p->se (exec_start, wake_cpu) r, p->on_cpu r, cpu_online_mask r, p->se (exec_start, wake_cpu) r, p->on_cpu r"
	if diff := cmp.Diff([]string{reg + open}, l.started("perf_trace_init:event_mutex")); diff != "" {
		t.Errorf("perf_trace_init:event_mutex (-want +got):\n%s", diff)
	}
}
