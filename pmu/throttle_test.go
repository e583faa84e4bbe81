package pmu

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// fakePMU logs the driver calls the core makes.
type fakePMU struct {
	pmuBase
	noAux
	typ, caps uint32
	log       *[]string
}

func (p *fakePMU) Name() string           { return fmt.Sprintf("fake%d", p.typ) }
func (p *fakePMU) Type() uint32           { return p.typ }
func (p *fakePMU) Capabilities() uint32   { return p.caps }
func (p *fakePMU) EventInit(*Event) error { return nil }
func (p *fakePMU) Add(c *cpu.CPU, e *Event, flags int) error {
	p.note("add %d %d", e.id, flags)
	return nil
}
func (p *fakePMU) Del(c *cpu.CPU, e *Event, flags int)   { p.note("del %d %d", e.id, flags) }
func (p *fakePMU) Start(c *cpu.CPU, e *Event, flags int) { p.note("start %d %d", e.id, flags) }
func (p *fakePMU) Stop(c *cpu.CPU, e *Event, flags int)  { p.note("stop %d %d", e.id, flags) }
func (p *fakePMU) Read(*cpu.CPU, *Event)                 {}
func (p *fakePMU) PMUDisable(*cpu.CPU)                   { p.note("pmu_disable %s", p.Name()) }
func (p *fakePMU) PMUEnable(*cpu.CPU)                    { p.note("pmu_enable %s", p.Name()) }
func (p *fakePMU) note(f string, a ...any)               { *p.log = append(*p.log, fmt.Sprintf(f, a...)) }

// throttleRig is a one-CPU kernel with a shared data ring for the fake events.
type throttleRig struct {
	k   *Kernel
	c   *cpu.CPU
	buf *rb.Buffer
	log []string
	ctx *Context
}

// runThrottleRig runs fn in a task on cpu0, where the core's paths run.
func runThrottleRig(t *testing.T, fn func(r *throttleRig)) {
	t.Helper()
	m := cpu.NewMachine(cpu.Config{CPUs: 1}, nil)
	t.Cleanup(m.Close)
	s := sched.New(m, sched.DefaultConfig())
	r := &throttleRig{k: NewKernel(s, DefaultOptions(1)), c: m.CPUs[0]}
	buf, err := rb.NewBuffer(1, 0, rb.RingBufferWritable)
	if err != nil {
		t.Fatal(err)
	}
	r.buf = buf
	r.ctx = &Context{}
	r.ctx.init(r.k, nil, 0)
	s.Spawn("t", sched.MaskOf(0), sched.Call(func(*sched.Task) { fn(r) }))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
}

func (r *throttleRig) pmu(typ, caps uint32) *fakePMU {
	return &fakePMU{pmuBase: pmuBase{index: 7}, typ: typ, caps: caps, log: &r.log}
}

// event makes an event of p on r's ring; a nil leader makes a group leader.
func (r *throttleRig) event(p PMU, id uint64, leader *Event, st EventState) *Event {
	e := &Event{k: r.k, id: id, pmu: p, ctx: r.ctx, cpu: -1, oncpu: -1, state: st, rb: r.buf}
	e.Attr.SampleIDAll = true
	e.Attr.SampleType = uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME | uapi.PERF_SAMPLE_ID | uapi.PERF_SAMPLE_CPU
	e.hw.idx = -1
	if st == StateActive {
		e.oncpu = 0
	}
	e.leader = e
	if leader != nil {
		e.leader = leader
		leader.siblings = append(leader.siblings, e)
	}
	return e
}

// throttleRec is a decoded PERF_RECORD_(UN)THROTTLE with its sample_id.
type throttleRec struct {
	Type, Size           int
	Time, ID, StreamID   uint64
	TrailerID, TrailerTm uint64
}

// records parses the ring (no wrap in these tests).
func (r *throttleRig) records(t *testing.T) []throttleRec {
	t.Helper()
	le := binary.LittleEndian
	d := r.buf.Data()[:r.buf.Head()]
	var out []throttleRec
	for len(d) >= rb.HeaderSize {
		h, _ := rb.ParseHeader(d)
		if int(h.Size) > len(d) || h.Size < rb.HeaderSize {
			t.Fatalf("bad record size %d", h.Size)
		}
		rec := d[:h.Size]
		d = d[h.Size:]
		if h.Type != uapi.PERF_RECORD_THROTTLE && h.Type != uapi.PERF_RECORD_UNTHROTTLE {
			t.Fatalf("unexpected record type %d", h.Type)
		}
		// body {time, id, stream_id}, trailer {pid, tid}, time, id, {cpu, res}
		out = append(out, throttleRec{Type: int(h.Type), Size: int(h.Size),
			Time: le.Uint64(rec[8:]), ID: le.Uint64(rec[16:]), StreamID: le.Uint64(rec[24:]),
			TrailerTm: le.Uint64(rec[40:]), TrailerID: le.Uint64(rec[48:])})
	}
	return out
}

func TestPerfEventThrottleGroup(t *testing.T) {
	runThrottleRig(t, func(r *throttleRig) {
		p := r.pmu(4, 0)
		l := r.event(p, 10, nil, StateActive)
		s1 := r.event(p, 11, l, StateActive)
		s2 := r.event(p, 12, l, StateInactive)
		s2.hw.interrupts = 5
		now := uint64(r.k.now())
		r.k.perfEventThrottleGroup(r.c, s1)

		if diff := cmp.Diff([]string{"stop 10 0", "stop 11 0"}, r.log); diff != "" {
			t.Errorf("driver calls (-want +got):\n%s", diff)
		}
		gotIrq := []uint64{l.hw.interrupts, s1.hw.interrupts, s2.hw.interrupts}
		if diff := cmp.Diff([]uint64{maxInterrupts, maxInterrupts, 5}, gotIrq); diff != "" {
			t.Errorf("hw.interrupts (-want +got):\n%s", diff)
		}
		// Only the leader logs; header 8 + body 24 + sample_id 32.
		want := []throttleRec{{Type: uapi.PERF_RECORD_THROTTLE, Size: 64, Time: now, ID: 10, StreamID: 10, TrailerTm: now, TrailerID: 10}}
		if diff := cmp.Diff(want, r.records(t)); diff != "" {
			t.Errorf("records (-want +got):\n%s", diff)
		}
	})
}

func TestPerfEventUnthrottleGroup(t *testing.T) {
	tests := []struct {
		name  string
		from  int // index of the event passed in: 0 leader, 1 sibling
		skip  bool
		calls []string
	}{
		{"start all", 1, false, []string{"start 20 0", "start 21 0"}},
		{"skip the leader", 0, true, []string{"start 21 0"}},
		{"skip a sibling", 1, true, []string{"start 20 0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runThrottleRig(t, func(r *throttleRig) {
				p := r.pmu(4, 0)
				l := r.event(p, 20, nil, StateActive)
				s1 := r.event(p, 21, l, StateActive)
				s2 := r.event(p, 22, l, StateInactive)
				for _, e := range []*Event{l, s1, s2} {
					e.hw.interrupts = maxInterrupts
				}
				r.k.perfEventUnthrottleGroup(r.c, []*Event{l, s1}[tc.from], tc.skip)
				if diff := cmp.Diff(tc.calls, r.log); diff != "" {
					t.Errorf("driver calls (-want +got):\n%s", diff)
				}
				gotIrq := []uint64{l.hw.interrupts, s1.hw.interrupts, s2.hw.interrupts}
				if diff := cmp.Diff([]uint64{0, 0, maxInterrupts}, gotIrq); diff != "" {
					t.Errorf("hw.interrupts (-want +got):\n%s", diff)
				}
				recs := r.records(t)
				if len(recs) != 1 || recs[0].Type != uapi.PERF_RECORD_UNTHROTTLE || recs[0].StreamID != 20 {
					t.Errorf("records = %+v, want one UNTHROTTLE of the leader", recs)
				}
			})
		})
	}
}

// TestEventSchedInUnthrottles: event_sched_in() clears a throttle without
// pmu->start (pmu->add starts it), and only the leader logs.
func TestEventSchedInUnthrottles(t *testing.T) {
	runThrottleRig(t, func(r *throttleRig) {
		p := r.pmu(4, 0)
		l := r.event(p, 30, nil, StateInactive)
		s := r.event(p, 31, l, StateInactive)
		l.hw.interrupts, s.hw.interrupts = maxInterrupts, maxInterrupts
		if err := r.k.groupSchedIn(r.c, l); err != nil {
			t.Fatal(err)
		}
		want := []string{"pmu_disable fake4", "add 30 1", "pmu_enable fake4", "pmu_disable fake4", "add 31 1", "pmu_enable fake4"}
		if diff := cmp.Diff(want, r.log); diff != "" {
			t.Errorf("driver calls (-want +got):\n%s", diff)
		}
		if l.hw.interrupts != 0 || s.hw.interrupts != 0 {
			t.Errorf("interrupts = %d, %d; want 0, 0", l.hw.interrupts, s.hw.interrupts)
		}
		recs := r.records(t)
		if len(recs) != 1 || recs[0].Type != uapi.PERF_RECORD_UNTHROTTLE || recs[0].StreamID != 30 {
			t.Errorf("records = %+v, want one UNTHROTTLE of the leader", recs)
		}
	})
}

// TestPerfAdjustFreqUnthrContext: the tick unthrottles ACTIVE throttled
// leaders with their groups, per PMU (by type) with the PMU disabled, pinned
// before flexible, and skips PERF_PMU_CAP_NO_INTERRUPT PMUs.
func TestPerfAdjustFreqUnthrContext(t *testing.T) {
	runThrottleRig(t, func(r *throttleRig) {
		p9, p5 := r.pmu(9, 0), r.pmu(5, 0)
		p5.index = 6
		noIrq := r.pmu(7, PERF_PMU_CAP_NO_INTERRUPT)
		noIrq.index = 5
		a := r.event(p9, 40, nil, StateActive) // flexible, throttled
		as := r.event(p5, 41, a, StateActive)  // sibling on another PMU
		b := r.event(p9, 42, nil, StateActive) // pinned, throttled
		c := r.event(p5, 43, nil, StateActive) // leader not throttled
		cs := r.event(p5, 44, c, StateActive)  // its throttled sibling: left alone
		d := r.event(noIrq, 45, nil, StateActive)
		e := r.event(p9, 46, nil, StateInactive)
		for _, x := range []*Event{a, as, b, cs, d, e} {
			x.hw.interrupts = maxInterrupts
		}
		r.ctx.pinned = []*Event{b}
		r.ctx.flexible = []*Event{a, c, d, e}
		r.k.perfAdjustFreqUnthrContext(r.c, r.ctx)
		want := []string{
			"pmu_disable fake5", "pmu_enable fake5",
			"pmu_disable fake9", "start 42 0", "start 40 0", "start 41 0", "pmu_enable fake9",
		}
		if diff := cmp.Diff(want, r.log); diff != "" {
			t.Errorf("driver calls (-want +got):\n%s", diff)
		}
		got := []uint64{a.hw.interrupts, as.hw.interrupts, b.hw.interrupts, cs.hw.interrupts, d.hw.interrupts, e.hw.interrupts}
		if diff := cmp.Diff([]uint64{0, 0, 0, maxInterrupts, maxInterrupts, maxInterrupts}, got); diff != "" {
			t.Errorf("hw.interrupts of a, as, b, cs, d, e (-want +got):\n%s", diff)
		}
		var ids []uint64
		for _, x := range r.records(t) {
			ids = append(ids, x.StreamID)
		}
		if diff := cmp.Diff([]uint64{42, 40}, ids); diff != "" {
			t.Errorf("UNTHROTTLE records of (-want +got):\n%s", diff)
		}
	})
}

// TestEventLimitStops: the IOC_REFRESH limit running out disables the event
// and stops it, as __perf_event_overflow() does.
func TestEventLimitStops(t *testing.T) {
	runThrottleRig(t, func(r *throttleRig) {
		p := r.pmu(4, 0)
		e := r.event(p, 50, nil, StateActive)
		e.Attr.SamplePeriod = 1000
		e.eventLimit = 1
		e.pendingIrqQueued = true // keep the irq_work (the disable) out of this fake context
		ret := r.k.eventOverflow(r.c, e, false, &perfSampleData{period: 1000}, &regs{})
		if ret != 1 || !e.pendingDisable || e.pendingKill != pollHup {
			t.Errorf("ret %d pendingDisable %v pendingKill %d; want 1 true %d", ret, e.pendingDisable, e.pendingKill, pollHup)
		}
		if diff := cmp.Diff([]string{"stop 50 0"}, r.log); diff != "" {
			t.Errorf("driver calls (-want +got):\n%s", diff)
		}
	})
}

// TestAuxOutputBeginNoBuffer: without a buffer perf_aux_output_begin()
// returns before touching handle->event; a buffer without AUX clears it.
func TestAuxOutputBeginNoBuffer(t *testing.T) {
	runThrottleRig(t, func(r *throttleRig) {
		e := r.event(r.pmu(4, 0), 60, nil, StateActive)
		h := rb.AuxHandle{Event: e}
		if rb.AuxOutputBegin(r.c, &h, nil, e) != nil || h.Event != rb.AuxEvent(e) {
			t.Errorf("no rb: handle->event = %v, want it unchanged", h.Event)
		}
		if rb.AuxOutputBegin(r.c, &h, r.buf, e) != nil || h.Event != nil {
			t.Errorf("rb without AUX: handle->event = %v, want nil", h.Event)
		}
	})
}

// fakeAuxPMU is fakePMU with setup_aux (has_aux()), as intel_pt and cs_etm.
type fakeAuxPMU struct{ fakePMU }

func (p *fakeAuxPMU) HasAux() bool { return true }

// TestPerfEventThrottleAuxFlags: perf_event_throttle() stops every member
// with flags 0 today, the AUX leader included (pt_event_stop() then leaves its
// transaction open); with aux-throttle=proposed the AUX leader alone gets
// PERF_EF_UPDATE (4), the counters keep 0, and each AUX stop is logged in the
// buffer's invariant log with its flags.
func TestPerfEventThrottleAuxFlags(t *testing.T) {
	for _, tc := range []struct {
		knob  string
		calls []string
		flags uint64
	}{
		{"today", []string{"stop 40 0", "stop 41 0"}, 0},
		{"proposed", []string{"stop 40 4", "stop 41 0"}, PERF_EF_UPDATE},
	} {
		t.Run(tc.knob, func(t *testing.T) {
			runThrottleRig(t, func(r *throttleRig) {
				r.k.Opts.Knobs.Extra = map[string]string{"aux-throttle": tc.knob}
				var logged []rb.TraceEvent
				r.buf.Tracer = func(e rb.TraceEvent) {
					if e.Kind == rb.TraceAuxThrottleStop {
						logged = append(logged, e)
					}
				}
				l := r.event(&fakeAuxPMU{*r.pmu(8, 0)}, 40, nil, StateActive)
				s := r.event(r.pmu(4, 0), 41, l, StateActive)
				r.k.perfEventThrottleGroup(r.c, s)
				if diff := cmp.Diff(tc.calls, r.log); diff != "" {
					t.Errorf("driver calls (-want +got):\n%s", diff)
				}
				want := []rb.TraceEvent{{Kind: rb.TraceAuxThrottleStop, Pos: 40, Value: tc.flags}}
				if diff := cmp.Diff(want, logged); diff != "" {
					t.Errorf("logged AUX throttle stops (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestFreqFirstInterruptKeepsPeriod: hwc->freq_time_stamp starts at 0 and
// perf_clock() counts from boot, so a freq event's first interrupt sees the
// machine's uptime as its delta and keeps its period; the second, 3 us
// later, adapts it (the rate looks like one event per 3 us against 1000 Hz).
// Before the model's clock had an uptime, the first interrupt of a run 3 us
// in took the 3 us for the rate: context-switches -F 1000 went 1, 34, 72
// where the real perf went 1, 1, 1, 2, 3 (helper survey, 2026-11-28).
func TestFreqFirstInterruptKeepsPeriod(t *testing.T) {
	runThrottleRig(t, func(r *throttleRig) {
		e := r.event(r.pmu(4, 0), 60, nil, StateActive)
		e.Attr.SetSampleFreq(1000)
		e.hw.samplePeriod, e.hw.lastPeriod = 1, 1
		r.k.accountInterrupt(r.c, e, false)
		if e.hw.samplePeriod != 1 || e.hw.freqTimeStamp != r.k.now()+uptimeAtStart {
			t.Fatalf("first interrupt: period %d, stamp %v; want 1, %v", e.hw.samplePeriod, e.hw.freqTimeStamp, r.k.now()+uptimeAtStart)
		}
		e.hw.freqTimeStamp -= 3 * sim.Microsecond // the first interrupt 3 us ago
		r.k.accountInterrupt(r.c, e, false)
		// perf_calculate_period(1000 Hz, 3 us, 1 event) = 1e9 / (3,000 *
		// 1,000) = 333; the low pass filter moves the period an eighth of
		// the way, rounded up: 1 + (332 + 7) / 8 = 43
		if e.hw.samplePeriod != 43 {
			t.Errorf("second interrupt: period %d, want 43", e.hw.samplePeriod)
		}
	})
}

// TestSampleReadInheritSelf: a sample's PERF_SAMPLE_READ value is
// perf_event_count(event, self): an inherit + PERF_SAMPLE_READ event's own
// count, the task's ("perf: Support PERF_SAMPLE_READ with inherit": "per-thread counts"), without what its
// exited children folded into child_count; any other event's with it. The
// one-value form adds the children's times; a group reads each member the
// same way.
func TestSampleReadInheritSelf(t *testing.T) {
	runThrottleRig(t, func(r *throttleRig) {
		le := binary.LittleEndian
		for _, tc := range []struct {
			name    string
			inherit bool
			rf      uint64
			want    []uint64
		}{
			{"inherit: the task's own", true, uapi.PERF_FORMAT_ID, []uint64{3, 70}},
			{"no inherit: with child_count", false, uapi.PERF_FORMAT_ID, []uint64{13, 70}},
			{"inherit with times: the children's times added", true, uapi.PERF_FORMAT_TOTAL_TIME_ENABLED | uapi.PERF_FORMAT_TOTAL_TIME_RUNNING, []uint64{3, 100 + 40, 50 + 20}},
			{"inherit, a group of one", true, uapi.PERF_FORMAT_GROUP | uapi.PERF_FORMAT_ID, []uint64{1, 3, 70}},
			{"no inherit, a group of one", false, uapi.PERF_FORMAT_GROUP | uapi.PERF_FORMAT_ID, []uint64{1, 13, 70}},
		} {
			e := r.event(r.pmu(4, 0), 70, nil, StateInactive)
			e.Attr.Inherit, e.Attr.SampleType, e.Attr.ReadFormat = tc.inherit, uapi.PERF_SAMPLE_TID|uapi.PERF_SAMPLE_READ, tc.rf
			e.count, e.childCount = 3, 10
			e.totalTimeEnabled, e.totalTimeRunning, e.childTotalTimeEnabled, e.childTotalTimeRunning = 100, 50, 40, 20
			b := r.k.perfOutputRead(r.c, e)
			var got []uint64
			for i := 0; i+8 <= len(b); i += 8 {
				got = append(got, le.Uint64(b[i:]))
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("%s: read part (-want +got):\n%s", tc.name, d)
			}
		}
	})
}
