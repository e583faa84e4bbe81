package perftool

import (
	"perfsim/rb"
	"perfsim/uapi"
)

// HeadTailReader is simpleperf's reader of a forward ring, as Yabin Cui's
// report of 1b038c6e05ff describes the reader that broke: it keeps no
// position of its own. Each read takes data_head and data_tail, masked, as
// the end and the start of what is readable, copies that, gives it back
// (data_tail += the bytes copied) and splits the copy into records.
//
// It trusts that data_tail <= data_head. When data_head has gone backwards
// below a tail the reader already advanced (the old perf_output_put_handle),
// "read_head > write_head" reads as a wrap: it copies nearly a whole buffer
// of stale bytes, and sets data_tail past the kernel's head.
type HeadTailReader struct {
	buf  *rb.Buffer
	mask uint64
	// Tracer, when set, receives what the reader saw (not part of the tool).
	Tracer rb.Tracer
	// Aborted is the CHECK that failed while splitting a copy into records
	// (simpleperf aborts there), or "".
	Aborted string
}

// NewHeadTailReader maps rb read-write for a HeadTailReader (it fails for a
// buffer without data pages).
func NewHeadTailReader(buf *rb.Buffer) (*HeadTailReader, error) {
	if buf == nil || buf.NrPages() == 0 || buf.Overwrite() {
		return nil, uapi.EINVAL
	}
	return &HeadTailReader{buf: buf, mask: buf.Mask()}, nil
}

// Head loads data_head (what the reader spins on).
func (r *HeadTailReader) Head() uint64 { return r.buf.User.DataHead }

// Read copies what data_head and data_tail say is readable, gives it back,
// and returns the records it splits the copy into. It returns nil (and sets
// Aborted) at a header of size 0 or one that runs past the copy.
// system/extras/simpleperf/event_fd.cpp: EventFd::GetAvailableMmapData(),
// EventFd::DiscardMmapData(); record.cpp: ReadRecordsFromBuffer()
func (r *HeadTailReader) Read(s rb.Stepper) [][]byte {
	if r.Aborted != "" {
		return nil
	}
	size := r.mask + 1
	r.buf.UserAccess(rb.FieldDataHead, rb.OpMarkedRead, "GetAvailableMmapData") // simpleperf event_fd.cpp: EventFd::GetAvailableMmapData(): mmap_metadata_page_->data_head, then __sync_synchronize()
	head := r.buf.User.DataHead                                                 // mmap_metadata_page_->data_head
	if r.Tracer != nil {
		r.Tracer(rb.TraceEvent{Kind: rb.TraceReadPass})
		r.Tracer(rb.TraceEvent{Kind: rb.TraceReadHead, Value: head})
	}
	rb.StepAt(s, "ring_buffer_read_head:loaded")
	markReaderCaller(s)                                                         // footprint_record.go
	r.buf.UserAccess(rb.FieldDataTail, rb.OpMarkedRead, "GetAvailableMmapData") // simpleperf event_fd.cpp: EventFd::GetAvailableMmapData(): mmap_metadata_page_->data_tail
	tail := r.buf.User.DataTail                                                 // mmap_metadata_page_->data_tail
	writeHead, readHead := head&r.mask, tail&r.mask
	if readHead == writeHead {
		return nil // no available data
	}
	n := writeHead - readHead
	if readHead > writeHead {
		n = size - readHead + writeHead // the data wraps (or so it reads)
	}
	r.buf.UserAccess(rb.FieldDataPages, rb.OpMarkedRead, "GetAvailableMmapData") // simpleperf event_fd.cpp: EventFd::GetAvailableMmapData(): the copy out of the data pages
	buf := r.buf.CopyAt(make([]byte, n), tail)
	r.buf.UserAccess(rb.FieldDataTail, rb.OpMarkedWrite, "DiscardMmapData") // simpleperf event_fd.cpp: EventFd::DiscardMmapData(): mmap_metadata_page_->data_tail += discard_size
	r.buf.User.DataTail = tail + n                                          // DiscardMmapData(read_bytes)

	var out [][]byte
	for p := uint64(0); p < n; {
		var rec []byte
		hdr, ok := rb.ParseHeader(buf[p:])
		switch {
		case !ok || hdr.Size == 0:
			r.Aborted = "Check failed: 0u != header.size"
			rec = buf[p:min(p+rb.HeaderSize, n)]
		case p+uint64(hdr.Size) > n:
			r.Aborted = "Check failed: p + header.size <= end"
			rec = buf[p:]
		default:
			rec = buf[p : p+uint64(hdr.Size)]
		}
		rec = rec[:len(rec):len(rec)] // the copy is the reader's: nothing writes it again
		if r.Tracer != nil {
			r.Tracer(rb.TraceEvent{Kind: rb.TraceRead, Pos: tail + p, Size: len(rec), Rec: rec})
		}
		if r.Aborted != "" {
			return out
		}
		out = append(out, rec)
		p += uint64(hdr.Size)
	}
	return out
}
