package rb

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"

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

// commit is a committed record as the checker keeps it until the end: not
// its bytes but their length and recSum, so that a run's checker holds a
// few words per record written, not a copy of everything the ring took.
type commit struct {
	pos   uint64
	sum   uint64 // recSum of the record's bytes
	n     uint32 // its length
	seq   int32  // reservation order (x2, +1 for the record after a LOST in the same reservation)
	reads int32
	prev  int32 // the previous commit at the same position, or -1
}

// same reports whether rec is the committed record's bytes (by length and
// a 64-bit sum: two different records that read as the same are a chance
// of 2^-64 per comparison).
func (c *commit) same(rec []byte, sum uint64) bool { return int(c.n) == len(rec) && c.sum == sum }

// commitList is the commits in order, in chunks of commitChunk (the first
// grown as a slice up to that): a long log neither copies them as it grows
// nor holds twice the room it uses.
type commitList struct {
	chunks [][]commit
	n      int
}

const commitChunkBits = 12
const commitChunk = 1 << commitChunkBits

func (l *commitList) len() int { return l.n }

func (l *commitList) at(i int) *commit {
	return &l.chunks[i>>commitChunkBits][i&(commitChunk-1)]
}

func (l *commitList) add(c commit) {
	k := l.n >> commitChunkBits
	if k == len(l.chunks) {
		n := commitChunk
		if k == 0 {
			n = 64
		}
		l.chunks = append(l.chunks, make([]commit, 0, n))
	}
	l.chunks[k] = append(l.chunks[k], c)
	l.n++
}

// reset empties l, keeping its first chunk.
func (l *commitList) reset() {
	if len(l.chunks) == 0 {
		return
	}
	l.chunks = append(l.chunks[:0], l.chunks[0][:0])
	clear(l.chunks[1:cap(l.chunks)])
	l.n = 0
}

// posIndex maps a free-running position to the last commit there: an
// open-addressed table of commit indexes (linear probing, at most half
// full) whose keys are the commits' own positions, 4 bytes a slot.
type posIndex struct {
	tab []int32 // commit index + 1; 0: empty
	n   int
}

func (x *posIndex) ready() bool { return x.tab != nil }

func (x *posIndex) init() { x.tab = make([]int32, 64) }

// clear empties x, keeping its table.
func (x *posIndex) clear() {
	clear(x.tab)
	x.n = 0
}

func (x *posIndex) slot(pos uint64) int {
	return int((pos * 0x9e3779b97f4a7c15) >> 32 & uint64(len(x.tab)-1))
}

func (x *posIndex) get(l *commitList, pos uint64) (int, bool) {
	if len(x.tab) == 0 {
		return 0, false
	}
	for s := x.slot(pos); ; s = (s + 1) & (len(x.tab) - 1) {
		v := x.tab[s]
		if v == 0 {
			return 0, false
		}
		if l.at(int(v-1)).pos == pos {
			return int(v - 1), true
		}
	}
}

// put makes commit i the last at pos.
func (x *posIndex) put(l *commitList, pos uint64, i int) {
	if 2*(x.n+1) > len(x.tab) {
		old := x.tab
		x.tab = make([]int32, max(64, 2*len(old)))
		for _, v := range old {
			if v != 0 {
				s := x.slot(l.at(int(v - 1)).pos)
				for x.tab[s] != 0 {
					s = (s + 1) & (len(x.tab) - 1)
				}
				x.tab[s] = v
			}
		}
	}
	for s := x.slot(pos); ; s = (s + 1) & (len(x.tab) - 1) {
		v := x.tab[s]
		if v == 0 {
			x.tab[s] = int32(i + 1)
			x.n++
			return
		}
		if l.at(int(v-1)).pos == pos {
			x.tab[s] = int32(i + 1)
			return
		}
	}
}

// recSum is a 64-bit hash of a record's bytes, a word at a time (each word
// multiplied in and mixed down), deterministic across runs and machines.
func recSum(b []byte) uint64 {
	h := uint64(len(b))*0x9e3779b97f4a7c15 ^ 0xcbf29ce484222325
	i := 0
	for ; i+16 <= len(b); i += 16 { // two words a turn: the same sum, fewer loop tests
		w := b[i : i+16 : i+16]
		h = (h ^ binary.LittleEndian.Uint64(w)) * 0xbf58476d1ce4e5b9
		h ^= h >> 31
		h = (h ^ binary.LittleEndian.Uint64(w[8:])) * 0xbf58476d1ce4e5b9
		h ^= h >> 31
	}
	if i+8 <= len(b) {
		h = (h ^ binary.LittleEndian.Uint64(b[i:i+8])) * 0xbf58476d1ce4e5b9
		h ^= h >> 31
		i += 8
	}
	for _, x := range b[i:] {
		h = (h ^ uint64(x)) * 0x94d049bb133111eb
		h ^= h >> 29
	}
	return h ^ h>>32
}

type reservation struct {
	pos  uint64
	size int
	seq  int
}

// Check runs every invariant over log and returns the violations (at most a few per
// invariant, so a broken run stays readable).
func Check(log []TraceEvent, f Final) []Violation {
	var c Checker
	c.SetMode(f.Backward, f.Overwrite, f.DataSize)
	for _, e := range log {
		c.Add(e)
	}
	return c.Finish(f)
}

// Checker is Check taking the log one event at a time, so a run's log need
// not be kept: the writer/reader invariants are judged as the events come
// (keeping each committed record until the end, for the reads and the
// accounting), and only the AUX events, whose checks take several passes,
// are kept for Finish. Check(log, f) is Add of every event, then Finish(f).
type Checker struct {
	out   []Violation
	count map[string]int
	at    int // the log index being judged (Violation.At)
	n     int // events added

	commits      commitList
	byPos        posIndex      // position -> the last commit there (commit.prev chains the others)
	inflight     []reservation // reserved, not yet completely committed
	nres         int
	lostCounted  uint64
	lostReported uint64
	lastHead     uint64
	haveHead     bool
	lastRead     int  // seq of the record the reader returned last in this pass
	backward     bool // Final.Backward, Final.Overwrite, Final.DataSize (SetMode)
	overwrite    bool
	dataSize     uint64
	// unseenFrom is the first reservation the reader's last load of
	// data_head could not cover (haveReadHead: there was one): the
	// reservations made after it, and from the oldest one still in flight
	// then (a nested writer's commit is published only with the outermost
	// one's). Their records may be left unread by a reader that read all it
	// could: written after its last look.
	unseenFrom   int
	haveReadHead bool

	aux    []TraceEvent // the AUX events (kinds >= TraceAuxWrite), for Finish
	auxIdx []int        // the log index of each
}

func (c *Checker) bad(name, format string, args ...any) {
	if c.count == nil {
		c.count = map[string]int{}
	}
	c.count[name]++
	if c.count[name] <= 3 {
		c.out = append(c.out, Violation{name, fmt.Sprintf(format, args...), c.at})
	}
}

// Reset empties c for another log, keeping the memory of its lists and map
// (a checker per traced buffer per run allocated most of an exploration's
// bytes). The violations Finish returned stay the caller's.
func (c *Checker) Reset() {
	c.commits.reset()
	clear(c.aux)
	c.byPos.clear()
	*c = Checker{commits: c.commits, byPos: c.byPos, inflight: c.inflight[:0],
		aux: c.aux[:0], auxIdx: c.auxIdx[:0], lastRead: -1}
}

// Len is the number of events added.
func (c *Checker) Len() int { return c.n }

// NumViolations is the number of violations found so far as the events came
// (Finish adds those judged at the end).
func (c *Checker) NumViolations() int { return len(c.out) }

// Committed reports whether rec is the record last committed at
// free-running position pos (ok false when none was).
func (c *Checker) Committed(pos uint64, rec []byte) (same, ok bool) {
	i, ok := c.byPos.get(&c.commits, pos)
	if !ok {
		return false, false
	}
	return c.commits.at(i).same(rec, recSum(rec)), true
}

// Add judges the next event of the log.
func (c *Checker) Add(e TraceEvent) {
	idx := c.n
	c.n++
	if e.Kind >= TraceAuxWrite {
		c.aux = append(c.aux, e)
		c.auxIdx = append(c.auxIdx, idx)
		return
	}
	if !c.byPos.ready() {
		c.byPos.init()
		c.lastRead = -1
	}
	c.at = idx
	switch e.Kind {
	case TraceReserve:
		c.inflight = append(c.inflight, reservation{e.Pos, e.Size, c.nres})
		c.nres++
	case TraceCommit:
		// A reservation holding a LOST record is committed in two pieces.
		seq := -1
		for j, r := range c.inflight {
			if e.Pos-r.pos < uint64(r.size) {
				seq = 2 * r.seq
				if e.Pos != r.pos {
					seq++
				}
				if e.Pos+uint64(len(e.Rec)) == r.pos+uint64(r.size) {
					c.inflight = append(c.inflight[:j], c.inflight[j+1:]...)
				}
				break
			}
		}
		hdr, ok := ParseHeader(e.Rec)
		if !ok || int(hdr.Size) != len(e.Rec) || len(e.Rec)%8 != 0 || len(e.Rec) > MaxRecordSize {
			c.bad("header-size-valid", "record at %#x: %d bytes, header %+v", e.Pos, len(e.Rec), hdr)
		}
		if ok && hdr.Type == uapi.PERF_RECORD_LOST && len(e.Rec) >= 24 {
			c.lostReported += leU64(e.Rec[16:])
		}
		prev, ok := c.byPos.get(&c.commits, e.Pos)
		if !ok {
			prev = -1
		}
		c.commits.add(commit{pos: e.Pos, sum: recSum(e.Rec), n: uint32(len(e.Rec)), seq: int32(seq), prev: int32(prev)})
		c.byPos.put(&c.commits, e.Pos, c.commits.len()-1)
	case TraceMisfit:
		c.bad("record-fits-reservation", "the record at %#x reserved %d bytes and its writer wrote %d", e.Pos, e.Size, e.Value)
	case TraceLost:
		if e.Counted {
			c.lostCounted++
		}
	default:
		c.addFinal(e)
	}
}

// SetMode gives the Final fields the checks of data_head and of the reads
// need as the events come (fixed when the buffer is allocated: the direction
// it is written in, rb->overwrite and its data size). Call it before Add.
func (c *Checker) SetMode(backward, overwrite bool, dataSize uint64) {
	c.backward, c.overwrite, c.dataSize = backward, overwrite, dataSize
}

func (c *Checker) addFinal(e TraceEvent) {
	switch e.Kind {
	case TraceDataHead:
		if c.haveHead {
			d := int64(e.Value - c.lastHead)
			if (!c.backward && d < 0) || (c.backward && d > 0) {
				c.bad("data-head-monotonic", "data_head %#x after %#x", e.Value, c.lastHead)
			}
		}
		c.lastHead, c.haveHead = e.Value, true
	case TraceReadHead:
		c.unseenFrom, c.haveReadHead = c.nres, true
		for _, r := range c.inflight {
			c.unseenFrom = min(c.unseenFrom, r.seq)
			visible := int64(e.Value-(r.pos+uint64(r.size))) >= 0
			if c.backward {
				visible = int64(r.pos-e.Value) >= 0
			}
			if visible {
				c.bad("no-early-visibility", "reader saw data_head %#x over the unfinished record at %#x", e.Value, r.pos)
			}
		}
	case TraceReadPass:
		c.lastRead = -1
	case TraceRead:
		i := matchCommit(&c.commits, &c.byPos, e, c.dataSize)
		if i < 0 {
			c.bad("read-record-was-written", "record read at %#x (%d bytes) matches nothing written: % x", e.Pos, len(e.Rec), head16(e.Rec))
			return
		}
		cm := c.commits.at(i)
		cm.reads++
		if cm.reads == 2 {
			c.bad("record-accounted-once", "record written at %#x read twice", cm.pos)
		}
		seq := int(cm.seq)
		if c.lastRead >= 0 {
			newestFirst := c.overwrite && c.backward
			// Newest first goes down by reservation, but a LOST record and the record
			// it was reserved with stay in address order.
			inOrder := seq > c.lastRead
			if newestFirst {
				inOrder = seq/2 < c.lastRead/2 || (seq/2 == c.lastRead/2 && seq > c.lastRead)
			}
			if !inOrder {
				c.bad("read-order", "record of reservation %d (at %#x) read after reservation %d", seq/2, cm.pos, c.lastRead/2)
			}
		}
		c.lastRead = seq
	}
}

// unseen: cm's reservation came after the reader's last load of data_head
// could show it (unseenFrom), so a drained reader never had it to read: the
// records a workload writes as it dies of the SIGTERM perf record sends it
// after its last read (tools/perf/builtin-record.c: __cmd_record():
// record__mmap_read_all(rec, true) before "kill(rec->evlist->workload.pid,
// SIGTERM)").
func (c *Checker) unseen(cm *commit) bool {
	return c.haveReadHead && cm.seq >= 0 && int(cm.seq)/2 >= c.unseenFrom
}

// Finish runs the end-of-run checks with f (whose Backward, Overwrite and
// DataSize must be those given to SetMode) and returns every violation.
func (c *Checker) Finish(f Final) []Violation {
	// Finish leaves c as it was, so it may be called again (with other flags).
	out, count := c.out, maps.Clone(c.count)
	defer func() { c.out, c.count = out, count }()
	c.out = slices.Clip(c.out)
	c.at = -1
	if f.Drained {
		for i := range c.commits.len() {
			if cm := c.commits.at(i); cm.reads == 0 && !(f.Overwrite && overwritten(cm, f)) && !c.unseen(cm) {
				c.bad("record-accounted-once", "record written at %#x (%d bytes) never read nor overwritten", cm.pos, cm.n)
			}
		}
	}
	if c.lostCounted != c.lostReported+f.Lost {
		c.bad("lost-conserved", "%d counted lost, %d reported by PERF_RECORD_LOST, %d pending", c.lostCounted, c.lostReported, f.Lost)
	}
	// The AUX area's (aux_invariants.go), over the AUX events alone: their
	// indexes are mapped back to the whole log's.
	at := -1
	auxCheck(c.aux, f, func(name, format string, args ...any) {
		c.at = -1
		if at >= 0 {
			c.at = c.auxIdx[at]
		}
		c.bad(name, format, args...)
	}, &at)
	return c.out
}

// matchCommit finds the commit a read returned: the one at that position with those
// bytes, else (a reader that lost its place after a wrap) one with the same bytes at
// the same place in the ring. -1 when the bytes were never written as one record.
func matchCommit(commits *commitList, byPos *posIndex, e TraceEvent, dataSize uint64) int {
	// The first commit at that position with those bytes: walk the chain from
	// the last one, keeping the earliest match.
	match := -1
	sum := recSum(e.Rec)
	if i, ok := byPos.get(commits, e.Pos); ok {
		for ; i >= 0; i = int(commits.at(i).prev) {
			if commits.at(i).same(e.Rec, sum) {
				match = i
			}
		}
	}
	if match >= 0 {
		return match
	}
	for i := commits.len() - 1; i >= 0; i-- {
		c := commits.at(i)
		if (c.pos-e.Pos)%dataSize == 0 && c.same(e.Rec, sum) {
			return i
		}
	}
	return -1
}

// overwritten: later records in an overwrite buffer covered some of its bytes.
func overwritten(c *commit, f Final) bool {
	end := c.pos + uint64(c.n)
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
