package coresight

import (
	"perfsim/rb"
	"perfsim/uapi"
)

// TMCETR is the TMC in ETR configuration (coresight-tmc-etr.c): one sink all
// the ETMs reach through the funnels, with its own circular buffer (etr_buf)
// that update_buffer() copies into the AUX area of the event being stopped.
type TMCETR struct {
	d       *Device
	refcnt  int             // csdev->refcnt: paths enabled through this sink
	pid     int             // drvdata->pid: the session using it, -1
	perfBuf *etrBuf         // drvdata->perf_buf
	hwOn    bool            // TMC_CTL.TraceCaptEn
	idr     map[int]*etrBuf // drvdata->idr: the CPU-wide sessions' shared etr_bufs, by pid
}

// etrBuf is struct etr_buf: the sink's buffer, and what the hardware wrote
// into it since it was last enabled (RWP and the FULL bit).
type etrBuf struct {
	size     uint64   // etr_buf->size
	frames   frameMap // what each 16-byte slot holds (frames.go): the bytes are made when read
	refcount int      // etr_buf->refcount (CPU-wide sharing)
	written  uint64   // bytes the hardware wrote since enable (RWP - DBA, unwrapped)
	full     bool     // TMC_STS.Full: RWP wrapped
	offset   uint64   // etr_buf->offset after tmc_sync_etr_buf()
	len      uint64   // etr_buf->len after tmc_sync_etr_buf()
}

// etrPerfBuffer is struct etr_perf_buffer: one event's view of the sink.
type etrPerfBuffer struct {
	buf      *etrBuf
	pid      int
	snapshot bool
	nrPages  int
	aux      []byte // the AUX pages (etr_perf->pages), nil when the AUX area is described (rb.AuxOps.Described)
	auxLen   uint64 // their size
}

func (t *TMCETR) percpu() bool { return false }

// allocBuffer is tmc_alloc_etr_buffer(): per-thread events get their own
// etr_buf, CPU-wide events of one session (same owner pid) share one.
// drivers/hwtracing/coresight/coresight-tmc-etr.c: tmc_alloc_etr_buffer(), get_perf_etr_buf()
func (t *TMCETR) allocBuffer(ev Event, aux []byte, nrPages int, overwrite bool) (any, error) {
	pid := ev.OwnerPID()
	auxLen := uint64(nrPages) * rb.PageSize
	if aux != nil {
		auxLen = uint64(len(aux))
	}
	size := uint64(t.d.cfg.SinkSize)
	if size == 0 {
		size = auxLen // alloc_etr_buf(): match the perf ring buffer size
	}
	var buf *etrBuf
	if ev.CPU() != -1 { // get_perf_etr_buf_cpu_wide()
		if b := t.idr[pid]; b != nil {
			b.refcount++
			buf = b
		}
	}
	if buf == nil {
		buf = &etrBuf{size: size, refcount: 1}
		if ev.CPU() != -1 {
			t.idr[pid] = buf
		}
	}
	return &etrPerfBuffer{buf: buf, pid: pid, snapshot: overwrite, nrPages: nrPages, aux: aux, auxLen: auxLen}, nil
}

// freeBuffer is tmc_free_etr_buffer(): the last user frees the etr_buf.
// drivers/hwtracing/coresight/coresight-tmc-etr.c: tmc_free_etr_buffer()
func (t *TMCETR) freeBuffer(cfg any) {
	p := cfg.(*etrPerfBuffer)
	p.buf.refcount--
	if p.buf.refcount == 0 && t.idr[p.pid] == p.buf {
		delete(t.idr, p.pid)
	}
}

// enable is tmc_enable_etr_sink_perf(): a second path of the same session
// only takes a reference; the first programs the hardware, which restarts
// writing at the base of the buffer.
// drivers/hwtracing/coresight/coresight-tmc-etr.c: tmc_enable_etr_sink_perf()
func (t *TMCETR) enable(cpu int, h *rb.AuxHandle, cfg any, ev Event) error {
	p, _ := cfg.(*etrPerfBuffer)
	if p == nil || p.buf == nil {
		t.d.warn("tmc_enable_etr_sink_perf: !etr_perf || !etr_perf->etr_buf")
		return uapi.EINVAL
	}
	if t.pid != -1 && t.pid != p.pid {
		return errBusy // "Do not proceed if this device is associated with another session"
	}
	if t.pid == p.pid {
		t.refcnt++
		return nil
	}
	t.enableHW(p.buf)
	t.pid = p.pid
	t.perfBuf = p.buf
	t.refcnt++
	return nil
}

// enableHW is __tmc_etr_enable_hw(): capture restarts at the buffer's base.
// drivers/hwtracing/coresight/coresight-tmc-etr.c: __tmc_etr_enable_hw()
func (t *TMCETR) enableHW(b *etrBuf) {
	b.written, b.full = 0, false
	t.perfBuf = b
	t.hwOn = true
}

// disable is tmc_disable_etr_sink(): the last path switches the hardware off
// and dissociates the session.
// drivers/hwtracing/coresight/coresight-tmc-etr.c: tmc_disable_etr_sink()
func (t *TMCETR) disable(cpu int) error {
	t.refcnt--
	if t.refcnt > 0 {
		return errBusy
	}
	t.flushAll()
	t.hwOn = false
	t.pid = -1
	t.perfBuf = nil
	return nil
}

// flushAll drains every ETM whose path ends here (tmc_flush_and_stop()
// flushes the formatter, which has every source's pending trace).
func (t *TMCETR) flushAll() {
	for _, e := range t.d.etm {
		if e.enabled {
			e.flush()
		}
	}
}

// hwWrite stores the units, as formatter frames of the ETM's trace ID, at
// the write pointer, wrapping at the end of the buffer (circular mode); only
// the last len(data) bytes can survive.
func (t *TMCETR) hwWrite(src *unitSrc) uint64 {
	b := t.perfBuf
	n := src.n
	if !t.hwOn || b == nil || b.size == 0 {
		return 0
	}
	size := b.size
	capFrames := size / FrameSize
	skip := uint64(0)
	if n > capFrames {
		skip = n - capFrames
	}
	pos := b.written + skip*FrameSize
	// units skip..n-1 from slot pos/FrameSize on, round the buffer: the
	// formatter frames of src.cpu's trace ID (etmv4.go's unitWriter)
	k := skip
	for lo, hi := range rb.RingSpans((pos%size)/FrameSize, n-skip, capFrames) {
		b.frames.set(piece{lo: lo, hi: hi, kind: pieceUnits, src: src, k0: k})
		k += hi - lo
	}
	b.written += n * FrameSize
	if b.written > size {
		b.full = true
	}
	return n // the buffer took them all; the overwritten ones are lost to the next reader, not to the hardware
}

// syncBuf is tmc_flush_and_stop() + tmc_sync_etr_buf(): stop capture and
// read RRP/RWP and the FULL bit into etr_buf->offset and ->len.
// drivers/hwtracing/coresight/coresight-tmc-etr.c: tmc_sync_etr_buf()
func (t *TMCETR) syncBuf(b *etrBuf) {
	t.flushAll()
	t.hwOn = false
	size := b.size
	if b.full {
		b.offset = b.written % size
		b.len = size
	} else {
		b.offset = 0
		b.len = b.written
	}
}

// updateBuffer is tmc_update_etr_buffer(): copy what the ETR captured since
// it was enabled into the AUX area at handle->head (the latest handle->size
// bytes of it outside snapshot mode), marking lost trace with a barrier
// packet; in snapshot mode move handle->head past it.
// drivers/hwtracing/coresight/coresight-tmc-etr.c: tmc_update_etr_buffer()
func (t *TMCETR) updateBuffer(cpu int, h *rb.AuxHandle, cfg any, ev Event) uint64 {
	p := cfg.(*etrPerfBuffer)
	b := p.buf
	lost := false
	var size uint64
	// "Don't do anything if another tracer is using this sink"
	if t.refcnt != 1 {
		goto out
	}
	if t.perfBuf != b {
		t.d.warn("tmc_update_etr_buffer: drvdata->perf_buf != etr_buf")
		lost = true
		goto out
	}
	t.syncBuf(b)
	{
		lost = b.full
		offset := b.offset
		size = b.len
		if !p.snapshot && size > h.Size {
			size = h.Size &^ (FrameSize - 1) // tmc_get_memwidth_mask()
			offset = (b.offset + b.len - size) % b.size
			lost = true
		}
		if lost && size > 0 {
			// tmc_etr_buf_insert_barrier_packet(etr_buf, offset)
			b.frames.set(piece{lo: offset / FrameSize, hi: offset/FrameSize + 1, kind: pieceBarrier})
		}
		t.syncPerfBuffer(p, h.Buffer(), h.Head, offset, size)
		// "In snapshot mode we simply increment the head by the number of byte
		// that were written."
		if p.snapshot {
			h.Head += size
		}
		// "If the event is active, it is triggered during an AUX pause.
		// Re-enable the sink so that it is ready when AUX resume is invoked."
		if t.refcnt > 0 && ev.HWState() == 0 {
			t.enableHW(b)
		}
	}
out:
	if !p.snapshot && lost {
		rb.AuxOutputFlag(h, uapi.PERF_AUX_FLAG_TRUNCATED)
	}
	return size
}

// syncPerfBuffer is tmc_etr_sync_perf_buffer(): copy size bytes of the
// etr_buf from offset (wrapping) into the AUX pages at PERF_IDX2OFF(head).
// drivers/hwtracing/coresight/coresight-tmc-etr.c: tmc_etr_sync_perf_buffer()
// The copy goes through rb.Buffer.AuxWrite (the ring buffer's log of AUX
// stores) when the handle has a buffer.
func (t *TMCETR) syncPerfBuffer(p *etrPerfBuffer, buf *rb.Buffer, head, offset, size uint64) {
	if p.auxLen == 0 {
		return
	}
	b := p.buf
	auxMask := p.auxLen - 1
	var sh *auxShadow
	if buf != nil {
		sh = t.d.shadowOf(buf)
	}
	for size > 0 {
		if offset >= b.size {
			offset -= b.size
		}
		d := head & auxMask
		n := min(size, b.size-offset, p.auxLen-d)
		src := etrSource(b.frames.get(nil, offset/FrameSize, (offset+n)/FrameSize))
		if buf != nil {
			buf.AuxWriteSource(head, n, src)
			if sh != nil {
				sh.store(head, src)
			}
		} else if p.aux != nil {
			src.AuxBytes(p.aux[d:d+n], 0)
		}
		size -= n
		offset += n
		head += n
	}
}

// etrSource is a stretch of the ETR's buffer, as pieces, as an rb.AuxSource
// (offsets in bytes from the first piece's first slot).
type etrSource []piece

// AuxBytes implements rb.AuxSource.
func (s etrSource) AuxBytes(dst []byte, off uint64) {
	if len(s) == 0 {
		return
	}
	base := s[0].lo * FrameSize
	for _, p := range s {
		lo, hi := p.lo*FrameSize-base, p.hi*FrameSize-base
		if hi <= off || len(dst) == 0 {
			continue
		}
		n := min(uint64(len(dst)), hi-off)
		p.source().AuxBytes(dst[:n], off-lo)
		dst = dst[n:]
		off += n
	}
}

// errBusy is -EBUSY.
const errBusy = uapi.EBUSY
