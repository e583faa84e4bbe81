package pmu_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestSidebandFootprints: what the fragment that starts at
// perf_output_put_handle:nest-zero after a side-band record annotates on
// the way back through perf_iterate_sb()'s walk into the record's caller
// (pmu/footprint_sideband.go): prctl(PR_SET_NAME)'s COMM and mmap(2)'s
// MMAP go back into the syscall's return (annotated: no mark), an
// mprotect's MMAP into mprotect_fixup()'s caller (marked), the task's EXIT
// into perf_event_exit_task_context() (marked), a context switch's SWITCH
// into perf_event_task_sched_out() or _in() (annotated: no mark).
func TestSidebandFootprints(t *testing.T) {
	const (
		// the rest of the walk: the task context's list, then the syscall's
		// exit (sched's: the sys_exit tracepoints' check, the regs written back)
		walkEnd = "rb->head r, rb->wakeup r, ctx->event_list r, "
		sysExit = "tp_event->perf_refcount r, tp_event->perf_refcount r, task_pt_regs(current) w"
		// and the task's EXIT record (its context's events), back into
		// perf_event_exit_task_context() (footprint_exit.go), whose events leave (the
		// pollers of each looked for: perf_event_wakeup(), footprint_poll.go), then
		// the CPU's walk, do_exit()'s exit_mm() (sched/footprint_exit.go) and
		// exit_mmap()'s perf_mmap_close() up to its first step (footprint_munmap.go)
		exit = walkEnd + "event->rb r, rb->event_list r, event->waitq r, event->pending_kill w, event->tstamp w, ctx->time r, ctx->is_active r, event->state w, event->waitq r, event->waitq r, event->pending_kill w, sync w, current->lockdep_depth w, sync w, ctx->refcount w, ctx->event_list r, task->perf_event_ctxp r, ctx->task r, task->unwind_info.unwind_mask r, task->unwind_info w, task->mm w, mm->mm_users w, task->mm w, mm->mm_users w, mm->mmap_lock w, current->lockdep_depth w, mm->mm_mt w, sync w, event->rb r, rb->refcount w, rb->aux_nr_pages r, rb->mmap_count w" // then the tombstone's rest (pmu/footprint_exit.go: the original's perf_event_wakeup(), ctx->mutex released, the pin's put_ctx(), the CPU context's EXIT walk) and do_exit() (sched/footprint_exit.go): the deferred unwind's exit, exit_mm() and perf's last mmput() of the mm with its buffer (exit_mmap(): mmap_lock, the VMAs detached)
	)
	arg := func(v uint64) sched.SysArg { return sched.SysArg{Val: v} }
	anon := []sched.SysArg{arg(0), arg(8192), arg(uapi.PROT_READ | uapi.PROT_WRITE), arg(uapi.MAP_PRIVATE | uapi.MAP_ANONYMOUS), arg(^uint64(0)), arg(0)}
	for _, tc := range []struct {
		name string
		attr func(a *pmu.Attr)
		ops  []sched.Op
		// other: a second task on the CPU, which the yields switch to
		other bool
		want  []string
	}{
		{name: "prctl(PR_SET_NAME): COMM", attr: func(a *pmu.Attr) { a.Comm = true },
			ops:  []sched.Op{sched.SyscallArgs("prctl", 0, "", arg(uapi.PR_SET_NAME), sched.SysArg{Str: "renamed", IsStr: true}, arg(0), arg(0), arg(0))},
			want: []string{walkEnd + sysExit, exit}},
		{name: "mmap(2): MMAP of anonymous memory", attr: func(a *pmu.Attr) { a.MmapData = true },
			ops:  []sched.Op{sched.SyscallArgs("mmap", 0, "", anon...)},
			want: []string{walkEnd + sysExit, exit}},
		{name: "mprotect(2): MMAP, the caller marked", attr: func(a *pmu.Attr) { a.MmapData = true },
			ops: []sched.Op{sched.SyscallArgs("mmap", 0, "buf", anon...),
				sched.SyscallArgs("mprotect", 0, "", sched.SysArg{Var: "buf"}, arg(4096), arg(uapi.PROT_READ))},
			want: []string{walkEnd + sysExit, walkEnd + "UNAUDITED perf_event_mmap's caller, " + sysExit, exit}},
		{name: "context switches: SWITCH back into the switch", attr: func(a *pmu.Attr) { a.ContextSwitch = true },
			other: true, ops: []sched.Op{sched.Loop(2, sched.Compute(sim.Microsecond), sched.Yield())},
			want: []string{
				// out: the rest of perf_event_task_sched_out() (prev's last
				// CPU, the context's sched-out up to its step)
				walkEnd + "p->sched_migrated w, task->perf_event_ctxp r, ctx->task r, task->perf_event_ctxp r, ctx->is_active r, ctx->lock w, sync w, ctx->event_list r, cpc->pmu_disable_count w",
				// in: the rest of __perf_event_task_sched_in(), then
				// finish_task_switch() (sched's)
				walkEnd + "p->sched_migrated r, rq->balance_callback r, p->migration_pending r, p->se (exec_start, wake_cpu) w",
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mc := newMachine(t, 1, nil, pmu.Knobs{})
			l := &fragLog{}
			mc.m.OnSegments(l)
			if tc.other {
				mc.s.Spawn("other", sched.MaskOf(0), sched.Loop(3, sched.Compute(sim.Microsecond), sched.Yield()))
			}
			mc.s.Spawn("work", sched.MaskOf(0), sched.Call(func(t2 *sched.Task) {
				a := swAttr(uapi.PERF_COUNT_SW_DUMMY)
				tc.attr(&a)
				fd, err := mc.k.PerfEventOpen(t2, &a, 0, -1, -1, 0)
				if err != nil {
					panic(err)
				}
				if _, err := mc.k.Mmap(t2, fd, 0, 9*4096, pmu.ProtRead|pmu.ProtWrite); err != nil {
					panic(err)
				}
				mc.s.RunOps(t2, tc.ops)
			}))
			if err := mc.m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			got := l.started("perf_output_put_handle:nest-zero")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("nest-zero fragments (-want +got):\n%s", diff)
			}
			for _, f := range l.frags {
				if f[0] == "perf_output_put_handle:nest-zero" && slices.Contains(f, "UNAUDITED perf_output_end's caller") {
					t.Errorf("a side-band record's fragment keeps rb's mark: %q", f)
				}
			}
		})
	}
}
