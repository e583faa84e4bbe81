package rb

import "perfsim/uapi"

// The AUX area of struct perf_buffer (kernel/events/ring_buffer.c, internal.h):
// pages a PMU driver (Intel PT, CoreSight) fills with hardware trace, mapped by user
// space at aux_offset of the perf fd, committed by the driver with
// perf_aux_output_end(), which also posts PERF_RECORD_AUX into the data ring.
//
// The API is the kernel's, for drivers in other packages:
//
//	buf := rb.AuxOutputBegin(s, &h, event.RB(), ev)  // pmu::start, the PMI
//	... hardware writes: rb.AuxWrite(pos, bytes) ...
//	rb.AuxOutputFlag(&h, PERF_AUX_FLAG_TRUNCATED)
//	rb.AuxOutputEnd(s, &h, size)                     // pmu::stop, the PMI
//
// The core (pmu) allocates and frees the area (AllocAux, FreeAux) from perf_mmap and
// perf_mmap_close and holds aux_mmap_count.

// auxArea is the rb->aux_* part of struct perf_buffer.
type auxArea struct {
	pgoff      uint64 // aux_pgoff
	nrPages    int    // aux_nr_pages
	head       uint64 // aux_head: free-running, where the next commit starts
	wakeup     uint64 // aux_wakeup: last aux_watermark boundary crossed by aux_head
	watermark  uint64 // aux_watermark
	overwrite  bool   // aux_overwrite: the AUX mapping is read-only (snapshot mode)
	nest       uint32 // aux_nest: 1 while a driver holds an AUX handle
	mmapCount  int32  // aux_mmap_count (refcount_t)
	refcount   int32  // aux_refcount (refcount_t)
	inSampling int32  // aux_in_sampling
	// inPauseResume is rb->aux_in_pause_resume, the guard of perf_event_aux_pause().
	inPauseResume int32
	data          []byte // aux_pages, contiguous (nil while ext or pages describe them)
	// pages are the aux_pages one by one while data is nil (AuxOps.Lazy):
	// nil until first written, and a nil page reads as zeroes (aux_lazy.go)
	pages [][]byte
	// ext describes the area while data is nil (aux_source.go): AuxOps.Described
	ext []auxExtent
	// noSample: the PMU has no snapshot_aux (AuxOps.NoSnapshotAux)
	noSample bool
	priv     any // aux_priv: the driver's setup_aux() result
	freeAux  func(priv any)
}

// AuxOps is what rb_alloc_aux() takes from event->pmu: setup_aux and free_aux.
// SetupAux receives the area (the aux_pages) and returns the driver's private
// buffer (nil: failure, -ENOMEM as in the kernel).
type AuxOps struct {
	SetupAux func(data []byte, nrPages int, overwrite bool) any
	FreeAux  func(priv any)
	// Described: the driver writes with AuxWriteSource and reads no pages in
	// SetupAux (which gets nil): the pages are made when something reads
	// them as bytes (aux_source.go).
	Described bool
	// NoSnapshotAux: the PMU has no snapshot_aux, so no AUX sample copies
	// the area and the log's TraceAuxWrite keeps the length of each write,
	// not its bytes (which only aux-sample-is-newest reads).
	NoSnapshotAux bool
	// Lazy: SetupAux reads no pages (it gets nil) and the driver stores
	// bytes only through the Buffer (AuxWrite): each page is allocated on
	// its first write, and a page never written reads as zeroes, as the
	// kernel's __GFP_ZERO pages do (aux_lazy.go).
	Lazy bool
}

// HasAux is rb_has_aux(): the buffer has an AUX area.
// kernel/events/internal.h: rb_has_aux()
func (rb *Buffer) HasAux() bool { return rb != nil && rb.aux.nrPages != 0 }

// AuxSize is perf_aux_size(): aux_nr_pages << PAGE_SHIFT.
// kernel/events/internal.h: perf_aux_size()
func (rb *Buffer) AuxSize() uint64 { return uint64(rb.aux.nrPages) * PageSize }

// AllocAux allocates the AUX area: the watermark (half the area by default, 0 in
// overwrite mode), the pages, the driver's setup_aux, aux_refcount = 1. flags is
// RingBufferWritable for a writable AUX mapping; without it the area is in overwrite
// (snapshot) mode. ops nil is a PMU without setup_aux (-EOPNOTSUPP).
// kernel/events/ring_buffer.c: rb_alloc_aux()
func (rb *Buffer) AllocAux(ops *AuxOps, pgoff uint64, nrPages int, watermark int64, flags int) error {
	overwrite := flags&RingBufferWritable == 0
	if rb.footprinting() {
		rb.accessAllocAux() // footprint_aux_alloc.go
	}
	if ops == nil || ops.SetupAux == nil {
		return uapi.EOPNOTSUPP // !has_aux(event)
	}
	if nrPages <= 0 {
		return uapi.EINVAL
	}
	if nrPages > 1<<20 {
		return uapi.ENOMEM // kcalloc_node() of aux_pages fails
	}
	if !overwrite {
		// "Watermark defaults to half the buffer, to aid PMU drivers in double buffering."
		if watermark == 0 {
			watermark = int64(min(uint64(1<<32-1), uint64(nrPages)<<(12-1)))
		}
	} else {
		watermark = 0
	}
	rb.trace(TraceEvent{Kind: TraceAuxAlloc, Size: nrPages})
	rb.aux.data, rb.aux.pages = nil, nil
	switch {
	case ops.Described:
	case ops.Lazy:
		rb.aux.pages = make([][]byte, nrPages)
	default:
		rb.aux.data = make([]byte, nrPages*PageSize)
	}
	rb.aux.nrPages = nrPages
	rb.aux.noSample = ops.NoSnapshotAux
	rb.aux.freeAux = ops.FreeAux
	rb.aux.priv = ops.SetupAux(rb.aux.data, nrPages, overwrite)
	if rb.aux.priv == nil {
		rb.trace(TraceEvent{Kind: TraceAuxFree})
		rb.freeAuxPages()
		return uapi.ENOMEM
	}
	rb.aux.refcount = 1
	rb.aux.overwrite = overwrite
	rb.aux.watermark = uint64(watermark)
	rb.aux.pgoff = pgoff
	rb.User.AuxOffset = pgoff * PageSize
	rb.User.AuxSize = rb.AuxSize()
	return nil
}

// freeAuxPages is __rb_free_aux(): the driver's free_aux, then the pages.
// kernel/events/ring_buffer.c: __rb_free_aux()
func (rb *Buffer) freeAuxPages() {
	if rb.aux.priv != nil {
		if rb.aux.freeAux != nil {
			rb.aux.freeAux(rb.aux.priv)
		}
		rb.aux.freeAux = nil
		rb.aux.priv = nil
	}
	if rb.aux.nrPages != 0 {
		rb.aux.data, rb.aux.pages = nil, nil
		rb.aux.dropExtents()
		rb.aux.nrPages = 0
	}
}

// FreeAux is rb_free_aux(): drop an aux_refcount; the last one frees the area.
// atomic says the caller is in atomic context (an NMI, irqs off, the driver's
// pmu::stop): the kernel's WARN_ON_ONCE(in_atomic()) in __rb_free_aux(), since
// the last reference must be dropped from perf_mmap_close() (95ff4ca26c49).
// Dropping a reference that is not held is an *Oops.
// kernel/events/ring_buffer.c: rb_free_aux()
func (rb *Buffer) FreeAux(atomic bool) error {
	if rb == nil {
		return &Oops{Func: "rb_free_aux", What: "NULL pointer dereference"}
	}
	if rb.aux.refcount <= 0 {
		rb.trace(TraceEvent{Kind: TraceAuxRefcount, Value: uint64(int64(rb.aux.refcount - 1))})
		return &Oops{Func: "rb_free_aux", What: "refcount_t: underflow; use-after-free"}
	}
	rb.aux.refcount--
	rb.trace(TraceEvent{Kind: TraceAuxRefcount, Value: uint64(rb.aux.refcount)})
	if rb.aux.refcount != 0 {
		return nil
	}
	rb.trace(TraceEvent{Kind: TraceAuxFree, Counted: atomic})
	rb.freeAuxPages()
	if atomic {
		if rb.Knobs.OldAuxFree { // before 57ffc5ca679f: no WARN, just the free
			return &Oops{Func: "__rb_free_aux", What: "AUX pages freed in atomic context (an NMI or irqs off): vfree() there is a bug"}
		}
		return &Oops{Func: "__rb_free_aux", What: "WARN_ON_ONCE(in_atomic()): AUX pages freed outside the unmap path"}
	}
	return nil
}

func (rb *Buffer) trace(e TraceEvent) {
	if rb.Tracer != nil {
		rb.Tracer(e)
	}
}

// AuxMmapGet is refcount_inc_not_zero(&rb->aux_mmap_count) for a second mapping of
// an existing AUX area; AuxMmapSet sets it (refcount_set) for the first.
func (rb *Buffer) AuxMmapGet() bool {
	if rb.aux.mmapCount <= 0 {
		return false
	}
	rb.aux.mmapCount++
	return true
}

// AuxMmapSet is refcount_set(&rb->aux_mmap_count, n) after rb_alloc_aux().
func (rb *Buffer) AuxMmapSet(n int32) { rb.aux.mmapCount = n }

// AuxMmapDec is refcount_dec_and_mutex_lock(&rb->aux_mmap_count, ...): it reports
// whether the count reached zero (the caller then stops the writers and frees).
func (rb *Buffer) AuxMmapDec() bool {
	rb.aux.mmapCount--
	return rb.aux.mmapCount == 0
}

// The rb->aux_* fields, read-only.

// AuxHead reports rb->aux_head.
func (rb *Buffer) AuxHead() uint64 { return rb.aux.head }

// AuxPgoff reports rb->aux_pgoff.
func (rb *Buffer) AuxPgoff() uint64 { return rb.aux.pgoff }

// AuxNrPages reports rb->aux_nr_pages.
func (rb *Buffer) AuxNrPages() int { return rb.aux.nrPages }

// AuxWatermark reports rb->aux_watermark.
func (rb *Buffer) AuxWatermark() uint64 { return rb.aux.watermark }

// AuxWakeup reports rb->aux_wakeup.
func (rb *Buffer) AuxWakeup() uint64 { return rb.aux.wakeup }

// AuxOverwrite reports rb->aux_overwrite (snapshot mode).
func (rb *Buffer) AuxOverwrite() bool { return rb.aux.overwrite }

// AuxNest reports rb->aux_nest.
func (rb *Buffer) AuxNest() uint32 { return rb.aux.nest }

// AuxRefcount reports rb->aux_refcount.
func (rb *Buffer) AuxRefcount() int32 { return rb.aux.refcount }

// AuxMmapCount reports rb->aux_mmap_count.
func (rb *Buffer) AuxMmapCount() int32 { return rb.aux.mmapCount }

// AuxData is the AUX area as user space maps it (made from its
// descriptions, if it has them: aux_source.go).
func (rb *Buffer) AuxData() []byte {
	rb.auxMaterialize()
	return rb.aux.data
}

// AuxPriv is rb->aux_priv.
func (rb *Buffer) AuxPriv() any { return rb.aux.priv }

// AuxInSampling reports rb->aux_in_sampling.
func (rb *Buffer) AuxInSampling() int32 { return rb.aux.inSampling }

// SetAuxInSampling is WRITE_ONCE(rb->aux_in_sampling, v) (perf_pmu_snapshot_aux).
func (rb *Buffer) SetAuxInSampling(v int32) { rb.aux.inSampling = v }

// AuxInPauseResume reports rb->aux_in_pause_resume.
func (rb *Buffer) AuxInPauseResume() int32 { return rb.aux.inPauseResume }

// SetAuxInPauseResume is WRITE_ONCE(rb->aux_in_pause_resume, v) (perf_event_aux_pause).
func (rb *Buffer) SetAuxInPauseResume(v int32) { rb.aux.inPauseResume = v }

// AuxWrite is the hardware storing trace bytes at free-running AUX position pos
// (masked to the area, wrapping). It logs TraceAuxWrite for the invariants,
// with (outside snapshot mode) the end of the room the reader left: aux_tail
// plus the area's size.
// The log keeps the bytes only when an AUX sample may copy the area
// (AuxOps.NoSnapshotAux).
func (rb *Buffer) AuxWrite(pos uint64, b []byte) {
	if rb.aux.pages == nil {
		rb.auxMaterialize()
	}
	n := rb.aux.nrPages * PageSize
	if n == 0 {
		return
	}
	var rec []byte
	if !rb.aux.noSample && rb.Tracer != nil {
		rec = append([]byte(nil), b...)
	}
	rb.traceAuxWrite(pos, len(b), rec)
	if rb.aux.pages != nil {
		rb.aux.writePages(pos, b)
		return
	}
	mask := uint64(n - 1)
	for len(b) > 0 {
		off := int(pos & mask)
		k := copy(rb.aux.data[off:], b)
		b = b[k:]
		pos += uint64(k)
	}
}

// traceAuxWrite logs a hardware write of size bytes at pos (rec: its bytes,
// or nil), with (outside snapshot mode) the end of the room the reader left:
// aux_tail plus the area's size.
func (rb *Buffer) traceAuxWrite(pos uint64, size int, rec []byte) {
	if rb.Tracer == nil {
		return
	}
	room := uint64(0)
	if !rb.aux.overwrite {
		room = rb.User.AuxTail + uint64(rb.aux.nrPages)*PageSize
	}
	rb.trace(TraceEvent{Kind: TraceAuxWrite, Pos: pos, Size: size, Value: room, Rec: rec})
}

// AuxCopyOut copies n bytes at free-running AUX position pos out of the area.
func (rb *Buffer) AuxCopyOut(pos uint64, n int) []byte {
	if rb.AuxDescribed() {
		return PiecesBytes(rb.AuxPieces(pos, uint64(n)))
	}
	out := make([]byte, n)
	if rb.aux.pages != nil {
		rb.aux.readPages(out, pos)
		return out
	}
	if len(rb.aux.data) == 0 {
		return out
	}
	mask := uint64(len(rb.aux.data) - 1)
	for i := 0; i < n; {
		off := int((pos + uint64(i)) & mask)
		i += copy(out[i:min(n, i+len(rb.aux.data)-off)], rb.aux.data[off:])
	}
	return out
}
