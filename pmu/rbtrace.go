package pmu

import (
	"fmt"
	"slices"
	"sync"

	"perfsim/rb"
	"perfsim/sim"
)

// BufferLog is the log of one ring buffer perf_mmap() allocated while tracing
// was on: what the kernel's writers did (rb.Buffer.Tracer) and what the
// user-space readers that asked for BufferTracer saw, in one order. An
// rb.Checker judges it as it comes (rb.Check's invariants), so the log itself
// is not kept: a run's memory does not grow with the records it writes and
// reads, only with the records its checker keeps. Not part of the kernel.
type BufferLog struct {
	Buf *rb.Buffer
	// Backward: the event that mapped the buffer has attr.write_backward.
	Backward bool
	// Truncated: the log hit its limit, or the logs theirs in all
	// (TraceBuffers, TraceBuffersInAll), and tracing of this buffer stopped,
	// so Check cannot judge it.
	Truncated bool
	// Drained is set by the reader's owner when a reader read everything it
	// could at the end (rb.Final.Drained).
	Drained bool
	// Quiet is set by the run's owner when every task exited (rb.Final.Quiet).
	Quiet bool
	// Name says which event mapped it, for messages.
	Name string
	// HeadBackwards counts the stores of user_page->data_head that went the
	// wrong way (down for a forward buffer, up for a backward one).
	HeadBackwards int

	st       *rbTraceState // the run's, for the limit the logs share
	now      func() sim.Time
	lastHead uint64
	haveHead bool
	chk      *rb.Checker
	// The virtual time of the log events a violation names (rb.Violation.At):
	// those the checker judged as they came, and every AUX event (the
	// checker judges them at the end).
	times    map[int]sim.Time
	auxTimes []sim.Time
	auxIdx   []int
	mem      *logMem // where chk, auxIdx and auxTimes came from
}

type rbTraceState struct {
	on     bool
	limit  int // events each log may take (0: no limit)
	total  int // events the logs may take in all (0: no limit)
	logged int // events the logs took in all
	logs   []*BufferLog
	byBuf  map[*rb.Buffer]*BufferLog
}

// TraceBuffers turns on the ring buffer logs: every buffer allocated from now
// on logs up to limit events (0: no limit); past it the buffer stops logging
// and its log is marked Truncated.
func (k *Kernel) TraceBuffers(limit int) {
	k.rbTrace.on, k.rbTrace.limit = true, limit
	if k.rbTrace.byBuf == nil {
		k.rbTrace.byBuf = map[*rb.Buffer]*BufferLog{}
	}
}

// TraceBuffersInAll bounds the events the logs take together too (0: no
// bound): once they took total, a buffer that logs one more stops logging
// and its log is marked Truncated. What the checkers hold then does not
// grow with the buffers (one per CPU under perf record -a: 64 logs of
// limit events each held 64 times what one did).
func (k *Kernel) TraceBuffersInAll(total int) { k.rbTrace.total = total }

// BufferLogs returns the logs of the traced buffers, in allocation order.
func (k *Kernel) BufferLogs() []*BufferLog { return k.rbTrace.logs }

// BufferLogOf returns the log of buf (nil when it is not traced).
func (k *Kernel) BufferLogOf(buf *rb.Buffer) *BufferLog { return k.rbTrace.byBuf[buf] }

// BufferTracer returns the tracer a reader of buf (perftool.Mmap.Tracer) should
// use so its observations join the buffer's log; nil when buf is not traced.
func (k *Kernel) BufferTracer(buf *rb.Buffer) rb.Tracer {
	l := k.rbTrace.byBuf[buf]
	if l == nil {
		return nil
	}
	return l.add
}

// traceBuffer starts the log of a buffer perf_mmap() just allocated for e.
func (k *Kernel) traceBuffer(buf *rb.Buffer, e *Event) {
	if !k.rbTrace.on {
		return
	}
	l := &BufferLog{Buf: buf, Backward: e.Attr.WriteBackward, st: &k.rbTrace, now: k.M.Now,
		Name: fmt.Sprintf("event %d (cpu %d)", e.id, e.cpu)}
	l.mem = newLogMem()
	l.chk, l.auxIdx, l.auxTimes = l.mem.chk, l.mem.auxIdx, l.mem.auxTimes
	l.chk.SetMode(l.Backward, buf.Overwrite(), buf.DataSize())
	k.rbTrace.logs = append(k.rbTrace.logs, l)
	k.rbTrace.byBuf[buf] = l
	buf.Tracer = l.add
	buf.TraceInPlace = true // the checker hashes each commit and keeps no Rec
}

func (l *BufferLog) add(ev rb.TraceEvent) {
	if ev.Kind == rb.TraceDataHead {
		if l.haveHead {
			d := int64(ev.Value - l.lastHead)
			if (!l.Backward && d < 0) || (l.Backward && d > 0) {
				l.HeadBackwards++
			}
		}
		l.lastHead, l.haveHead = ev.Value, true
	}
	if l.Truncated || l.chk == nil {
		return
	}
	if (l.st.limit > 0 && l.chk.Len() >= l.st.limit) || (l.st.total > 0 && l.st.logged >= l.st.total) {
		l.Truncated = true
		l.chk, l.times, l.auxTimes, l.auxIdx = nil, nil, nil, nil
		l.Buf.Tracer = nil
		return
	}
	l.st.logged++
	if ev.Kind >= rb.TraceAuxWrite {
		l.auxIdx = append(l.auxIdx, l.chk.Len())
		l.auxTimes = append(l.auxTimes, l.now())
		l.chk.Add(ev)
		return
	}
	n := l.chk.NumViolations()
	l.chk.Add(ev)
	if l.chk.NumViolations() > n {
		if l.times == nil {
			l.times = map[int]sim.Time{}
		}
		l.times[l.chk.Len()-1] = l.now()
	}
}

// checkers holds the rb.Checkers of finished runs, reset, for the next run's
// buffers (ReleaseBufferLogs), each with its log's auxIdx and auxTimes
// emptied: a log of an AUX buffer grows them by an element per AUX event,
// which, afresh in every run, was a tenth of an AUX exploration's growslice.
var checkers sync.Pool

// logMem is what checkers holds: a log's memory.
type logMem struct {
	chk      *rb.Checker
	auxIdx   []int
	auxTimes []sim.Time
}

func newLogMem() *logMem {
	if m, ok := checkers.Get().(*logMem); ok {
		return m
	}
	return &logMem{chk: &rb.Checker{}}
}

// ReleaseBufferLogs gives the checkers of k's buffer logs back for the next
// run to reuse, once their Check has been taken: after it the logs judge
// nothing more (Check would find no checker and panic), so only the owner
// of a run that is over calls it. A checker that took a very long log is
// dropped rather than kept.
func (k *Kernel) ReleaseBufferLogs() {
	for _, l := range k.rbTrace.logs {
		if c := l.chk; c != nil {
			l.chk = nil
			if c.Len() <= 1<<16 {
				c.Reset()
				m := l.mem
				m.auxIdx, m.auxTimes = l.auxIdx[:0], l.auxTimes[:0]
				checkers.Put(m)
			}
			l.mem, l.auxIdx, l.auxTimes = nil, nil, nil // the next run's now
		}
	}
}

// TimeOf returns when the violation v of l's Check happened: the time of the
// log event it names, else (judged at the end) ok false.
func (l *BufferLog) TimeOf(v rb.Violation) (t sim.Time, ok bool) {
	if v.At < 0 {
		return 0, false
	}
	if t, ok := l.times[v.At]; ok {
		return t, true
	}
	if i, ok := slices.BinarySearch(l.auxIdx, v.At); ok {
		return l.auxTimes[i], true
	}
	return 0, false
}

// WrittenAt reports whether rec is the record the kernel committed at
// free-running position pos of buf, as the invariant log saw it (ok false
// when buf is not traced, its log was truncated, or nothing was committed
// there).
func (k *Kernel) WrittenAt(buf *rb.Buffer, pos uint64, rec []byte) (same, ok bool) {
	l := k.rbTrace.byBuf[buf]
	if l == nil || l.Truncated || l.chk == nil {
		return false, false
	}
	return l.chk.Committed(pos, rec)
}

// Final is the end-of-run state rb.Check needs.
func (l *BufferLog) Final() rb.Final {
	return rb.Final{DataSize: l.Buf.DataSize(), Backward: l.Backward, Overwrite: l.Buf.Overwrite(),
		Head: l.Buf.Head(), Lost: l.Buf.Lost(), Drained: l.Drained, Quiet: l.Quiet}
}

// Check runs rb.Check over the log (nothing for a truncated log).
func (l *BufferLog) Check() []rb.Violation {
	if l.Truncated {
		return nil
	}
	return l.chk.Finish(l.Final())
}

// BufferTracing reports whether buf's log is still taking events (traced and
// not truncated), so a caller can skip building events nobody keeps.
func (k *Kernel) BufferTracing(buf *rb.Buffer) bool {
	l := k.rbTrace.byBuf[buf]
	return l != nil && !l.Truncated
}

func init() {
	RegisterObservable("rb.data-head-backwards", "stores of data_head that moved it backwards (forward buffers) or forwards (backward ones), in the traced buffers",
		func(k *Kernel) int64 {
			n := 0
			for _, l := range k.rbTrace.logs {
				n += l.HeadBackwards
			}
			return int64(n)
		})
	RegisterObservable("rb.paused", "ring buffers alive now whose rb->paused is set (PAUSE_OUTPUT, or no data pages)",
		func(k *Kernel) int64 {
			n := 0
			for buf := range k.bufs {
				if buf.Paused() {
					n++
				}
			}
			return int64(n)
		})
	RegisterObservable("rb.zero-pages", "ring buffers allocated with no data pages (nr_pages == 0: a mapping of the user page only)",
		func(k *Kernel) int64 {
			n := 0
			for _, l := range k.rbTrace.logs {
				if l.Buf.NrPages() == 0 {
					n++
				}
			}
			return int64(n)
		})
}
