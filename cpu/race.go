package cpu

import (
	"fmt"
	"slices"
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
	m      *Machine
	vc     [][]uint32
	sync   map[any][]uint32
	shadow map[shadowKey][][4]raceRec // per CPU, the field's last access of each class
	seen   map[string]bool
	// The clocks of sync objects and the shadow cells are carved from
	// these slabs, not allocated one by one (a run makes hundreds).
	clockSlab []uint32
	cellSlab  [][4]raceRec

	// Report is told each race, once per field, pair of functions and pair
	// of operations in a run.
	Report func(r Race)
	// Name names an object for a report ("event 3"); nil: its type.
	Name func(obj any) string
	// TaskOf names the task a thread runs (nil: the thread's name), when a
	// race is reported; SyscallOf says its system call at the access.
	TaskOf    func(th *Thread) string
	SyscallOf func(th *Thread) string

	// Reports counts the races reported.
	Reports int
}

type shadowKey struct {
	obj   any
	field string
}

// A shadow cell is, per CPU, a field's last access of each class (read or
// write, marked or plain; data_race() accesses are not kept): a pair races
// iff the later access and the last access of the earlier's class on the
// other CPU do, as a CPU's later accesses are ordered after fewer things.

// syncHint and shadowHint are the most sync objects and shadow cells a run
// has made so far in this process (at most maxHint): the next detector's
// maps start that large.
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

// slabObjects is how many clocks or cells the next slab holds: as many as
// made so far (at least 8, at most 64), so a run that makes few wastes little.
func slabObjects(made int) int { return min(64, max(8, made)) }

// newClock returns a zero vector clock.
func (d *RaceDetector) newClock() []uint32 {
	return carve(&d.clockSlab, len(d.vc), len(d.sync))
}

// newCell returns an empty shadow cell.
func (d *RaceDetector) newCell() [][4]raceRec {
	return carve(&d.cellSlab, len(d.vc), len(d.shadow))
}

// carve cuts n zero elements off *slab, first making a slab of
// slabObjects(made) times n when too little is left.
func carve[T any](slab *[]T, n, made int) []T {
	if len(*slab) < n {
		*slab = make([]T, n*slabObjects(made))
	}
	v := (*slab)[:n:n]
	*slab = (*slab)[n:]
	return v
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

// raceRec is one access: its epoch and where it ran, nothing formatted
// (laid out small: a shadow cell holds four per CPU).
type raceRec struct {
	fn    string
	sys   string
	step  string
	th    *Thread
	t     sim.Time
	epoch uint32 // 0: none
	cpu   int32
	op    AccessOp
	ctx   Context
}

// NewRaceDetector installs a detector on m: it listens to m's footprints
// and to the happens-before edges the model declares (CPU.Release,
// CPU.Acquire, interrupts raised from another CPU, thread switches).
func NewRaceDetector(m *Machine) *RaceDetector {
	// Sized for what the largest run so far needed: a run that grows its
	// maps from empty spends most of its oracle time rehashing them.
	d := &RaceDetector{m: m, sync: make(map[any][]uint32, syncHint.Load()), shadow: make(map[shadowKey][][4]raceRec, shadowHint.Load())}
	n := len(m.CPUs)
	d.vc = make([][]uint32, n)
	clocks := make([]uint32, n*n) // one allocation for every CPU's clock
	for i := range d.vc {
		d.vc[i] = clocks[i*n : (i+1)*n : (i+1)*n]
		d.vc[i][i] = 1
	}
	m.hb = d
	m.OnFootprint(d.access)
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
type ipiKey struct{ cpu int }

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
		m.hb.release(s, ipiKey{target.ID})
	}
}

func (d *RaceDetector) release(c *CPU, key any) {
	if c == nil {
		return
	}
	v := d.vc[c.ID]
	s := d.sync[key]
	if s == nil {
		s = d.newClock()
		d.sync[key] = s
	}
	join(s, v)
	v[c.ID]++
}

func (d *RaceDetector) acquire(c *CPU, key any) {
	if c == nil {
		return
	}
	if s := d.sync[key]; s != nil {
		join(d.vc[c.ID], s)
	}
}

func join(dst, src []uint32) {
	for i, x := range src {
		if x > dst[i] {
			dst[i] = x
		}
	}
}

// ordered reports whether access r is ordered before the code CPU i runs now.
func (d *RaceDetector) ordered(r *raceRec, i int) bool {
	return int(r.cpu) == i || r.epoch <= d.vc[i][r.cpu]
}

func (d *RaceDetector) access(c *CPU, f Footprint) {
	if f.Op.IsIntended() {
		return // data_race(): KCSAN does not look
	}
	c = d.m.running(c)
	k := shadowKey{f.Obj, f.Field}
	last := d.shadow[k]
	if last == nil {
		last = d.newCell()
		d.shadow[k] = last
	}
	r := raceRec{epoch: d.vc[c.ID][c.ID], cpu: int32(c.ID), op: f.Op, fn: f.Func, ctx: c.Context(), th: c.curr, step: c.lastStep, t: c.Now()}
	if d.SyscallOf != nil && r.th != nil && r.ctx == CtxTask {
		r.sys = d.SyscallOf(r.th)
	}
	for j := range last {
		if j == c.ID {
			continue
		}
		for cl := range last[j] {
			p := &last[j][cl]
			if p.epoch == 0 || (!p.op.IsWrite() && !f.Op.IsWrite()) || (p.op.IsMarked() && f.Op.IsMarked()) {
				continue
			}
			if !d.ordered(p, c.ID) {
				d.conflict(f, *p, r)
			}
		}
	}
	last[c.ID][accessClass(f.Op)] = r
}

// conflict reports a and b, concurrent (access() already left out what
// KCSAN allows: data_race() accesses and marked pairs).
func (d *RaceDetector) conflict(f Footprint, a, b raceRec) {
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
	d.Report(Race{Field: f.Field, Obj: obj, Funcs: [2]string{fns[0], fns[1]}, First: d.side(a), Second: d.side(b)})
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
