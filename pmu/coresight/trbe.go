package coresight

import (
	"perfsim/rb"
	"perfsim/sim"
	"perfsim/uapi"
)

// TRBE is one CPU's Trace Buffer Extension (coresight-trbe.c): a per-CPU sink
// that writes the ETE's trace straight into the AUX area, between the write
// pointer and the limit, in FILL mode: at the limit it stops collecting and
// raises its maintenance interrupt, whose handler commits the buffer and
// restarts it.
type TRBE struct {
	d      *Device
	cpu    int
	perf   bool          // cpudata->mode == CS_MODE_PERF
	buf    *trbeBuf      // cpudata->buf
	handle *rb.AuxHandle // *this_cpu_ptr(drvdata->handle)
	ev     Event         // the handle's event, for the IRQ handler
	on     bool          // TRBLIMITR_EL1.E
	filled bool          // collection stopped at the limit (TRBSR_EL1.BSC = FILLED)
	irq    bool          // TRBSR_EL1.IRQ
	write  uint64        // TRBPTR_EL1 - trbe_base
	limit  uint64        // TRBLIMITR_EL1.LIMIT - trbe_base
	irqAt  sim.Time      // when the armed maintenance interrupt fires (0: none)
}

// trbeBuf is struct trbe_buf.
type trbeBuf struct {
	aux      []byte // nil when the AUX area is described (rb.AuxOps.Described)
	size     uint64 // the AUX area's size
	nrPages  int
	snapshot bool
}

func (t *TRBE) percpu() bool { return true }

// allocBuffer is arm_trbe_alloc_buffer(): the AUX pages are the trace buffer.
// drivers/hwtracing/coresight/coresight-trbe.c: arm_trbe_alloc_buffer()
func (t *TRBE) allocBuffer(ev Event, aux []byte, nrPages int, overwrite bool) (any, error) {
	if nrPages < 2 {
		return nil, uapi.ENOMEM // "restrict the minimum buffer size as two pages"
	}
	size := uint64(nrPages) * rb.PageSize
	if aux != nil {
		size = uint64(len(aux))
	}
	return &trbeBuf{aux: aux, size: size, nrPages: nrPages, snapshot: overwrite}, nil
}

func (t *TRBE) freeBuffer(any) {}

// enable is arm_trbe_enable() -> __arm_trbe_enable(): write pointer at
// handle->head, limit at the end of the buffer in snapshot mode, else at the
// free space's end.
// drivers/hwtracing/coresight/coresight-trbe.c: __arm_trbe_enable()
func (t *TRBE) enable(cpu int, h *rb.AuxHandle, cfg any, ev Event) error {
	b := cfg.(*trbeBuf)
	t.buf, t.perf, t.ev = b, true, ev
	return t.armEnable(h)
}

func (t *TRBE) armEnable(h *rb.AuxHandle) error {
	b := t.buf
	rb.AuxOutputFlag(h, uapi.PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW)
	size := b.size
	head := h.Head % size
	limit := size // trbe_snapshot_offset(): the whole buffer
	if !b.snapshot {
		limit = t.normalLimit(h)
	}
	if limit == 0 || limit <= head {
		// trbe_stop_and_truncate_event()
		t.drainAndDisable()
		rb.AuxOutputFlag(h, uapi.PERF_AUX_FLAG_TRUNCATED|uapi.PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW)
		_ = rb.AuxOutputEnd(t.d.host.Stepper(t.cpu), h, 0)
		t.handle = nil
		return uapi.ENOSPC
	}
	t.write, t.limit = head, limit
	t.handle = h
	t.on, t.filled, t.irq = true, false, false
	t.rearm()
	return nil
}

// normalLimit is the part of __trbe_normal_offset() the model needs: up to
// the tail (page aligned down) when head < tail, else the end of the buffer.
// drivers/hwtracing/coresight/coresight-trbe.c: __trbe_normal_offset()
func (t *TRBE) normalLimit(h *rb.AuxHandle) uint64 {
	size := t.buf.size
	if h.Size == 0 {
		return 0
	}
	head := h.Head % size
	tail := (h.Head + h.Size) % size
	limit := size
	if head < tail {
		limit = tail &^ (rb.PageSize - 1)
	}
	return limit
}

// rearm arms the maintenance interrupt for when the write pointer will reach
// the limit at the ETM's rate.
func (t *TRBE) rearm() {
	e := t.d.etm[t.cpu]
	if !t.on || t.filled || !e.Enabled() {
		t.irqAt = 0
		t.d.host.ArmIRQ(t.cpu, 0)
		return
	}
	room := (t.limit - t.write) / FrameSize
	ns := (room*FrameSize*1e9 + uint64(t.d.cfg.Rate) - 1) / uint64(t.d.cfg.Rate)
	t.irqAt = t.d.host.Now() + sim.Time(ns)
	t.d.host.ArmIRQ(t.cpu, t.irqAt)
}

// disable is arm_trbe_disable().
// drivers/hwtracing/coresight/coresight-trbe.c: arm_trbe_disable()
func (t *TRBE) disable(cpu int) error {
	t.drainAndDisable()
	t.perf = false
	t.buf = nil
	return nil
}

// drainAndDisable is trbe_drain_and_disable_local(): the ETE's pending
// trace lands, then TRBLIMITR_EL1.E is cleared.
func (t *TRBE) drainAndDisable() {
	if t.on {
		t.d.etm[t.cpu].flush()
	}
	t.on = false
	t.irqAt = 0
	t.d.host.ArmIRQ(t.cpu, 0)
}

// hwWrite stores the units (raw ETE trace) from the write pointer up to the
// limit; at the limit collection stops (FILL mode) and the interrupt is
// raised.
func (t *TRBE) hwWrite(src *unitSrc) uint64 {
	if !t.on || t.filled || t.handle == nil || t.buf == nil {
		return 0
	}
	room := (t.limit - t.write) / FrameSize
	k := min(src.n, room)
	// units 0..k-1 of src, raw, at the write pointer (etmv4.go's unitWriter)
	fs := frameSource{kind: pieceUnits, raw: true, src: src}
	if buf := t.handle.Buffer(); buf != nil {
		buf.AuxWriteSource(t.write, k*FrameSize, fs)
		if sh := t.d.shadowOf(buf); sh != nil {
			sh.storeRun(t.write, src, k)
		}
	} else if t.buf.aux != nil {
		fs.AuxBytes(t.buf.aux[t.write:t.write+k*FrameSize], 0)
	}
	t.write += k * FrameSize
	if t.write == t.limit {
		t.filled, t.irq = true, true // WRAP event: TRBPTR back to TRBBASER, IRQ raised
	}
	return k
}

// traceSize is trbe_get_trace_size(): from PERF_IDX2OFF(handle->head) to the
// write pointer, or to the limit after a wrap.
// drivers/hwtracing/coresight/coresight-trbe.c: trbe_get_trace_size()
func (t *TRBE) traceSize(h *rb.AuxHandle, wrap bool) uint64 {
	end := t.write
	if wrap {
		end = t.limit
	}
	start := h.Head % t.buf.size
	if end < start {
		t.d.warn("trbe_get_trace_size: end_off < start_off")
		return 0
	}
	return end - start
}

// updateBuffer is arm_trbe_update_buffer(): drain and disable, handle a
// pending wrap itself, report the bytes since handle->head; in snapshot mode
// move handle->head past them.
// drivers/hwtracing/coresight/coresight-trbe.c: arm_trbe_update_buffer()
func (t *TRBE) updateBuffer(cpu int, h *rb.AuxHandle, cfg any, ev Event) uint64 {
	b := cfg.(*trbeBuf)
	if !t.perf {
		return 0
	}
	var size uint64
	wrap := false
	if t.on {
		t.d.etm[t.cpu].flush()
	}
	if !t.on && !t.irq {
		// "If the TRBE was disabled due to lack of space in the AUX buffer or
		// a spurious fault, the driver leaves it disabled, truncating the buffer."
		goto done
	}
	t.drainAndDisable()
	if t.irq { // "Check if there is a pending interrupt and handle it here"
		t.irq = false // clr_trbe_irq()
		if !t.filled {
			goto done
		}
		wrap = true
	}
	size = t.traceSize(h, wrap)
done:
	if b.snapshot {
		h.Head += size
	}
	return size
}

// IRQ is arm_trbe_irq_handler(), the TRBE maintenance interrupt of cpu.
// drivers/hwtracing/coresight/coresight-trbe.c: arm_trbe_irq_handler()
func (d *Device) IRQ(cpu int) {
	if d.trbe == nil || cpu < 0 || cpu >= len(d.trbe) {
		return
	}
	t := d.trbe[cpu]
	s := d.host.Stepper(cpu)
	if t.on {
		d.etm[cpu].flush() // the hardware ran up to now
	}
	status := t.irq // read_sysreg_s(SYS_TRBSR_EL1)
	if !status {
		return // IRQ_NONE: "the pending IRQ was handled by update_buffer"
	}
	s.Step("arm_trbe_irq_handler:status-read")
	t.drainAndDisable() // cpu_prohibit_trace(); trbe_drain_and_disable_local()
	t.irq = false       // clr_trbe_irq()
	s.Step("arm_trbe_irq_handler:disabled")
	h := t.handle
	if h == nil || rb.GetAux(h) == nil || !t.perf || t.buf == nil {
		return
	}
	d.Stats.TRBEIRQs++
	// trbe_get_fault_act(): the status read above says WRAP when the buffer filled
	if !t.filled {
		t.on = true // trbe_handle_spurious(): re-enable as it was
		t.rearm()
		return
	}
	t.handleOverflow(h, s)
}

// handleOverflow is trbe_handle_overflow(): commit up to the limit, begin a
// new transaction and restart the TRBE.
// drivers/hwtracing/coresight/coresight-trbe.c: trbe_handle_overflow()
func (t *TRBE) handleOverflow(h *rb.AuxHandle, s rb.Stepper) {
	ev := t.ev
	size := t.traceSize(h, true)
	if t.buf.snapshot {
		h.Head += size
	}
	t.d.Stats.UpdateBytes += size
	t.d.auxOutputEnd(t.cpu, s, h, size)
	if rb.AuxOutputBegin(s, h, ev.RB(), ev) == nil {
		t.handle = nil
		return
	}
	_ = t.armEnable(h)
}
