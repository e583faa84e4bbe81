package pmu

import (
	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/uapi"
)

// u16Max is U16_MAX, the bound of perf_event_header.size.
const u16Max = 65535

// AuxSampleCheck is what the aux-sample-is-newest invariant looks at for one AUX
// sample: the bytes the sample holds and the AUX bytes written before the
// overflow, newest last (an observation, not kernel state).
type AuxSampleCheck struct {
	Event   uint64 // the sampling event's id
	CPU     int
	Size    uint64 // data->aux_size
	Copied  int64  // what snapshot_aux returned
	Got     []byte // the bytes written into the sample (before the pad)
	Want    []byte // the newest Copied bytes of trace before the overflow
	Sampler string // "" or why the sampler was not fit (not ACTIVE, other CPU)
}

// perfPrepareSampleAux fixes data->aux_size: 0 without an AUX event, when the
// sampler is not ACTIVE on this CPU (a WARN), or when this is an NMI inside
// another sample's snapshot copy (aux_in_sampling); else the size bounded by the
// AUX area, 8-aligned.
// kernel/events/core.c: perf_prepare_sample_aux()
func (k *Kernel) perfPrepareSampleAux(c *cpu.CPU, e *Event, size uint64) uint64 {
	sampler := e.aux.event
	if sampler == nil {
		return 0
	}
	if sampler.state != StateActive { // WARN_ON_ONCE(READ_ONCE(sampler->state) != PERF_EVENT_STATE_ACTIVE)
		k.aux.stats.auxWarn++
		k.aux.sampleWhy.inactive++
		return 0
	}
	if sampler.oncpu != c.ID { // WARN_ON_ONCE(READ_ONCE(sampler->oncpu) != smp_processor_id())
		k.aux.stats.auxWarn++
		k.aux.sampleWhy.inactive++
		return 0
	}
	buf := sampler.rb
	if !k.rbGet(buf, "perf_aux_sample_size") {
		return 0
	}
	defer k.ringBufferPut(buf)
	// "If this is an NMI hit inside sampling code, don't take the sample."
	if buf.AuxInSampling() != 0 {
		k.aux.sampleWhy.nested++
		return 0
	}
	size = min(size, buf.AuxSize())
	return (size + 7) &^ 7 // ALIGN(size, sizeof(u64))
}

// prepareSampleAux is the PERF_SAMPLE_AUX part of perf_prepare_sample(): the
// size is bounded so that the whole record stays within U16_MAX (rounded down
// to 8), then perf_prepare_sample_aux() fixes it. s already holds every other
// field.
// kernel/events/core.c: perf_prepare_sample() (PERF_SAMPLE_AUX)
func (k *Kernel) prepareSampleAux(c *cpu.CPU, e *Event, s *rb.Sample) {
	s.Type |= uapi.PERF_SAMPLE_AUX
	s.AuxSize, s.Aux, s.AuxOutput = 0, nil, nil
	base, err := rb.SampleSize(s) // perf_sample_data_size(data, event)
	if err != nil {
		return
	}
	headerSize := uint64(base) // includes the u64 size word (auxSampleBytes counts it)
	size := min(uint64(u16Max)-headerSize, uint64(e.Attr.AuxSampleSize))
	size -= size % 8 // rounddown(size, 8)
	s.AuxSize = k.perfPrepareSampleAux(c, e, size)
	if s.AuxSize+headerSize > u16Max {
		k.aux.stats.auxWarn++ // WARN_ON_ONCE(size + header_size > U16_MAX)
	}
	k.aux.stats.auxSamples++
	if s.AuxSize == 0 {
		k.aux.stats.auxSamplesEmpty++
		return
	}
	s.AuxOutput = func(st rb.Stepper, h *rb.Handle, s *rb.Sample) { k.perfAuxSampleOutput(c, e, h, s) }
}

// perfAuxSampleOutput copies the sampler's newest AUX bytes into the sample and
// zero-pads up to data->aux_size.
// kernel/events/core.c: perf_aux_sample_output()
func (k *Kernel) perfAuxSampleOutput(c *cpu.CPU, e *Event, h *rb.Handle, s *rb.Sample) {
	sampler := e.aux.event
	if sampler == nil || s.AuxSize == 0 { // WARN_ON_ONCE(!sampler || !data->aux_size)
		k.aux.stats.auxWarn++
		rb.OutputZero(h, int(s.AuxSize))
		return
	}
	buf := sampler.rb
	if !k.rbGet(buf, "perf_aux_sample_output") {
		rb.OutputZero(h, int(s.AuxSize))
		return
	}
	defer k.ringBufferPut(buf)
	size := k.perfPMUSnapshotAux(c, buf, sampler, h, s.AuxSize)
	if size < 0 { // WARN_ON_ONCE(size < 0)
		k.aux.stats.auxWarn++
		size = 0
	}
	pad := int64(s.AuxSize) - size
	if pad >= 8 { // WARN_ON_ONCE(pad >= sizeof(u64)); the kernel then pads 8
		k.aux.stats.auxWarn++
	}
	rb.OutputZero(h, int(pad))
}

// perfPMUSnapshotAux runs pmu->snapshot_aux with irqs off and rb->aux_in_sampling
// set, so that an NMI sample inside the copy takes none.
// kernel/events/core.c: perf_pmu_snapshot_aux()
func (k *Kernel) perfPMUSnapshotAux(c *cpu.CPU, buf *rb.Buffer, sampler *Event, h *rb.Handle, size uint64) int64 {
	snap, ok := sampler.pmu.(AuxSnapshotter)
	if !ok {
		return 0
	}
	k.observeSnapshotSampler(c, sampler)
	flags := c.LocalIrqSave()
	buf.SetAuxInSampling(1)
	c.Step("perf_pmu_snapshot_aux:in-sampling")
	// The aux-sample-is-newest invariant (rb/aux_invariants.go) compares what
	// snapshot_aux copied into the sample (TraceAuxSample) with the trace
	// written before the driver began the copy (its TraceAuxSampleBegin).
	ret := snap.SnapshotAuxOutput(c, sampler, h, size)
	if ret > 0 {
		buf.Trace(rb.TraceEvent{Kind: rb.TraceAuxSample, Size: int(ret), Rec: h.Tail(int(ret))})
	}
	buf.SetAuxInSampling(0)
	c.LocalIrqRestore(flags)
	return ret
}

// RecordAuxSample is called by a driver's snapshot_aux with what it copied and
// what the newest trace was (for the aux-sample-is-newest invariant).
func (k *Kernel) RecordAuxSample(chk AuxSampleCheck) {
	k.aux.samples = append(k.aux.samples, chk)
}

// AuxSamples returns the AUX sample observations of the run.
func (k *Kernel) AuxSamples() []AuxSampleCheck { return k.aux.samples }
