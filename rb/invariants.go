package rb

import (
	"bytes"
	"fmt"

	"perfsim/uapi"
)

// Invariant is a property the trace of a run must have. Invariants observe the log
// (TraceEvent) of writers and readers; they do not live inside the model.
type Invariant struct {
	Name string
	Says string // the statement, one line
	Why  string // the reason it must hold, one line
}

// The invariants Check knows.
var Invariants = []Invariant{
	{"record-accounted-once", "every record written is read, overwritten (overwrite mode) or counted lost, exactly once",
		"perf report's totals and PERF_RECORD_LOST are only right if nothing is dropped silently or seen twice"},
	{"read-record-was-written", "a reader never returns a record that was not written as such",
		"a torn record parses as garbage: wrong pids, wrong callchains (seed 002, back-to-back read)"},
	{"data-head-monotonic", "data_head never moves backwards for a forward buffer (never forwards for a backward one)",
		"a reader computes head - tail; a stale head makes it re-read or skip (1b038c6e05ff)"},
	{"no-early-visibility", "no record is visible (below data_head) before its writer finished it",
		"only the outermost writer publishes, after every nested writer is done (perf_output_put_handle)"},
	{"header-size-valid", "header.size of every record is its length, a multiple of 8 and at most 65535",
		"readers step by header.size; the kernel WARNs on size & 7 (perf_prepare_header) and size is a u16"},
	{"lost-conserved", "records counted lost are exactly those reported by PERF_RECORD_LOST plus rb->lost still pending",
		"__perf_output_begin moves rb->lost into the next LOST record with local_xchg"},
	{"record-fits-reservation", "every writer writes exactly the bytes it reserved",
		"__output_copy() does not check the reservation: a longer record writes over the next one (or over unread data), a shorter one leaves stale ring bytes inside the record"},
	{"read-order", "a forward reader returns records in write order; an overwrite pass returns them newest first",
		"overwrite_rb_find_range relies on walking a backward buffer from head; a wrap under the reader breaks it"},
}

// Violation is an invariant that did not hold, with what showed it.
type Violation struct {
	Invariant string
	Detail    string
	// At is the index in the log of the event that showed the violation, or
	// -1 when it was judged at the end (a count that does not add up).
	At int
}

func (v Violation) String() string { return v.Invariant + ": " + v.Detail }

// Final is the state at the end of a run that Check needs besides the log.
type Final struct {
	DataSize  uint64
	Backward  bool   // written with write_backward
	Overwrite bool   // rb->overwrite
	Head      uint64 // rb->head at the end
	Lost      uint64 // rb->lost at the end
	// Drained says that a reader read everything it could at the end, so a record
	// neither read nor overwritten was missed.
	Drained bool
	// Quiet says that the run ended with every task exited, so no syscall
	// was cut off halfway (an munmap between the unmap and the free).
	Quiet bool
}

type commit struct {
	pos   uint64
	rec   []byte
	seq   int // reservation order (x2, +1 for the record after a LOST in the same reservation)
	reads int
}

type reservation struct {
	pos  uint64
	size int
	seq  int
}

// Check runs every invariant over log and returns the violations (at most a few per
// invariant, so a broken run stays readable).
func Check(log []TraceEvent, f Final) []Violation {
	var out []Violation
	count := map[string]int{}
	at := -1 // the log index being judged (Violation.At)
	bad := func(name, format string, args ...any) {
		count[name]++
		if count[name] <= 3 {
			out = append(out, Violation{name, fmt.Sprintf(format, args...), at})
		}
	}

	var commits []*commit
	byPos := map[uint64][]int{}
	var inflight []reservation // reserved, not yet completely committed
	nres := 0
	var lostCounted, lostReported uint64
	var lastHead uint64
	haveHead := false
	lastRead := -1 // seq of the record the reader returned last in this pass

	for idx, e := range log {
		at = idx
		switch e.Kind {
		case TraceReserve:
			inflight = append(inflight, reservation{e.Pos, e.Size, nres})
			nres++
		case TraceCommit:
			// A reservation holding a LOST record is committed in two pieces.
			seq := -1
			for j, r := range inflight {
				if e.Pos-r.pos < uint64(r.size) {
					seq = 2 * r.seq
					if e.Pos != r.pos {
						seq++
					}
					if e.Pos+uint64(len(e.Rec)) == r.pos+uint64(r.size) {
						inflight = append(inflight[:j], inflight[j+1:]...)
					}
					break
				}
			}
			hdr, ok := ParseHeader(e.Rec)
			if !ok || int(hdr.Size) != len(e.Rec) || len(e.Rec)%8 != 0 || len(e.Rec) > MaxRecordSize {
				bad("header-size-valid", "record at %#x: %d bytes, header %+v", e.Pos, len(e.Rec), hdr)
			}
			if ok && hdr.Type == uapi.PERF_RECORD_LOST && len(e.Rec) >= 24 {
				lostReported += leU64(e.Rec[16:])
			}
			commits = append(commits, &commit{pos: e.Pos, rec: e.Rec, seq: seq})
			byPos[e.Pos] = append(byPos[e.Pos], len(commits)-1)
		case TraceMisfit:
			bad("record-fits-reservation", "the record at %#x reserved %d bytes and its writer wrote %d", e.Pos, e.Size, e.Value)
		case TraceLost:
			if e.Counted {
				lostCounted++
			}
		case TraceDataHead:
			if haveHead {
				d := int64(e.Value - lastHead)
				if (!f.Backward && d < 0) || (f.Backward && d > 0) {
					bad("data-head-monotonic", "data_head %#x after %#x", e.Value, lastHead)
				}
			}
			lastHead, haveHead = e.Value, true
		case TraceReadHead:
			for _, r := range inflight {
				visible := int64(e.Value-(r.pos+uint64(r.size))) >= 0
				if f.Backward {
					visible = int64(r.pos-e.Value) >= 0
				}
				if visible {
					bad("no-early-visibility", "reader saw data_head %#x over the unfinished record at %#x", e.Value, r.pos)
				}
			}
		case TraceReadPass:
			lastRead = -1
		case TraceRead:
			i := matchCommit(commits, byPos, e, f.DataSize)
			if i < 0 {
				bad("read-record-was-written", "record read at %#x (%d bytes) matches nothing written: % x", e.Pos, len(e.Rec), head16(e.Rec))
				continue
			}
			commits[i].reads++
			if commits[i].reads == 2 {
				bad("record-accounted-once", "record written at %#x read twice", commits[i].pos)
			}
			seq := commits[i].seq
			if lastRead >= 0 {
				newestFirst := f.Overwrite && f.Backward
				// Newest first goes down by reservation, but a LOST record and the record
				// it was reserved with stay in address order.
				inOrder := seq > lastRead
				if newestFirst {
					inOrder = seq/2 < lastRead/2 || (seq/2 == lastRead/2 && seq > lastRead)
				}
				if !inOrder {
					bad("read-order", "record of reservation %d (at %#x) read after reservation %d", seq/2, commits[i].pos, lastRead/2)
				}
			}
			lastRead = seq
		}
	}
	at = -1
	if f.Drained {
		for _, c := range commits {
			if c.reads == 0 && !(f.Overwrite && overwritten(c, f)) {
				bad("record-accounted-once", "record written at %#x (%d bytes) never read nor overwritten", c.pos, len(c.rec))
			}
		}
	}
	if lostCounted != lostReported+f.Lost {
		bad("lost-conserved", "%d counted lost, %d reported by PERF_RECORD_LOST, %d pending", lostCounted, lostReported, f.Lost)
	}
	auxCheck(log, f, bad, &at) // the AUX area's (aux_invariants.go)
	return out
}

// matchCommit finds the commit a read returned: the one at that position with those
// bytes, else (a reader that lost its place after a wrap) one with the same bytes at
// the same place in the ring. -1 when the bytes were never written as one record.
func matchCommit(commits []*commit, byPos map[uint64][]int, e TraceEvent, dataSize uint64) int {
	for _, i := range byPos[e.Pos] {
		if bytes.Equal(commits[i].rec, e.Rec) {
			return i
		}
	}
	for i := len(commits) - 1; i >= 0; i-- {
		c := commits[i]
		if (c.pos-e.Pos)%dataSize == 0 && bytes.Equal(c.rec, e.Rec) {
			return i
		}
	}
	return -1
}

// overwritten: later records in an overwrite buffer covered some of its bytes.
func overwritten(c *commit, f Final) bool {
	end := c.pos + uint64(len(c.rec))
	if f.Backward {
		return end-f.Head > f.DataSize
	}
	return f.Head-c.pos > f.DataSize
}

func leU64(b []byte) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

func head16(b []byte) []byte {
	if len(b) > 16 {
		return b[:16]
	}
	return b
}
