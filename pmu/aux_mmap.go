package pmu

import (
	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sched"
)

// perfMmapAuxArea maps the AUX area of e's buffer: the offset and size user space
// wrote into the user page must match the mapping, an existing area must have the
// same offset and size, the size must be a power of two, and the data mapping
// must still be there (rb->mmap_count). A read-only mapping makes the area an
// overwrite (snapshot) one.
// kernel/events/core.c: perf_mmap_aux()
func (k *Kernel) perfMmapAuxArea(e *Event, pgoff uint64, nrPages int, prot Prot) error {
	buf := e.rb
	if buf == nil {
		return EINVAL
	}
	// guard(mutex)(&rb->aux_mutex)
	auxOffset := buf.User.AuxOffset // READ_ONCE(rb->user_page->aux_offset)
	auxSize := buf.User.AuxSize
	if auxOffset < buf.DataSize()+PageSize {
		return EINVAL
	}
	if auxOffset != pgoff*PageSize {
		return EINVAL
	}
	// "Already mapped with a different offset"
	if buf.HasAux() && buf.AuxPgoff() != pgoff {
		return EINVAL
	}
	if auxSize != uint64(nrPages)*PageSize {
		return EINVAL
	}
	// "Already mapped with a different size"
	if buf.HasAux() && buf.AuxNrPages() != nrPages {
		return EINVAL
	}
	if nrPages == 0 || nrPages&(nrPages-1) != 0 { // !is_power_of_2(nr_pages)
		return EINVAL
	}
	bs := k.bufs[buf]
	if bs == nil || bs.mmapCount <= 0 { // !refcount_inc_not_zero(&rb->mmap_count)
		return EINVAL
	}
	bs.mmapCount++
	if buf.HasAux() {
		buf.AuxMmapGet() // refcount_inc(&rb->aux_mmap_count)
	} else {
		extra, err := k.perfMmapCalcLimits(int64(nrPages))
		if err != nil {
			bs.mmapCount--
			return EPERM
		}
		flags := 0
		if prot&ProtWrite != 0 {
			flags = rb.RingBufferWritable
		}
		ops := &rb.AuxOps{FreeAux: e.pmu.FreeAux}
		if e.pmu.HasAux() {
			ops.SetupAux = func(data []byte, n int, overwrite bool) any {
				priv, err := e.pmu.SetupAux(e, n, overwrite)
				if err != nil {
					return nil
				}
				return priv
			}
		}
		if err := buf.AllocAux(ops, pgoff, nrPages, int64(e.Attr.AuxWatermark), flags); err != nil {
			bs.mmapCount--
			return Errno(err.(rb.Errno))
		}
		buf.AuxMmapSet(1)
		bs.auxUserExtra = int64(nrPages) - extra
		bs.auxExtra = extra
		k.mlockedPages += bs.auxUserExtra
		k.pinnedPages += bs.auxExtra
	}
	e.mmapCount++
	return nil
}

// perfMmapCloseAux is the AUX part of perf_mmap_close() for an AUX mapping: the
// last AUX unmap stops every AUX writer of the buffer (perf_pmu_output_stop) so
// that their transactions drop aux_refcount, then drops the last reference
// itself: the pages are freed here, never from an NMI (95ff4ca26c49).
// kernel/events/core.c: perf_mmap_close()
func (k *Kernel) perfMmapCloseAux(t *sched.Task, m *Mapping) error {
	buf := m.RB
	if !buf.HasAux() || m.Pgoff != buf.AuxPgoff() || !buf.AuxMmapDec() {
		return nil
	}
	t.Step("perf_mmap_close:aux_mmap_count-zero")
	old := buf.Knobs.OldAuxFree // before 57ffc5ca679f: the writers go on
	if !old {
		k.perfPMUOutputStop(t, buf)
	}
	if bs := k.bufs[buf]; bs != nil {
		k.mlockedPages -= bs.auxUserExtra
		k.pinnedPages -= bs.auxExtra
		bs.auxUserExtra, bs.auxExtra = 0, 0
	}
	// "this has to be the last one"
	if err := buf.FreeAux(false); err != nil {
		return err
	}
	if buf.AuxRefcount() != 0 && !old { // WARN_ON_ONCE(refcount_read(&rb->aux_refcount))
		k.aux.stats.auxWarn++
	}
	return nil
}

// perfPMUOutputStop stops every ACTIVE AUX event writing into buf, on its CPU,
// without restarting it.
// kernel/events/core.c: perf_pmu_output_stop() -> __perf_event_output_stop() -> __perf_event_stop()
func (k *Kernel) perfPMUOutputStop(t *sched.Task, buf *rb.Buffer) {
	bs := k.bufs[buf]
	if bs == nil {
		return
	}
	for _, e := range append([]*Event(nil), bs.eventList...) {
		if !e.pmu.HasAux() || e.rb != buf {
			continue
		}
		for e.state == StateActive && e.oncpu >= 0 {
			where := e.oncpu
			again := false
			k.smpCallFunctionSingle(t, where, func(c *cpu.CPU) {
				if e.state != StateActive {
					return
				}
				if e.oncpu != c.ID { // -EAGAIN: it moved
					again = true
					return
				}
				e.pmu.Stop(c, e, PERF_EF_UPDATE)
			})
			if !again {
				break
			}
		}
	}
}
