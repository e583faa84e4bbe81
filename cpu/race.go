package cpu

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"perfsim/sim"
)

// RaceDetector is the data-race oracle's engine, as KCSAN reports races: two
// accesses to one field of one object, from different CPUs, at least one a
// write, at least one plain (not READ_ONCE/WRITE_ONCE/atomic), neither
// data_race(), that are concurrent.
//
// "Concurrent" (the issue's "with no lock in common and overlapping in the
// schedule") is judged with happens-before, not with KCSAN's watchpoints:
// KCSAN sees a race only when its delay happens to make the two accesses
// overlap in time on the machine it runs on; here two accesses are
// concurrent when no chain of synchronisation orders them: neither a lock
// released by one side and later taken by the other, nor a message (an IPI,
// an irq_work queued on another CPU, a wake-up, a task switched out on one
// CPU and in on another, task_work added and run, the completion an IPI's
// sender waits for). Such a pair can overlap in time in some execution of
// the same program (another timing of the same schedule), so every report
// is a real unordered conflicting pair, and one that KCSAN would report
// whenever the timing makes them overlap. Accesses of one CPU never race
// each other, its interrupt handlers included: the kernel's default,
// CONFIG_KCSAN_INTERRUPT_WATCHER=n (an irq or NMI handler is ordered with
// the code it interrupts). local_irq_save() orders nothing across CPUs and
// is no edge here.
//
// Vector clocks (DJIT+): each CPU has a clock; a release joins the CPU's
// clock into the sync object's and ticks the CPU; an acquire joins the sync
// object's into the CPU's. An access at epoch e of CPU j happens before the
// code of CPU i iff i's clock has reached e in j's component.
//
// kernel/kcsan/core.c, kernel/kcsan/report.c ("BUG: KCSAN: data-race in A / B")
type RaceDetector struct {
	m   *Machine
	vc  [][]uint32
	gen uint64 // this detector's number (SyncClock)
	*raceState
	seen map[string]bool

	// Report is told each race, once per field, pair of functions and pair
	// of operations in a run.
	Report func(r Race)
	// Name names an object for a report ("event 3"); nil: its type.
	Name func(obj any) string
	// ShadowOf returns the Shadow an annotated object embeds, or nil (nil:
	// none has one); the same object must always give the same answer.
	ShadowOf func(obj any) *Shadow
	// TaskOf names the task a thread runs (nil: the thread's name), when a
	// race is reported; SyscallOf says its system call at the access.
	TaskOf    func(th *Thread) string
	SyscallOf func(th *Thread) string

	// Reports counts the races reported.
	Reports int
}

// raceState is a run's clocks and shadow, kept in a few flat slices that
// hold no pointers where the checks look (the collector neither scans nor
// clears them object by object), and handed to the next run's detector
// when the machine closes (racePool): a run reuses the last one's memory
// instead of allocating its own.
type raceState struct {
	// sync maps a sync object to its vector clock, clocks[i:i+ncpu].
	sync   map[any]int32
	clocks []uint32
	// shadow maps an (object, field) to its cell, cells[i:i+4*ncpu]: per
	// CPU, the field's last access of each class (accessClass: read or
	// write, marked or plain; data_race() accesses are not kept). A pair
	// races iff the later access and the last access of the earlier's class
	// on the other CPU do, as a CPU's later accesses are ordered after fewer
	// things.
	// Objects with a Shadow (race_shadow.go) keep their cells' places
	// themselves; this map holds the others'.
	shadow map[shadowKey]int32
	cells  []shadowSlot
	// recs holds what a report says of the accesses the cells keep, one
	// per (cell, CPU, class) ever filled: a newer access of the class
	// overwrites its record.
	recs []raceRec
}

// cellOf returns the offset of (obj, field)'s shadow cell, made on first use.
func (s *raceState) cellOf(k shadowKey, ncpu int) int32 {
	i, ok := s.shadow[k]
	if !ok {
		i = grow(&s.cells, 4*ncpu)
		s.shadow[k] = i
	}
	return i
}

// racePool holds the states of closed machines' detectors.
var racePool sync.Pool

// detectors numbers the detectors (RaceDetector.gen).
var detectors atomic.Uint64

// SyncClock is where a sync object released and acquired often (a lock, a
// thread) keeps the place of its vector clock, so that the data-race oracle
// finds it without hashing the object: the object holds one and passes a
// pointer to it as the key to CPU.Release and CPU.Acquire (a *Thread's is
// its own). The place is checked against the detector and the SyncClock's
// own address: one filled in by another run's detector, or a copy of the
// object, has no clock yet. The zero value is empty.
type SyncClock struct {
	gen  uint64     // the detector whose clock i is (0: none)
	self *SyncClock // where it was filled in
	i    int32
	// last is the CPU (plus one) whose release last made the clock equal
	// to that CPU's own clock, no other CPU's component above it (0: none
	// did). That CPU's clock, which only grows, holds it still: its next
	// acquire has nothing to join (FastTrack's lock taken again by the
	// thread that released it).
	last int32
	// key is the sync object's stable name for partial-order reduction
	// (SetKey, FootprintKey); the detector leaves it alone.
	key syncKey
}

type shadowKey struct {
	obj   any
	field string
}

// shadowSlot is one access a shadow cell keeps: its epoch (0: none) and its
// record in raceState.recs. The class (the slot's place in the cell) says
// whether it read or wrote and whether it was marked: all the check needs.
type shadowSlot struct {
	epoch uint32
	rec   int32
}

// syncHint and shadowHint are the most sync objects and shadow cells a run
// has made so far in this process (at most maxHint): a new state's maps
// start that large.
var syncHint, shadowHint atomic.Int64

const maxHint = 1 << 12

// noteSizes raises the hints to this run's sizes.
func (d *RaceDetector) noteSizes() {
	raise := func(h *atomic.Int64, n int) {
		n = min(n, maxHint)
		for {
			old := h.Load()
			if int64(n) <= old || h.CompareAndSwap(old, int64(n)) {
				return
			}
		}
	}
	raise(&syncHint, len(d.sync))
	raise(&shadowHint, len(d.shadow))
}

// getRaceState returns an empty state: a closed run's, or a new one.
func getRaceState() *raceState {
	if s, ok := racePool.Get().(*raceState); ok {
		return s
	}
	// Sized for what the largest run so far needed: a run that grows its
	// maps from empty spends most of its oracle time rehashing them.
	return &raceState{sync: make(map[any]int32, syncHint.Load()), shadow: make(map[shadowKey]int32, shadowHint.Load())}
}

// close hands the detector's state to the next run's (the machine is
// closed: no code runs on it any more).
func (d *RaceDetector) close() {
	s := d.raceState
	if s == nil {
		return
	}
	d.noteSizes()
	d.raceState = nil
	if len(s.sync) > maxHint || len(s.shadow) > maxHint {
		return // an outsized run's maps would cost every later run their clearing
	}
	clear(s.sync)
	clear(s.shadow)
	clear(s.recs) // drop the run's threads
	s.clocks, s.cells, s.recs = s.clocks[:0], s.cells[:0], s.recs[:0]
	racePool.Put(s)
}

// grow extends *v by n zero elements and returns the offset of the first.
func grow[T any](v *[]T, n int) int32 {
	i := len(*v)
	*v = slices.Grow(*v, n)[:i+n]
	clear((*v)[i:])
	return int32(i)
}

func accessClass(op AccessOp) int {
	c := 0
	if op.IsWrite() {
		c = 2
	}
	if op.IsMarked() {
		c++
	}
	return c
}

// classWrites and classMarked say what accessClass's classes are.
func classWrites(cl int) bool { return cl >= 2 }
func classMarked(cl int) bool { return cl&1 != 0 }

// raceRec is one access: where it ran, nothing formatted, for a report.
type raceRec struct {
	fn   string
	sys  string
	step string
	th   *Thread
	t    sim.Time
	cpu  int32
	op   AccessOp
	ctx  Context
}

// NewRaceDetector installs a detector on m: it listens to m's footprints
// and to the happens-before edges the model declares (CPU.Release,
// CPU.Acquire, interrupts raised from another CPU, thread switches).
func NewRaceDetector(m *Machine) *RaceDetector {
	d := &RaceDetector{m: m, raceState: getRaceState(), gen: detectors.Add(1)}
	n := len(m.CPUs)
	d.vc = make([][]uint32, n)
	clocks := make([]uint32, n*n) // one allocation for every CPU's clock
	for i := range d.vc {
		d.vc[i] = clocks[i*n : (i+1)*n : (i+1)*n]
		d.vc[i][i] = 1
	}
	m.hb = d // CPU.Access calls d.access
	return d
}

// Release says that what the code on c did so far happens before whatever
// acquires key next (an unlock, a wake-up, a message sent). Free when no
// detector is installed.
func (c *CPU) Release(key any) {
	if c != nil {
		c.m.touch(key, "sync", true)
	}
	if c != nil && c.m.hb != nil {
		c.m.hb.release(c.m.running(c), key)
	}
}

// Acquire says that the code on c from now on happens after every Release
// of key so far (a lock taken, a message received).
func (c *CPU) Acquire(key any) {
	if c != nil {
		c.m.touch(key, "sync", true)
	}
	if c != nil && c.m.hb != nil {
		c.m.hb.acquire(c.m.running(c), key)
	}
}

// running is the CPU whose code runs now: the engine's running lane (code
// handed another CPU's *CPU still runs where it runs), else c.
func (m *Machine) running(c *CPU) *CPU {
	if l := m.Eng.Running(); l != nil && l.ID < len(m.CPUs) {
		return m.CPUs[l.ID]
	}
	return c
}

// ipiKey is the mailbox of CPU n's interrupts: raising an interrupt on n from
// another CPU releases into it, and every handler n runs acquires it (the
// IPI's and the irq_work's ordering: smp_call_function_single()'s csd,
// irq_work_queue_on(), an hrtimer armed from another CPU).
// Each CPU has one (CPU.ipi), which carries its clock's place, so a
// handler's acquire finds it without hashing a key.
type ipiKey struct {
	cpu int
	hb  SyncClock
}

// post is a release into target's interrupt mailbox by the running CPU, if
// it is another one.
func (m *Machine) post(target *CPU) {
	if m.seg != nil {
		if l := m.Eng.Running(); l != nil && l.ID == target.ID {
			m.touch(target, "pending", true) // what target's next step point looks at
		} else {
			m.touch("machine", "posts", true) // another lane may be due now: contention every fragment reads
		}
	}
	if m.hb == nil {
		return
	}
	if s := m.running(nil); s != nil && s != target {
		m.hb.release(s, &target.ipi)
	}
}

func (d *RaceDetector) release(c *CPU, key any) {
	if c == nil || d.raceState == nil {
		return
	}
	v := d.vc[c.ID]
	s := syncClockOf(key)
	i, ok := d.clockOf(s, key)
	if !ok {
		i = grow(&d.clocks, len(v))
		if s != nil {
			*s = SyncClock{gen: d.gen, self: s, i: i, key: s.key}
		} else {
			d.sync[key] = i
		}
	}
	mine := join(d.clocks[i:int(i)+len(v)], v)
	if s != nil {
		s.last = 0
		if mine {
			s.last = int32(c.ID) + 1
		}
	}
	v[c.ID]++
}

func (d *RaceDetector) acquire(c *CPU, key any) {
	if c == nil || d.raceState == nil {
		return
	}
	s := syncClockOf(key)
	if i, ok := d.clockOf(s, key); ok {
		if s != nil && s.last == int32(c.ID)+1 {
			return // c released it last, and its clock holds all of it
		}
		v := d.vc[c.ID]
		join(v, d.clocks[i:int(i)+len(v)])
	}
}

// clockOf returns the offset of key's clock, if it has one (s is key's
// SyncClock, nil for none). A key that
// carries a SyncClock keeps its clock's place there and nowhere else: a
// SyncClock filled in by another detector or at another address (a copy)
// has no clock in this run, so it hashes nothing, found or not.
func (d *RaceDetector) clockOf(s *SyncClock, key any) (int32, bool) {
	if s != nil {
		return s.i, s.gen == d.gen && s.self == s
	}
	i, ok := d.sync[key]
	return i, ok
}

// syncClockOf returns the SyncClock key carries, or nil.
func syncClockOf(key any) *SyncClock {
	switch k := key.(type) {
	case *SyncClock:
		return k
	case *Thread:
		return &k.hb
	case *ipiKey:
		return &k.hb
	}
	return nil
}

// join makes dst the component-wise maximum of dst and src, and reports
// whether it now equals src (src held all of dst).
func join(dst, src []uint32) bool {
	all := true
	for i, x := range src {
		if x > dst[i] {
			dst[i] = x
		} else if x < dst[i] {
			all = false
		}
	}
	return all
}

func (d *RaceDetector) access(c *CPU, f Footprint) {
	cl := opClass[f.Op]
	if cl < 0 || d.raceState == nil {
		return // data_race(): KCSAN does not look
	}
	c = d.m.running(c)
	n := len(d.vc)
	i := d.cellFor(f, n)
	cell := d.cells[i : int(i)+4*n]
	now := d.vc[c.ID]
	// The access's record goes in its own slot first: the checks read only
	// other CPUs' slots.
	p := &cell[4*c.ID+int(cl)]
	if p.epoch == 0 {
		p.rec = int32(len(d.recs))
		d.recs = append(d.recs, raceRec{})
	}
	r := &d.recs[p.rec]
	d.record(r, c, f)
	races := racesWith[cl]
	for j := range n {
		if j == c.ID {
			continue
		}
		q := cell[4*j : 4*j+4]
		if q[0].epoch|q[1].epoch|q[2].epoch|q[3].epoch == 0 {
			continue // j never touched the field
		}
		for ocl := range 4 {
			if races&(1<<ocl) == 0 || q[ocl].epoch == 0 {
				continue
			}
			if q[ocl].epoch <= now[j] {
				continue // ordered: it happens before the code c runs now
			}
			d.conflict(f, &d.recs[q[ocl].rec], r)
		}
	}
	p.epoch = now[c.ID]
}

// opClass is each AccessOp's accessClass, -1 for data_race().
var opClass = func() (t [numAccessOps]int8) {
	for op := range t {
		t[op] = int8(accessClass(AccessOp(op)))
		if AccessOp(op).IsIntended() {
			t[op] = -1
		}
	}
	return t
}()

// racesWith is, per class, the set of classes (bit cl) whose accesses on
// another CPU it races with when concurrent: at least one writes, and not
// both are marked.
var racesWith = func() (t [4]uint8) {
	for a := range 4 {
		for b := range 4 {
			if (classWrites(a) || classWrites(b)) && !(classMarked(a) && classMarked(b)) {
				t[a] |= 1 << b
			}
		}
	}
	return t
}()

// record fills r with f, running on c now, for a report.
func (d *RaceDetector) record(r *raceRec, c *CPU, f Footprint) {
	*r = raceRec{cpu: int32(c.ID), op: f.Op, fn: f.Func, ctx: c.Context(), th: c.curr, step: c.lastStep, t: c.Now()}
	if d.SyscallOf != nil && r.th != nil && r.ctx == CtxTask {
		r.sys = d.SyscallOf(r.th)
	}
}

// conflict reports a and b, concurrent (access() already left out what
// KCSAN allows: data_race() accesses and marked pairs).
func (d *RaceDetector) conflict(f Footprint, a, b *raceRec) {
	fns := []string{a.fn, b.fn}
	slices.Sort(fns) // the title names them in one order, whichever ran first
	key := f.Field + "|" + fns[0] + "|" + fns[1] + "|" + a.op.String() + "|" + b.op.String()
	if d.seen[key] {
		return
	}
	if d.seen == nil {
		d.seen = map[string]bool{}
	}
	d.seen[key] = true
	d.Reports++
	if d.Report == nil {
		return
	}
	obj := fmt.Sprintf("%T", f.Obj)
	if d.Name != nil {
		obj = d.Name(f.Obj)
	}
	d.Report(Race{Field: f.Field, Obj: obj, Funcs: [2]string{fns[0], fns[1]}, First: d.side(*a), Second: d.side(*b)})
}

func (d *RaceDetector) side(r raceRec) RaceAccess {
	a := RaceAccess{Op: r.op, Func: r.fn, CPU: int(r.cpu), Ctx: r.ctx, Syscall: r.sys, Step: r.step, T: r.t}
	if r.th != nil {
		a.Task = r.th.Name
		if d.TaskOf != nil {
			a.Task = d.TaskOf(r.th)
		}
	}
	return a
}

// Race is one report: the field and object, and the two accesses, the
// earlier first.
type Race struct {
	Field         string
	Obj           string
	Funcs         [2]string // sorted: the report's title
	First, Second RaceAccess
}

// RaceAccess is one side of a race: what it did, where, when.
type RaceAccess struct {
	Op      AccessOp
	Func    string
	CPU     int
	Ctx     Context
	Task    string // the task on the CPU ("" for none)
	Syscall string
	Step    string // the last step point the CPU passed
	T       sim.Time
}

func (a RaceAccess) describe(field, obj string) string {
	s := fmt.Sprintf("%s to %s of %s in %s", a.Op, field, obj, a.Func)
	switch {
	case a.Ctx != CtxTask:
		s += fmt.Sprintf(" in %s context", a.Ctx)
	case a.Task != "":
		s += " by task " + a.Task
		if a.Syscall != "" {
			s += " in " + a.Syscall
		}
	}
	s += fmt.Sprintf(" on cpu%d", a.CPU)
	if a.Step != "" {
		s += " after step " + a.Step
	}
	return s + " at " + a.T.String()
}

func (r Race) String() string {
	return fmt.Sprintf("BUG: KCSAN: data-race in %s / %s: %s; %s", r.Funcs[0], r.Funcs[1],
		r.First.describe(r.Field, r.Obj), r.Second.describe(r.Field, r.Obj))
}
