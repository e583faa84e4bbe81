package pmu_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestRemoveOnExec: at exec, perf_event_remove_on_exec() takes the
// remove_on_exec event out of the task's context (state EXIT, its count
// frozen, poll() hangs up) and leaves the other one counting.
func TestRemoveOnExec(t *testing.T) {
	mc := newMachine(t, 1, sim.NewReplay(nil), pmu.Knobs{})
	type view struct {
		RemovedState, KeptState pmu.EventState
		RemovedFrozen           bool
		KeptGrew                bool
		Hup                     bool // poll() returned POLLHUP for the removed event's fd
	}
	var got view
	mc.runIn(t, 0, func(tk *sched.Task) {
		ra := swAttr(uapi.PERF_COUNT_SW_TASK_CLOCK)
		ra.RemoveOnExec = true
		ka := swAttr(uapi.PERF_COUNT_SW_TASK_CLOCK)
		rfd, err := mc.k.PerfEventOpen(tk, &ra, 0, -1, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		kfd, err := mc.k.PerfEventOpen(tk, &ka, 0, -1, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		removed, kept := mc.k.EventOf(tk, rfd), mc.k.EventOf(tk, kfd)
		mc.s.RunOps(tk, []sched.Op{sched.Compute(10 * sim.Microsecond)})
		mc.s.Exec(tk, "/usr/local/bin/next")
		atExec, keptAtExec := removed.Count(), kept.Count()
		mc.s.RunOps(tk, []sched.Op{sched.Compute(10 * sim.Microsecond)})
		mc.k.Read(tk, rfd)
		mc.k.Read(tk, kfd)
		_, hup := mc.k.Poll(tk, []int{rfd})
		got = view{RemovedState: removed.State(), KeptState: kept.State(),
			RemovedFrozen: atExec > 0 && removed.Count() == atExec, KeptGrew: kept.Count() >= keptAtExec+int64(10*sim.Microsecond),
			Hup: len(hup) == 1 && hup[0] == rfd}
	})
	want := view{RemovedState: pmu.StateExit, KeptState: pmu.StateActive, RemovedFrozen: true, KeptGrew: true, Hup: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after exec (-want +got):\n%s", diff)
	}
}

// TestRemoveOnExecInherited: a child that inherited a remove_on_exec event
// execs; what it counts after its exec is counted nowhere.
//   - ctx-swap=off: the child's copy leaves the child_list and stops; the
//     parent's event stays ACTIVE. Today sync_child_event() runs before the
//     removal, on the still ACTIVE copy whose count was not updated since it
//     was scheduled in: the child's 10us before exec are not folded into the
//     parent (lost). Before c418d8b4d7a4 (knob sync-child-event) the fold ran
//     in perf_child_detach(), after event_sched_out(): they were; so they are
//     with the fix candidate sync-after-remove (sync_child_event() moved
//     after perf_remove_from_context()). The real 6.18.44 loses them too:
//     realperf/testdata/remove-on-exec-inherit.
//   - today's context-swap fast path: the parent switched to the child on
//     the one CPU with equivalent contexts, so the child runs with the
//     original events (perf_event_context_sched_out() swapped the ctxp) and
//     its exec removes the originals (DETACH_EXIT: state EXIT), while the
//     parent counts on in the copy, still on the original's child_list
//     ("the original events could've ended up in a random child task",
//     perf_event_exit_event()); the original's count is its own, so the
//     child's pre-exec time stays in what read() sums.
func TestRemoveOnExecInherited(t *testing.T) {
	type view struct {
		ParentState       pmu.EventState
		ChildrenAfterExec int
		PostExecCounted   bool // the child's 10us after exec reached the parent's read
		PreExecCounted    bool // the child's 10us before exec did
	}
	tests := []struct {
		swap, sync string
		want       view
	}{
		{"off", "today", view{ParentState: pmu.StateActive, ChildrenAfterExec: 0, PreExecCounted: false}},
		{"off", "pre-c418d8b4d7a4", view{ParentState: pmu.StateActive, ChildrenAfterExec: 0, PreExecCounted: true}},
		{"off", "sync-after-remove", view{ParentState: pmu.StateActive, ChildrenAfterExec: 0, PreExecCounted: true}},
		{"today", "today", view{ParentState: pmu.StateExit, ChildrenAfterExec: 1, PreExecCounted: true}},
	}
	for _, tt := range tests {
		var kn pmu.Knobs
		for name, v := range map[string]string{"ctx-swap": tt.swap, "sync-child-event": tt.sync} {
			if _, err := pmu.ApplyAnyKnob(&kn, name, v); err != nil {
				t.Fatal(err)
			}
		}
		mc := newMachine(t, 1, sim.NewReplay(nil), kn)
		var got view
		var total func() int64
		var beforeFork, atExec int64
		mc.runIn(t, 0, func(tk *sched.Task) {
			a := swAttr(uapi.PERF_COUNT_SW_TASK_CLOCK)
			a.RemoveOnExec, a.Inherit = true, true
			fd, err := mc.k.PerfEventOpen(tk, &a, 0, -1, -1, 0)
			if err != nil {
				t.Fatal(err)
			}
			pe := mc.k.EventOf(tk, fd)
			total = func() int64 { // __perf_event_read_value(): the original and its children
				n := pe.Count()
				for _, c := range pe.Children() {
					n += c.Count()
				}
				return n
			}
			beforeFork = total()
			mc.s.RunOps(tk, []sched.Op{
				sched.Fork("child", sched.ForkFlags,
					sched.Compute(10*sim.Microsecond),
					sched.Call(func(c *sched.Task) {
						mc.s.Exec(c, "/usr/local/bin/next")
						got.ChildrenAfterExec = len(pe.Children())
						atExec = total()
					}),
					sched.Compute(10*sim.Microsecond)),
				sched.Wait4(),
			})
			mc.k.Read(tk, fd)
			got.ParentState = pe.State()
			got.PreExecCounted = atExec-beforeFork >= int64(10*sim.Microsecond)
			got.PostExecCounted = total()-atExec >= int64(10*sim.Microsecond)
		})
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ctx-swap=%s sync-child-event=%s: after the child's exec (-want +got):\n%s", tt.swap, tt.sync, diff)
		}
	}
}

// TestCloseOnExec: do_close_on_exec() at exec closes the perf fd opened
// with PERF_FLAG_FD_CLOEXEC; its last fput() releases the event (as task
// work, before the exec returns to user mode), so it no longer counts; the
// fd opened without the flag survives the exec and counts on.
func TestCloseOnExec(t *testing.T) {
	mc := newMachine(t, 1, sim.NewReplay(nil), pmu.Knobs{})
	type view struct {
		ClosedFDGone, KeptFDThere bool
		ClosedState, KeptState    pmu.EventState
	}
	var got view
	mc.runIn(t, 0, func(tk *sched.Task) {
		a := swAttr(uapi.PERF_COUNT_SW_TASK_CLOCK)
		cfd, err := mc.k.PerfEventOpen(tk, &a, 0, -1, -1, uapi.PERF_FLAG_FD_CLOEXEC)
		if err != nil {
			t.Fatal(err)
		}
		kfd, err := mc.k.PerfEventOpen(tk, &a, 0, -1, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		closed, kept := mc.k.EventOf(tk, cfd), mc.k.EventOf(tk, kfd)
		mc.s.Exec(tk, "/usr/local/bin/next")
		mc.s.RunOps(tk, []sched.Op{sched.Compute(sim.Microsecond)})
		got = view{ClosedFDGone: mc.k.EventOf(tk, cfd) == nil, KeptFDThere: mc.k.EventOf(tk, kfd) == kept,
			ClosedState: closed.State(), KeptState: kept.State()}
	})
	want := view{ClosedFDGone: true, KeptFDThere: true, ClosedState: pmu.StateDead, KeptState: pmu.StateActive}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after exec (-want +got):\n%s", diff)
	}
}
