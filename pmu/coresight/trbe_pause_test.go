package coresight

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/sim"
)

// testHost is a Host with a clock the test moves, the armed TRBE interrupt
// of each CPU, and an NMI it delivers at one step point label.
type testHost struct {
	now   sim.Time
	irqAt map[int]sim.Time
	nmiAt string
	nmi   func()
}

func (h *testHost) Now() sim.Time          { return h.now }
func (h *testHost) Stepper(int) rb.Stepper { return h }
func (h *testHost) ArmIRQ(cpu int, at sim.Time) {
	if h.irqAt == nil {
		h.irqAt = map[int]sim.Time{}
	}
	h.irqAt[cpu] = at
}

// Step delivers the pending NMI once at its label.
func (h *testHost) Step(label string) {
	if label == h.nmiAt && h.nmi != nil {
		nmi := h.nmi
		h.nmi = nil
		nmi()
	}
}

// testEvent is a CPU-bound cs_etm event with an AUX area.
type testEvent struct {
	rb.SimpleEvent
	cpu     int
	buf     *rb.Buffer
	hwState int
	records int
}

func (e *testEvent) CPU() int                                     { return e.cpu }
func (e *testEvent) RB() *rb.Buffer                               { return e.buf }
func (e *testEvent) HWState() int                                 { return e.hwState }
func (e *testEvent) SetHWState(s int)                             { e.hwState = s }
func (e *testEvent) CtxIsActive() int                             { return 7 }
func (e *testEvent) OwnerPID() int                                { return 1 }
func (e *testEvent) AuxPaused() bool                              { return false }
func (e *testEvent) Excludes() (bool, bool)                       { return false, false }
func (e *testEvent) DisableInatomic()                             {}
func (e *testEvent) AuxRecord(rb.Stepper, uint64, uint64, uint64) { e.records++ }

func newTestEvent(t *testing.T, d *Device, cpu, auxPages int, snapshot bool) *testEvent {
	t.Helper()
	return newAuxEvent(t, d, cpu, auxPages, snapshot, false)
}

// newAuxEvent makes a test event with a 2-page ring and an AUX area of
// auxPages set up by d; described: the AUX area cs_etm gets (the sinks store
// descriptions, frames.go; no AUX sampler), else one of bytes.
func newAuxEvent(t interface{ Fatal(...any) }, d *Device, cpu, auxPages int, snapshot, described bool) *testEvent {
	buf, err := rb.NewBuffer(1, 0, rb.RingBufferWritable)
	if err != nil {
		t.Fatal(err)
	}
	ev := &testEvent{cpu: cpu, buf: buf, hwState: hesStopped}
	flags := rb.RingBufferWritable
	if snapshot {
		flags = 0
	}
	ops := &rb.AuxOps{Described: described, NoSnapshotAux: described, SetupAux: func(data []byte, n int, overwrite bool) any {
		if ed := d.SetupAux(ev, data, n, overwrite); ed != nil {
			return ed
		}
		return nil
	}}
	if err := buf.AllocAux(ops, 2, auxPages, 0, flags); err != nil {
		t.Fatal(err)
	}
	buf.AuxMmapSet(1)
	return ev
}

// TestPausePercpuSink is B18: an AUX pause (from an NMI) lands while the
// TRBE's maintenance interrupt handler, having read TRBSR_EL1, is about to
// commit the full buffer. Today (973f47a9886a) the pause leaves a per-CPU
// sink alone; without the skip, update_buffer() in the NMI commits the
// buffer and restarts the handle, and the IRQ handler then commits from the
// new handle->head to the limit: the whole buffer a second time.
func TestPausePercpuSink(t *testing.T) {
	type result struct {
		Commits      int
		Recommitted  uint64
		AuxHeadPages uint64
	}
	const pages = 16 // 64 KiB AUX, snapshot mode
	tests := []struct {
		knob string
		want result
	}{
		{PauseSkip, result{Commits: 1, Recommitted: 0, AuxHeadPages: 16}},
		{PauseUpdate, result{Commits: 2, Recommitted: pages * rb.PageSize, AuxHeadPages: 32}},
	}
	for _, tc := range tests {
		t.Run(tc.knob, func(t *testing.T) {
			h := &testHost{nmiAt: "arm_trbe_irq_handler:status-read"}
			d, err := New(Config{CPUs: 1, Sink: SinkTRBE, Rate: 64 << 20, Knobs: Knobs{PausePercpu: tc.knob}}, h)
			if err != nil {
				t.Fatal(err)
			}
			ev := newTestEvent(t, d, 0, pages, true)
			d.Start(0, ev, 0)
			at := h.irqAt[0]
			if at == 0 {
				t.Fatal("no TRBE interrupt armed")
			}
			h.now = at
			h.nmi = func() { d.Stop(0, ev, pmu.PERF_EF_PAUSE) } // the pause event's PMI
			d.IRQ(0)
			got := result{Commits: len(d.Commits), Recommitted: d.Stats.Recommitted, AuxHeadPages: ev.buf.AuxHead() / rb.PageSize}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
