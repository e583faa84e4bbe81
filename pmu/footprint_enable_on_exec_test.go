package pmu_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestEnableOnExecFootprint: the fragment from perf_event_enable_on_exec
// (pmu/footprint_enable_on_exec.go), exactly: within execve(2), an
// enable_on_exec event enabled (then ctx_resched() up to ctx_sched_in's
// step) or one already enabled (nothing to enable: the return into the
// exec, annotated up to the task's next step point); a direct call
// outside an exec, with nothing to enable, marks its return.
func TestEnableOnExecFootprint(t *testing.T) {
	const (
		// perf_ctx_lock(): the task context's lock taken (its
		// release edge for the data-race oracle), the task_ctx test,
		// the CPU context's lock, ctx_time_freeze(), the event list
		head = "ctx->lock w, sync w, cpuctx->task_ctx r, ctx->lock w, ctx->time w, cpuctx->cgrp r, cpuctx->task_ctx r, ctx->event_list r, event->state r, event->attr.enable_on_exec w"
	)
	for _, tc := range []struct {
		name     string
		exec     bool // execve(2); else EnableOnExec called from the task's Go code
		disabled bool // the event opened disabled (enable_on_exec enables it)
		prefix   bool // want is the fragment's start; its rest has no mark (but the one want ends with)
		want     []string
	}{
		{name: "within execve, an event enabled", exec: true, disabled: true, want: []string{head +
			// perf_event_set_state(): the times, the state; unclone_ctx(); then ctx_resched(): ctx_sched_out()'s look (active), its step
			", event->tstamp w, ctx->time r, ctx->is_active r, event->state w, ctx->parent_ctx w, ctx->is_active r, cpuctx->task_ctx r"}},
		// perf_ctx_unlock(), the return into the exec (perf_event_remove_on_exec()'s ctx->mutex and walk, ctx->lock), then
		// the rest of begin_new_exec() (the comm...) up to the syscall's exit: its start pinned, the rest unmarked
		{name: "within execve, nothing to enable", exec: true, prefix: true, want: []string{head +
			", ctx->lock w, sync w, ctx->lock w, ctx->lock w, sync w, current->lockdep_depth w, sync w, task->perf_event_ctxp r, ctx->task r, ctx->event_list r, event->ctx r, " +
			"ctx->lock w, sync w, ctx->lock w, sync w, sync w, current->lockdep_depth w, sync w, task->perf_event_ctxp r, ctx->task r, ctx->event_list r, task->comm w"}},
		{name: "a direct call, nothing to enable", prefix: true, want: []string{head + ", UNAUDITED perf_event_enable_on_exec's caller"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mc := newMachine(t, 1, nil, pmu.Knobs{})
			l := &fragLog{}
			mc.m.OnSegments(l)
			mc.s.Spawn("workload", sched.MaskOf(0), sched.Call(func(t2 *sched.Task) {
				a := swAttr(uapi.PERF_COUNT_SW_PAGE_FAULTS)
				a.Disabled, a.EnableOnExec = tc.disabled, true
				if _, err := mc.k.PerfEventOpen(t2, &a, 0, -1, -1, 0); err != nil {
					panic(err)
				}
				if tc.exec {
					mc.s.Exec(t2, "/usr/local/bin/workload")
				} else {
					mc.k.EnableOnExec(t2)
				}
			}))
			if err := mc.m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			got := l.started("perf_event_enable_on_exec")
			if tc.prefix && len(got) == 1 && len(tc.want) == 1 {
				if rest, ok := strings.CutPrefix(got[0], tc.want[0]); ok {
					if strings.Contains(rest, "UNAUDITED") {
						t.Errorf("perf_event_enable_on_exec: a mark after the start: %q", rest)
					}
					got[0] = tc.want[0]
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("perf_event_enable_on_exec (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEnableOnExecOnce: event_enable_on_exec() clears attr.enable_on_exec
// whatever it does, so the exec enables a disabled event once: disabled
// again by ioctl, a second exec leaves it OFF (before, the model kept the
// bit and the second exec enabled it again); an event the first exec
// finds enabled loses the bit too.
func TestEnableOnExecOnce(t *testing.T) {
	type view struct {
		FirstExec, Disabled, SecondExec pmu.EventState
		AskAfter, EnabledAskAfter       bool
	}
	mc := newMachine(t, 1, nil, pmu.Knobs{})
	var got view
	mc.s.Spawn("workload", sched.MaskOf(0), sched.Call(func(t2 *sched.Task) {
		a := swAttr(uapi.PERF_COUNT_SW_PAGE_FAULTS)
		a.Disabled, a.EnableOnExec = true, true
		fd, err := mc.k.PerfEventOpen(t2, &a, 0, -1, -1, 0)
		if err != nil {
			panic(err)
		}
		b := swAttr(uapi.PERF_COUNT_SW_PAGE_FAULTS)
		b.EnableOnExec = true // enabled from the open: nothing for the exec to do
		fd2, err := mc.k.PerfEventOpen(t2, &b, 0, -1, -1, 0)
		if err != nil {
			panic(err)
		}
		e, e2 := mc.k.EventOf(t2, fd), mc.k.EventOf(t2, fd2)
		mc.s.Exec(t2, "/usr/local/bin/workload")
		got.FirstExec, got.AskAfter, got.EnabledAskAfter = e.State(), e.Attr.EnableOnExec, e2.Attr.EnableOnExec
		if _, err := mc.k.Ioctl(t2, fd, uapi.PERF_EVENT_IOC_DISABLE, 0); err != nil {
			panic(err)
		}
		got.Disabled = e.State()
		mc.s.Exec(t2, "/usr/local/bin/workload2")
		got.SecondExec = e.State()
	}))
	if err := mc.m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	want := view{FirstExec: pmu.StateActive, Disabled: pmu.StateOff, SecondExec: pmu.StateOff}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("enable_on_exec across two execs (-want +got):\n%s", d)
	}
}

// TestEnableOnExecUnclones: a child's context inherited whole at fork is
// a clone of its parent's; the child's exec that enables its copy of an
// enable_on_exec event makes it no clone (unclone_ctx(); its generation
// moves on too, so a switch between the two tasks no longer swaps the
// contexts: the parent's copy is still disabled). An exec that enables
// nothing leaves the clone. (ctx-swap=off keeps each task on its own
// context: with the swap, the child runs on the parent's original events,
// and its exec enables those: TestRemoveOnExecInherited's case.)
func TestEnableOnExecUnclones(t *testing.T) {
	for _, tc := range []struct {
		name     string
		disabled bool
		want     [2]bool // a clone before the child's exec, and after
	}{
		{"an event enabled", true, [2]bool{true, false}},
		{"nothing to enable", false, [2]bool{true, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var kn pmu.Knobs
			if _, err := pmu.ApplyAnyKnob(&kn, "ctx-swap", "off"); err != nil {
				t.Fatal(err)
			}
			mc := newMachine(t, 1, sim.NewReplay(nil), kn)
			var got [2]bool
			mc.runIn(t, 0, func(tk *sched.Task) {
				a := swAttr(uapi.PERF_COUNT_SW_TASK_CLOCK)
				a.Inherit, a.Disabled, a.EnableOnExec = true, tc.disabled, true
				fd, err := mc.k.PerfEventOpen(tk, &a, 0, -1, -1, 0)
				if err != nil {
					t.Fatal(err)
				}
				pe := mc.k.EventOf(tk, fd)
				mc.s.RunOps(tk, []sched.Op{
					sched.Fork("child", sched.ForkFlags, sched.Call(func(c *sched.Task) {
						ch := pe.Children()
						if len(ch) != 1 {
							t.Fatalf("%d children of the event; want 1", len(ch))
						}
						got[0] = ch[0].CtxIsClone()
						mc.s.Exec(c, "/usr/local/bin/next")
						got[1] = ch[0].CtxIsClone()
					})),
					sched.Wait4(),
				})
			})
			if got != tc.want {
				t.Errorf("the child's context a clone before its exec, after: %v; want %v", got, tc.want)
			}
		})
	}
}
