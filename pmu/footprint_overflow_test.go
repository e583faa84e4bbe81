package pmu_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// fragLog is a cpu.SegmentListener that writes down each fragment: its
// start (the step point's label, "enter:NAME", "exit", "resume") and what
// it annotates ("field w", "field r", "field add"; "UNAUDITED fn" for a
// mark).
type fragLog struct {
	frags [][]string
}

func (l *fragLog) Boundary(_ *cpu.CPU, kind cpu.BoundaryKind, _ cpu.Context, _ *cpu.Thread, label string) {
	start := label
	switch kind {
	case cpu.BoundaryEnter: // label: "enter:NAME"
	case cpu.BoundaryExit:
		start = "exit"
	case cpu.BoundaryResume:
		start = "resume"
	}
	l.frags = append(l.frags, []string{start})
}

func (l *fragLog) Touch(obj any, field string, write bool) {
	if len(l.frags) == 0 {
		return
	}
	f := &l.frags[len(l.frags)-1]
	switch {
	case strings.HasPrefix(fmt.Sprintf("%T", obj), "cpu.Unaudited"):
		*f = append(*f, "UNAUDITED "+string(obj.(cpu.Unaudited)))
	case write:
		*f = append(*f, field+" w")
	default:
		*f = append(*f, field+" r")
	}
}

func (l *fragLog) TouchAdd(_ any, field string) {
	if len(l.frags) > 0 {
		l.frags[len(l.frags)-1] = append(l.frags[len(l.frags)-1], field+" add")
	}
}

// started is every distinct fragment that starts at label, in the order
// first seen, as one line.
func (l *fragLog) started(label string) []string {
	var out []string
	for _, f := range l.frags {
		if f[0] != label {
			continue
		}
		s := strings.Join(f[1:], ", ")
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// startedAt is started for each of labels that starts a fragment, by label.
func (l *fragLog) startedAt(labels ...string) map[string][]string {
	got := map[string][]string{}
	for _, s := range labels {
		if f := l.started(s); len(f) > 0 {
			got[s] = f
		}
	}
	return got
}

// TestOverflowFootprints: what the PMI's and the hrtimer's entry
// fragments annotate up to the output's first step point, and what the fragment that starts at
// perf_output_put_handle:nest-zero annotates on the way back through
// __perf_event_output() and __perf_event_overflow() into its caller
// (pmu/footprint_overflow.go): the PMI's walk over the counters and
// perf_sample_event_took() (annotated to the handler's return), the
// cpu-clock hrtimer's re-arm (annotated), a syscall tracepoint's
// perf_tp_event() walk (annotated) and the syscall's entry after it; an
// EXIT record's caller is marked.
func TestOverflowFootprints(t *testing.T) {
	const (
		tail = "rb->head r, rb->wakeup r, the model's sample count add, stats add, event->fasync r, event->pending_kill r"
		// x86_pmu_handle_irq() goes on to the other counters (one empty
		// here: its events[] slot read only), then perf_sample_event_took().
		pmi = tail + ", cpuc->events r, cpuc->events r, cpuc->events r, perf_sample_allowed_ns r"
	)
	for _, tc := range []struct {
		name string
		attr pmu.Attr
		tp   string // or a tracepoint's, as perf record sets it
		// other: a second task on the CPU, which work's yields switch to
		other bool
		// noMark: marks no fragment of the run may have
		noMark []string
		want   []string
		// enter: the handler whose entry fragments (up to the output's first
		// step point, or the handler's return) are wantEnter, if any
		enter     string
		wantEnter []string
		enterHas  string // or what the first one holds
	}{
		{name: "cycles: the PMI", attr: cyclesAttr(3000), want: []string{pmi}, enter: "enter:PMI", wantEnter: []string{
			// pending, sync: the interrupt's own (cpu.Machine); occupant:
			// the interrupted IP's fakeIP slot (image_footprint.go)
			"pending w, sync w, stats add, task_pt_regs(current) r, occupant add, cpuc->events r, cpuc->enabled r, event->hw (the counter) w, event->count w, pending w, " +
				"perf_throttled_seq w, event->hw.interrupts w, max_samples_per_tick r, event->event_limit r, event->pending_kill w, stats add, perf_sample_data w, event->rb r, " +
				"rb->paused r, rb->lost r, rb->nest w, rb->wakeup r",
			// a PMI that finds no counter overflowed (the event gone)
			"pending w, sync w, stats add, occupant add, cpuc->events r, cpuc->events r, cpuc->events r, cpuc->events r, perf_sample_allowed_ns r"}},
		{name: "cycles -g: the PMI's callchain", attr: func() pmu.Attr {
			a := cyclesAttr(3000)
			a.SampleType |= uapi.PERF_SAMPLE_CALLCHAIN
			return a
		}(), want: []string{pmi}, noMark: []string{"perf_callchain", "unwind_deferred_request"},
			enter: "enter:PMI", enterHas: "perf_sample_data w, event->ctx r, ctx->task r, callchain_cpus_entries r, task_pt_regs(current) r"},
		{name: "cpu-clock: the hrtimer", attr: func() pmu.Attr {
			a := swAttr(uapi.PERF_COUNT_SW_CPU_CLOCK)
			a.SamplePeriod, a.SampleType = 1000, uapi.PERF_SAMPLE_IP|uapi.PERF_SAMPLE_TID
			return a
		}(), want: []string{tail + ", event->hw (the counter) w, pending w"}, // pending: the re-arm's post (cpu.Machine.post)
			enter: "enter:perf_swevent_hrtimer", wantEnter: []string{
				"pending w, sync w, event->state r, event->oncpu r, event->hw (the counter) r, event->hw (the counter) w, event->count w, task_pt_regs(current) r, occupant add, " +
					"perf_throttled_seq w, event->hw.interrupts w, max_samples_per_tick r, event->event_limit r, event->pending_kill w, stats add, perf_sample_data w, event->rb r, " +
					"rb->paused r, rb->lost r, rb->nest w, rb->wakeup r"}},
		{name: "a tracepoint: perf_swevent_overflow()", tp: "syscalls:sys_enter_getpid",
			noMark: []string{"perf_tp_event", "perf_swevent_overflow's caller"},
			want: []string{
				// perf_tp_event()'s walk goes on (the list read again), then
				// the syscall's other tracepoints (sched/footprint_entry.go)
				tail + ", tp_event->perf_events r, tp_event->perf_refcount r, tp_event->perf_refcount r, task_pt_regs(current) w",
				// the EXIT record of the task's context: the walk's end, then
				// its caller, perf_event_exit_task_context() (footprint_exit.go)
				"rb->head r, rb->wakeup r, ctx->event_list r, event->rb r, rb->event_list r, event->waitq r, event->pending_kill w, event->fasync r, event->tstamp w, ctx->time r, ctx->is_active r, event->state w, event->waitq r, event->waitq r, event->pending_kill w, event->fasync r, sync w, current->lockdep_depth w, sync w, ctx->refcount w, ctx->event_list r, task->perf_event_ctxp r, ctx->task r, task->unwind_info.unwind_mask r, task->unwind_info w, task->mm w, mm->mm_users w, task->mm w, mm->mm_users w, mm->mmap_lock w, current->lockdep_depth w, mm->mm_mt w, sync w, event->rb r, rb->refcount w, rb->aux_nr_pages r, rb->mmap_count w", // then the tombstone's rest (pmu/footprint_exit.go: the original's perf_event_wakeup() with its pending SIGIO, ctx->mutex released, the pin's put_ctx(), the CPU context's EXIT walk) and do_exit() (sched/footprint_exit.go): the deferred unwind's exit, exit_mm() and perf's last mmput() of the mm with its buffer (exit_mmap(): mmap_lock, the VMAs detached), and exit_mmap()'s perf_mmap_close() up to its first step (footprint_munmap.go)
			}},
		{name: "context switches: do_perf_sw_event()", attr: func() pmu.Attr {
			a := swAttr(uapi.PERF_COUNT_SW_CONTEXT_SWITCHES)
			a.SamplePeriod, a.SampleType = 1, uapi.PERF_SAMPLE_IP|uapi.PERF_SAMPLE_TID
			return a
		}(), other: true, want: []string{tail + ", swevent_htable->hlist r"}, // then perf_event_task_sched_out's step
			noMark: []string{"perf_swevent_event", "perf_swevent_overflow's caller"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mc := newMachine(t, 1, nil, pmu.Knobs{})
			l := &fragLog{}
			mc.m.OnSegments(l)
			if tc.other {
				mc.s.Spawn("other", sched.MaskOf(0), sched.Loop(5, sched.Compute(sim.Microsecond), sched.Yield()))
			}
			mc.s.Spawn("work", sched.MaskOf(0), sched.Call(func(t2 *sched.Task) {
				a := tc.attr
				if tc.tp != "" {
					a = tracepointAttrs(t, tc.tp)[0]
					a.Inherit, a.Disabled, a.EnableOnExec = false, false, false
				}
				fd, err := mc.k.PerfEventOpen(t2, &a, 0, -1, -1, 0)
				if err != nil {
					panic(err)
				}
				if _, err := mc.k.Mmap(t2, fd, 0, 9*4096, pmu.ProtRead|pmu.ProtWrite); err != nil {
					panic(err)
				}
				mc.s.RunOps(t2, []sched.Op{sched.Loop(5, sched.Compute(sim.Microsecond), sched.Syscall("getpid"), sched.Yield())})
			}))
			if err := mc.m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			if tc.enterHas != "" {
				if got := l.started(tc.enter); len(got) == 0 || !strings.Contains(got[0], tc.enterHas) {
					t.Errorf("%s fragments %q: want the first with %q", tc.enter, got, tc.enterHas)
				}
			} else if tc.enter != "" {
				if diff := cmp.Diff(tc.wantEnter, l.started(tc.enter)); diff != "" {
					t.Errorf("%s fragments (-want +got):\n%s", tc.enter, diff)
				}
			}
			for _, f := range l.frags {
				for _, m := range tc.noMark {
					if slices.Contains(f, "UNAUDITED "+m) {
						t.Errorf("a fragment from %s marks %s: %q", f[0], m, f)
					}
				}
			}
			got := l.started("perf_output_put_handle:nest-zero")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("nest-zero fragments (-want +got):\n%s", diff)
			}
		})
	}
}
