package pt_test

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
// start and what it annotates ("field w", "field r", "field add";
// "UNAUDITED fn" for a mark).
type fragLog struct{ frags [][]string }

func (l *fragLog) Boundary(_ *cpu.CPU, kind cpu.BoundaryKind, _ cpu.Context, _ *cpu.Thread, label string) {
	switch kind {
	case cpu.BoundaryExit:
		label = "exit"
	case cpu.BoundaryResume:
		label = "resume"
	}
	l.frags = append(l.frags, []string{label})
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
		if s := strings.Join(f[1:], ", "); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// TestAuxPauseFootprints: what perf_event_aux_pause()'s fragments annotate
// (pmu/footprint_aux.go, pmu/pt/footprint.go) on the aux-pause-resume-nmi
// setup (a PT leader started paused, sys_enter_newuname resumes, a cycles
// NMI pauses) with the guard on: the guard's test, then on guard-set
// __perf_event_aux_pause()'s hw.aux_paused and intel_pt's callback (PAUSE:
// pause_allowed and pt_config_stop(); RESUME: resume_allowed up to its
// step), and on callback-done the guard's clear and ring_buffer_put()
// before the caller's return. No fragment of the run marks
// perf_event_aux_pause or a PMU callback.
func TestAuxPauseFootprints(t *testing.T) {
	mc := newMachine(t, sim.NewRandom(1), map[string]string{"aux-pause-guard": "on"})
	l := &fragLog{}
	mc.m.OnSegments(l)
	mc.s.Spawn("uname", sched.MaskOf(0), sched.Call(func(task *sched.Task) {
		la := ptAttr()
		leader, err := mc.k.PerfEventOpen(task, &la, 0, -1, -1, 0)
		if err != nil {
			panic(err)
		}
		if _, err := mapAux(task, mc.k, leader, pmu.ProtRead|pmu.ProtWrite); err != nil {
			panic(err)
		}
		ra := tpAttr(t, "sys_enter_newuname")
		ra.AuxResume = true
		ra.Inherit, ra.UseClockid, ra.Clockid, ra.Disabled, ra.EnableOnExec = false, false, 0, false, false
		if _, err := mc.k.PerfEventOpen(task, &ra, 0, -1, leader, 0); err != nil {
			panic(err)
		}
		ca := pmu.Attr{Type: uapi.PERF_TYPE_HARDWARE, Size: uapi.AttrSize, Config: uapi.PERF_COUNT_HW_CPU_CYCLES, SamplePeriod: 1500, AuxPause: true}
		if _, err := mc.k.PerfEventOpen(task, &ca, 0, -1, leader, 0); err != nil {
			panic(err)
		}
	}), sched.Loop(6, sched.Syscall("newuname"), sched.Compute(700*sim.Nanosecond)))
	if err := mc.m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, s := range []string{"perf_event_aux_pause:irqs-off", "perf_event_aux_pause:guard-set", "perf_event_aux_pause:callback-done"} {
		got[s] = l.started(s)
	}
	const (
		guardRead   = "rb->aux_in_pause_resume r"
		stopped     = "pt->pause_allowed r, RTIT_STATUS, the trace position w, the task's mode and stacks r, mm->mmap r" // pt_config_stop(): the hardware's output since the last look
		ctlCleared  = "RTIT_CTL w, pending w"                                                                            // TraceEn cleared, the PMI timer cancelled (a post on this CPU)
		putAndGuard = "rb->aux_in_pause_resume w, rb->refcount w"
		// the PMI's overflow after its aux_pause: the sample (refused:
		// the cycles event has no buffer), then the counters' walk
		pmiTail = "event->event_limit r, event->pending_kill w, stats add, perf_sample_data w, event->rb r, the model's sample count add, stats add, " +
			"event->fasync r, event->pending_kill r, cpuc->events r, cpuc->events r, cpuc->events r, perf_sample_allowed_ns r"
	)
	want := map[string][]string{
		"perf_event_aux_pause:irqs-off": {guardRead + ", rb->aux_in_pause_resume w"},
		"perf_event_aux_pause:guard-set": {
			"event->hw.aux_paused r, event->hw.aux_paused w, pt->resume_allowed r", // RESUME: on to pt_event_start:resume-allowed
			"event->hw.aux_paused r, event->hw.aux_paused w, " + stopped + ", " + ctlCleared,
			// PAUSE while the hardware wrote: its bytes into the AUX area
			"event->hw.aux_paused r, event->hw.aux_paused w, " + stopped + ", occupant add, pt_buffer (the hardware's output position) w, event->addr_filters r, mm->mmap r, rb->aux_pages w, " + ctlCleared,
			"event->hw.aux_paused r", // already paused (or running): no callback
		},
		"perf_event_aux_pause:callback-done": {
			// the tracepoint's aux_resume: perf_tp_event()'s walk goes on, then the syscall's entry
			putAndGuard + ", tp_event->perf_events r, tp_event->perf_refcount r, tp_event->perf_refcount r, task_pt_regs(current) w",
			putAndGuard + ", " + pmiTail,
			putAndGuard + ", tp_event->perf_events r",
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("perf_event_aux_pause fragments (-want +got):\n%s", diff)
	}
	for _, f := range l.frags {
		for _, m := range []string{"perf_event_aux_pause", "pmu->stop(PERF_EF_PAUSE)", "pmu->start(PERF_EF_RESUME)"} {
			if slices.Contains(f, "UNAUDITED "+m) {
				t.Errorf("a fragment from %s marks %s: %q", f[0], m, f)
			}
		}
	}
}

// TestAuxRecordFootprints: the fragments from the side-band records
// intel_pt's transactions write return into annotated code, not into a
// caller rb marks: PERF_RECORD_ITRACE_START (pt_event_start(), then
// pt_config() up to its resume-allowed step: the filters, resume_allowed)
// and PERF_RECORD_AUX (perf_aux_output_end() up to its nest-zero step:
// aux_head published, the wakeup test, handle->event and aux_nest
// cleared: rb/footprint_aux.go), on a PT event tracing a task that
// computes, sleeps (pt_event_stop(PERF_EF_UPDATE) at its sched-out: a
// PERF_RECORD_AUX) and computes again.
func TestAuxRecordFootprints(t *testing.T) {
	mc := newMachine(t, sim.NewRandom(1), nil)
	l := &fragLog{}
	mc.m.OnSegments(l)
	mc.s.Spawn("app", sched.MaskOf(0), sched.Call(func(task *sched.Task) {
		a := ptAttr()
		a.AuxStartPaused, a.ExcludeUser = false, false
		fd, err := mc.k.PerfEventOpen(task, &a, 0, -1, -1, 0)
		if err != nil {
			panic(err)
		}
		if _, err := mapAux(task, mc.k, fd, pmu.ProtRead|pmu.ProtWrite); err != nil {
			panic(err)
		}
	}), sched.Loop(3, sched.Compute(2*sim.Microsecond), sched.Sleep(3*sim.Microsecond)))
	if err := mc.m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	want := []string{
		// PERF_RECORD_ITRACE_START, then pt_config(): the first start
		// syncs the filters (hw.addr_filters_gen behind):
		// pt_event_addr_filters_sync() reads the list and the ranges and
		// writes the event's struct pt_filters, which pt_config_filters()
		// then loads
		"rb->head r, rb->wakeup r, event->hw.addr_filters r, ifh->lock w, event->addr_filters_gen r, event->hw.addr_filters_gen r, " +
			"ifh->list r, event->addr_filter_ranges r, event->hw.addr_filters r, struct pt_filters w, event->hw.addr_filters_gen w, " +
			"struct pt_filters r, pt->filters w, pt->resume_allowed w",
		// PERF_RECORD_AUX, then perf_aux_output_end()
		"rb->head r, rb->wakeup r, user_page->aux_head w, rb->aux_head r, rb->aux_wakeup w, handle->event w, rb->aux_nest w",
	}
	if diff := cmp.Diff(want, l.started("perf_output_put_handle:nest-zero")); diff != "" {
		t.Errorf("nest-zero fragments (-want +got):\n%s", diff)
	}
}

// TestPTInterruptFootprints: what the PT PMI's fragments annotate
// (pmu/pt/footprint.go, rb/footprint_aux.go) on a PT event tracing a
// task that computes until its 8-page AUX area (nobody reads it) fills:
// the entry (the hardware's output, handle_nmi, handle.event,
// pt_config_stop(), pt_read_offset(), pt_handle_status(), pt_update_head(), then
// perf_aux_output_end() up to its PERF_RECORD_AUX), and from the
// output-end step perf_aux_output_begin() up to its aux_refcount step;
// perf_aux_output_end() from its nest-zero step, perf_aux_output_begin()
// from its aux_refcount step into pt_event_start() or the PMI.
func TestPTInterruptFootprints(t *testing.T) {
	mc := newMachine(t, sim.NewRandom(1), nil)
	l := &fragLog{}
	mc.m.OnSegments(l)
	mc.s.Spawn("app", sched.MaskOf(0), sched.Call(func(task *sched.Task) {
		a := ptAttr()
		a.AuxStartPaused, a.ExcludeUser = false, false
		fd, err := mc.k.PerfEventOpen(task, &a, 0, -1, -1, 0)
		if err != nil {
			panic(err)
		}
		if _, err := mapAux(task, mc.k, fd, pmu.ProtRead|pmu.ProtWrite); err != nil {
			panic(err)
		}
	}), sched.Sleep(sim.Microsecond), sched.Compute(60*sim.Microsecond)) // the sleep: sched in again with the area mapped (pt_event_start())
	if err := mc.m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, s := range []string{"enter:intel_pt_interrupt", "intel_pt_interrupt:output-end", "perf_aux_output_end:nest-zero", "perf_aux_output_begin:aux_refcount"} {
		got[s] = l.started(s)
	}
	const (
		accrue = "RTIT_STATUS, the trace position w, the task's mode and stacks r, mm->mmap r" // the hardware's output since the last look (accrue)
		begun  = "rb->aux_nest w, handle->rb w, handle->event w, handle->aux_flags w, handle->head w, rb->aux_nr_pages r, rb->aux_head r, user_page->aux_tail r, rb->aux_wakeup r, "
		// pt_buffer_reset_offsets(), _markers(), pt_config_buffer()
		txn = "handle->head r, pt_buffer (the hardware's output position) w, pt_buffer (the driver's offsets) w, handle->aux_flags w, RTIT_OUTPUT_BASE (the hardware's buffer) w, "
	)
	want := map[string][]string{
		"enter:intel_pt_interrupt": {"pending w, sync w, " + // the interrupt's own (cpu.Machine)
			accrue + ", pt_buffer (the hardware's output position) w, event->addr_filters r, mm->mmap r, rb->aux_pages w, " + // ... up to the marker: bytes written
			"pt->handle_nmi r, handle->event r, " +
			accrue + ", RTIT_CTL w, pending w, " + // pt_config_stop(): TraceEn cleared, the PMI timer cancelled
			"pt_buffer (the hardware's output position) w, " + // pt_read_offset()
			"handle->rb r, rb->aux_nr_pages r, MSR_IA32_RTIT_STATUS w, handle->aux_flags w, pt_buffer (the driver's offsets) w, " + // perf_get_aux(), pt_handle_status(), pt_update_head()
			"handle->aux_flags w, rb->aux_nr_pages r, rb->aux_head w, " + // perf_aux_output_end() up to its record
			"task_pt_regs(current) r, event->rb r, occupant add, rb->paused r, rb->lost r, rb->nest w, rb->wakeup r"}, // perf_event_aux_event(): the sample_id, then perf_output_begin()
		"intel_pt_interrupt:output-end": {"event->hw (the counter) r, event->rb r, rb->refcount w, rb->aux_nr_pages r, rb->aux_mmap_count r, rb->aux_refcount w, handle->event w"},
		// the PMI's perf_aux_output_end() after its record: rb_free_aux(),
		// ring_buffer_put(), handle->rb, then the output-end step
		"perf_aux_output_end:nest-zero": {"rb->aux_refcount w, rb->refcount w, handle->rb w"},
		// perf_aux_output_begin() after aux_refcount, then its caller
		"perf_aux_output_begin:aux_refcount": {
			// sched in: pt_event_start(), the first start's PERF_RECORD_ITRACE_START
			begun + txn + "event->hw (the counter) w, event->attach_state r, event->attach_state w, PERF_ATTACH_ITRACE w, event->rb r, task_pt_regs(current) r, occupant add, rb->paused r, rb->lost r, rb->nest w, rb->wakeup r",
			// the PMI's restart: pt_config_start()
			begun + txn + "event->hw.aux_paused r, " + accrue + ", RTIT_CTL w, pending w",
			// the PMI's restart finds the area full: the event disabled, woken, stopped
			begun + "UNAUDITED perf_event_disable_inatomic, rb->poll w, rb->aux_refcount w, rb->refcount w, " +
				"event->pending_disable w, event->fasync r, event->pending_kill w, event->pending_wakeup w, event->pending_irq w, event->hw (the counter) w, pt->resume_allowed w",
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PT PMI fragments (-want +got):\n%s", diff)
	}
}
