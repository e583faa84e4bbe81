package sched

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"perfsim/cpu"
	"perfsim/sim"
)

// Lockdep is the lock validator as CONFIG_PROVE_LOCKING runs it, on every
// lock the model takes (mutexes, rw_semaphores, raw spinlocks): each lock has
// a class (the model names a lock after its field, "event->mmap_mutex", so
// every event's mmap_mutex is one class, as lockdep keys a class by the
// lock's init site), and each acquisition with other locks held adds the
// edges held -> new to the dependency graph. It reports, once per pair of
// classes and run:
//   - a circular dependency: the new edge A -> B closes a path B -> ... -> A
//     the run already took, with both chains (who took which lock where);
//   - recursive locking: a second lock of a class already held, not
//     annotated as nested (mutex_lock_nested());
//   - a lock taken in NMI context, where none of these may be taken;
//   - a class taken both in hardirq context and with hardirqs enabled, or a
//     hardirq-safe class whose dependencies reach a hardirq-unsafe one
//     (lockdep_irq.go).
//
// As lockdep does, it works on small integer class ids (struct
// lock_class's index in lock_classes[]), not names: the graph is an
// adjacency bitset plus each class's successors in the order they were
// taken, and nothing is formatted until a report.
//
// kernel/locking/lockdep.c: __lock_acquire(), check_prevs_add(), check_noncircular(), check_deadlock()
type Lockdep struct {
	// Off is CONFIG_PROVE_LOCKING=n: nothing is recorded or reported.
	Off bool
	// Report is told each finding: "circular-dependency", "recursive-locking",
	// "lock-in-nmi", "inconsistent-lock-state" or "irq-safe-unsafe", on the
	// CPU where the offending acquisition ran.
	Report func(c *cpu.CPU, kind, msg string)

	held map[holderKey]*heldStack // the interrupt contexts' (a task's: Task.ldHeld)
	any  bool                     // a stack was made
	// last is the holder of the last acquisition or release, whose stack
	// the next one most often wants.
	lastKey   holderKey
	lastStack *heldStack

	// The dependency graph: bit b of has[a*stride:] says a -> b; edges
	// are the dependencies in the order first taken, cls[a].succ the
	// indexes of a's, in that order (the search walks them so, and a report
	// reads the same in every replay).
	has    []uint64
	stride int
	edges  []depEdge
	cls    []classState
	// fromOrder lists the classes with successors, in the order each got
	// its first.
	fromOrder []ClassID
	// chains holds the acquisitions that set a class's hardirq usage.
	chains []lockChain

	reported map[string]bool

	// The breadth-first searches' generation: visited == stamp marks a class seen.
	stamp uint32
	queue []ClassID
}

// LockClass is a lock class: its name and the nesting subclass
// (SINGLE_DEPTH_NESTING = 1 for the second of two locks of one class taken
// in a fixed order, as mutex_lock_double() does).
type LockClass struct {
	Name     string
	Subclass int
}

func (l LockClass) String() string {
	if l.Subclass == 0 {
		return l.Name
	}
	return fmt.Sprintf("%s/%d", l.Name, l.Subclass)
}

// ClassID is a lock class's small integer id, one per class for the whole
// process (every run and every schedule of an exploration agrees on it), as
// lockdep indexes lock_classes[].
type ClassID int32

// The class table: ids is read without a lock (a copy-on-write map), a new
// class takes mu.
var classTable struct {
	mu      sync.Mutex
	ids     atomic.Pointer[map[LockClass]ClassID]
	classes atomic.Pointer[[]LockClass]
}

// ClassOf returns cl's id, giving it the next one the first time.
// kernel/locking/lockdep.c: register_lock_class()
func ClassOf(cl LockClass) ClassID {
	if m := classTable.ids.Load(); m != nil {
		if id, ok := (*m)[cl]; ok {
			return id
		}
	}
	classTable.mu.Lock()
	defer classTable.mu.Unlock()
	old := classTable.ids.Load()
	if old != nil {
		if id, ok := (*old)[cl]; ok {
			return id
		}
	}
	m := make(map[LockClass]ClassID, len(*classesOf())+1)
	if old != nil {
		for k, v := range *old {
			m[k] = v
		}
	}
	classes := append(slices.Clip(*classesOf()), cl)
	id := ClassID(len(classes) - 1)
	m[cl] = id
	classTable.classes.Store(&classes)
	classTable.ids.Store(&m)
	return id
}

var noClasses []LockClass

// ClassCache remembers ClassOf of one lock's name per subclass, so that an
// acquisition does not hash the name (register_lock_class() finds a lock's
// class through lock->class_cache[subclass], not a hash, after the first
// time). A lock embeds one (Mutex, RWSem), a subsystem keeps one for a
// class of its own (ctx->lock). The zero value is empty; not for
// concurrent use.
// kernel/locking/lockdep.c: look_up_lock_class()
type ClassCache struct {
	name string
	ids  [2]ClassID // per subclass 0 and 1: the id plus one (0: not looked up)
}

// Of returns ClassOf(cl), looking it up once.
func (cc *ClassCache) Of(cl LockClass) ClassID {
	if cc != nil && uint(cl.Subclass) < uint(len(cc.ids)) && sameString(cc.name, cl.Name) {
		if id := cc.ids[cl.Subclass]; id != 0 {
			return id - 1
		}
	}
	return cc.of(cl)
}

// of is Of's slow path: the first look-up of a name and subclass.
func (cc *ClassCache) of(cl LockClass) ClassID {
	if cc == nil || cl.Subclass < 0 || cl.Subclass >= len(cc.ids) {
		return ClassOf(cl)
	}
	if cc.name != cl.Name {
		cc.name, cc.ids = cl.Name, [2]ClassID{}
	}
	if id := cc.ids[cl.Subclass]; id != 0 {
		return id - 1
	}
	id := ClassOf(cl)
	cc.ids[cl.Subclass] = id + 1
	return id
}

// sameString is a == b, deciding without comparing bytes when both are the
// same string (a lock's name is one constant).
func sameString(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

func classesOf() *[]LockClass {
	if p := classTable.classes.Load(); p != nil {
		return p
	}
	return &noClasses
}

// Class returns the class of id.
func (id ClassID) Class() LockClass { return (*classesOf())[id] }

func (id ClassID) String() string { return id.Class().String() }

// heldLock is one held lock; its holder is its stack's.
type heldLock struct {
	class ClassID
	at    lockAt
}

// classState is what the run knows of one class.
type classState struct {
	succ []int32   // the indexes in edges of its dependencies, in order
	pred []ClassID // its predecessors, in fromOrder's order
	rank int32     // its place in fromOrder plus one (0: no successor yet)
	// The hardirq usage (lockdep_irq.go): the index in chains plus one of
	// the first acquisition in hardirq context, and with hardirqs on.
	inHardirq, irqsOn int32
	// The searches' marks.
	visited uint32
	from    ClassID
}

// heldStack is one holder's held locks, innermost last (task->held_locks[]).
type heldStack struct {
	locks []heldLock
	owner *Lockdep
	key   holderKey
	buf   [4]heldLock // locks' first array: most holders nest no deeper
}

// newHeldStack returns an empty stack of ld's.
func newHeldStack(ld *Lockdep, key holderKey) *heldStack {
	s := &heldStack{owner: ld, key: key}
	s.locks = s.buf[:0]
	return s
}

// depEdge is one dependency, first taken at chain.
type depEdge struct {
	from, to ClassID
	chain    lockChain
}

// lockChain is who made an acquisition and where, for the report.
type lockChain struct {
	holder holderKey
	lockAt
}

// lockAt is where an acquisition happened.
type lockAt struct {
	cpu     int
	t       sim.Time
	syscall string
}

func (c lockChain) String() string {
	s := fmt.Sprintf("%s on cpu%d at %s", c.holder, c.cpu, c.t)
	if c.syscall != "" {
		s += " in " + c.syscall
	}
	return s
}

// holderKey says who holds a lock: the task for locks taken in its kernel
// context (a sleeping lock stays with the task across a switch), the CPU's
// irq or NMI context otherwise (lockdep's per-task held_locks, with the
// interrupt handler's locks on top of the interrupted task's).
type holderKey struct {
	task *Task
	cpu  int
	ctx  cpu.Context
}

// holder returns the key and the name of whoever acquires on c now: t when
// given (a sleeping lock), else the context running on c.
func holder(c *cpu.CPU, t *Task) holderKey {
	if t != nil {
		return holderKey{task: t}
	}
	if c == nil {
		return holderKey{cpu: -1}
	}
	if c.Context() != cpu.CtxTask {
		return holderKey{cpu: c.ID, ctx: c.Context()}
	}
	if t = TaskOf(c.Curr()); t != nil {
		return holderKey{task: t}
	}
	return holderKey{cpu: c.ID}
}

// String names the holder for a report (only then: acquisitions are a hot
// path and format nothing).
func (h holderKey) String() string {
	switch {
	case h.task != nil:
		return h.task.String()
	case h.ctx != cpu.CtxTask:
		return fmt.Sprintf("%s context", h.ctx)
	}
	return fmt.Sprintf("swapper/%d", h.cpu)
}

// stack returns key's held locks (creating them when make is set; nil
// otherwise when it holds none yet): an interrupt context's (a task keeps
// its own on the Task, holderStack).
func (ld *Lockdep) stack(key holderKey, make bool) *heldStack {
	if ld.lastStack != nil && ld.lastKey == key {
		return ld.lastStack
	}
	s := ld.held[key]
	if s == nil {
		if !make {
			return nil
		}
		if ld.held == nil {
			ld.held = map[holderKey]*heldStack{}
		}
		s = newHeldStack(ld, key)
		ld.held[key] = s
		ld.any = true
	}
	ld.lastKey, ld.lastStack = key, s
	return s
}

// grow makes room for class id in the per-class tables, and for every
// class known so far (a run meets most of them).
func (ld *Lockdep) grow(id ClassID) {
	if int(id) < len(ld.cls) {
		return
	}
	n := max(int(id)+1, len(*classesOf()))
	if cap(ld.cls) >= n {
		ld.cls = ld.cls[:n]
	} else {
		ld.cls = append(ld.cls, make([]classState, n-len(ld.cls))...)
	}
	if stride := (n + 63) / 64; stride != ld.stride || len(ld.has) < n*stride {
		// Lay the bitset out anew for the wider rows.
		ld.stride = stride
		ld.has = make([]uint64, n*stride)
		for _, e := range ld.edges {
			ld.has[int(e.from)*stride+int(e.to)/64] |= 1 << (uint(e.to) % 64)
		}
	}
}

// hasEdge reports whether a -> b is in the graph.
func (ld *Lockdep) hasEdge(a, b ClassID) bool {
	return ld.has[int(a)*ld.stride+int(b)/64]&(1<<(uint(b)%64)) != 0
}

// edgeChain returns where a -> b was first taken.
func (ld *Lockdep) edgeChain(a, b ClassID) lockChain {
	for _, i := range ld.cls[a].succ {
		if ld.edges[i].to == b {
			return ld.edges[i].chain
		}
	}
	return lockChain{}
}

// Acquire records that the holder on c (t for a sleeping lock) takes a lock
// of class cl.
// kernel/locking/lockdep.c: lock_acquire()
func (ld *Lockdep) Acquire(c *cpu.CPU, t *Task, cl LockClass) { ld.AcquireCached(c, t, nil, cl) }

// AcquireCached is Acquire with the lock's class cache (nil: none).
func (ld *Lockdep) AcquireCached(c *cpu.CPU, t *Task, cc *ClassCache, cl LockClass) {
	if ld == nil || ld.Off {
		return
	}
	ld.acquire(c, t, cc.Of(cl), &cl, false)
}

// AcquireTry records a trylock that succeeded: the lock is held, but a
// trylock cannot wait, so it adds no dependency.
// kernel/locking/lockdep.c: lock_acquire(trylock=1)
func (ld *Lockdep) AcquireTry(c *cpu.CPU, t *Task, cl LockClass) { ld.AcquireTryCached(c, t, nil, cl) }

// AcquireTryCached is AcquireTry with the lock's class cache (nil: none).
func (ld *Lockdep) AcquireTryCached(c *cpu.CPU, t *Task, cc *ClassCache, cl LockClass) {
	if ld == nil || ld.Off {
		return
	}
	ld.acquire(c, t, cc.Of(cl), &cl, true)
}

// acquire is lock_acquire() of class id (cl) by the holder on c (t for a
// sleeping lock): the new lock goes on the holder's stack in place, and
// (unless a trylock) each lock held before it gets its dependency.
// kernel/locking/lockdep.c: __lock_acquire()
func (ld *Lockdep) acquire(c *cpu.CPU, t *Task, id ClassID, cl *LockClass, try bool) {
	if int(id) >= len(ld.cls) {
		ld.grow(id)
	}
	st := t.heldBy(ld) // a sleeping lock's holder: no call
	if st == nil {
		st = ld.holderStack(c, t, true)
	}
	n := len(st.locks)
	if n < cap(st.locks) {
		st.locks = st.locks[:n+1]
	} else {
		st.locks = append(st.locks, heldLock{})
	}
	h := &st.locks[n]
	h.class = id
	h.at = lockAt{cpu: -1}
	if c != nil {
		h.at.cpu, h.at.t = c.ID, c.Now()
	}
	if st.key.task != nil {
		h.at.syscall = st.key.task.Syscall
	}
	if !try {
		if c != nil && c.InNMI() {
			ld.report(c, "lock-in-nmi", "nmi:"+cl.Name,
				fmt.Sprintf("%s taken in NMI context (%s): an NMI can interrupt its holder on this CPU and spin or sleep forever", *cl, lockChain{st.key, h.at}))
		}
		for i := range n {
			p := &st.locks[i] // not a copy: most held locks only have their edge looked up
			if p.class == id {
				ld.report(c, "recursive-locking", "rec:"+cl.String(),
					fmt.Sprintf("possible recursive locking: %s takes %s while holding another %s (taken by %s); annotate with a subclass if the order is fixed",
						lockChain{st.key, h.at}, *cl, *cl, lockChain{st.key, p.at}))
				continue
			}
			if !ld.hasEdge(p.class, id) {
				ld.addEdge(c, lockChain{st.key, p.at}, p.class, id, lockChain{st.key, h.at})
			}
		}
	}
	if ld.irqUsageNew(c, id) {
		ld.markIrqUsage(c, id, st.key, &h.at)
	}
}

// heldBy returns t's held locks in ld, or nil (t nil, or none yet).
func (t *Task) heldBy(ld *Lockdep) *heldStack {
	if t != nil {
		if s := t.ldHeld; s != nil && s.owner == ld {
			return s
		}
	}
	return nil
}

// holderStack is stack(holder(c, t), make), a task's straight from the Task.
func (ld *Lockdep) holderStack(c *cpu.CPU, t *Task, make bool) *heldStack {
	if t == nil && c != nil && c.Context() == cpu.CtxTask {
		t = TaskOf(c.Curr())
	}
	if t != nil {
		if s := t.ldHeld; s != nil && s.owner == ld {
			return s
		}
		if !make {
			return nil
		}
		s := newHeldStack(ld, holderKey{task: t})
		t.ldHeld = s
		ld.any = true
		return s
	}
	return ld.stack(holder(c, nil), make)
}

// ReleaseAny records the release of the innermost held lock named name
// (of whatever subclass) by the holder on c.
// kernel/locking/lockdep.c: lock_release()
func (ld *Lockdep) ReleaseAny(c *cpu.CPU, t *Task, name string) { ld.ReleaseCached(c, t, nil, name) }

// ReleaseCached is ReleaseAny with the lock's class cache (nil: none): a
// held lock of a class the cache knows for name is name's without
// comparing names.
func (ld *Lockdep) ReleaseCached(c *cpu.CPU, t *Task, cc *ClassCache, name string) {
	if ld == nil || ld.Off || !ld.any {
		return
	}
	st := t.heldBy(ld)
	if st == nil {
		if st = ld.holderStack(c, t, false); st == nil {
			return
		}
	}
	// In place: an emptied stack stays, so the holder's next acquisition
	// reuses it; a popped entry is overwritten by the next push.
	held := st.locks
	last := len(held) - 1
	if last < 0 {
		return
	}
	if cc != nil && sameString(cc.name, name) {
		if id := held[last].class + 1; id == cc.ids[0] || id == cc.ids[1] {
			st.locks = held[:last] // the innermost, the usual case: nothing to move
			return
		}
	}
	for i := last; i >= 0; i-- {
		if held[i].class.Class().Name == name {
			n := copy(held[i:], held[i+1:])
			st.locks = held[:i+n]
			return
		}
	}
}

// addEdge adds prevClass -> next (not yet known), next taken at ch while
// prevClass was held since prev, after checking that next does not already
// reach prevClass.
// kernel/locking/lockdep.c: check_prev_add(), check_noncircular()
func (ld *Lockdep) addEdge(c *cpu.CPU, prev lockChain, prevClass, next ClassID, ch lockChain) {
	if path := ld.path(next, prevClass); path != nil {
		var b strings.Builder
		fmt.Fprintf(&b, "possible circular locking dependency: %s takes %s while holding %s (taken by %s); the run already took",
			ch, next, prevClass, prev)
		for i := 0; i+1 < len(path); i++ {
			fmt.Fprintf(&b, " %s then %s (%s);", path[i], path[i+1], ld.edgeChain(path[i], path[i+1]))
		}
		msg := strings.TrimSuffix(b.String(), ";")
		ld.report(c, "circular-dependency", "cyc:"+prevClass.String()+">"+next.String(), msg)
	}
	a := prevClass
	ld.has[int(a)*ld.stride+int(next)/64] |= 1 << (uint(next) % 64)
	ca := &ld.cls[a]
	if ca.rank == 0 {
		ld.fromOrder = append(ld.fromOrder, a)
		ca.rank = int32(len(ld.fromOrder))
	}
	ca.succ = append(ca.succ, int32(len(ld.edges)))
	ld.edges = append(ld.edges, depEdge{a, next, ch})
	// next's predecessors stay in fromOrder's order.
	cn := &ld.cls[next]
	i := len(cn.pred)
	for i > 0 && ld.cls[cn.pred[i-1]].rank > ca.rank {
		i--
	}
	cn.pred = slices.Insert(cn.pred, i, a)
	ld.checkIrqEdge(c, a, next)
}

// newSearch starts a search: no class is marked visited.
func (ld *Lockdep) newSearch() {
	ld.stamp++
	if ld.stamp == 0 { // wrapped: clear the marks
		for i := range ld.cls {
			ld.cls[i].visited = 0
		}
		ld.stamp = 1
	}
}

// pathTo returns the search's path start ... end, start first.
func (ld *Lockdep) pathTo(start, end ClassID) []ClassID {
	var p []ClassID
	for z := end; z != start; z = ld.cls[z].from {
		p = append(p, z)
	}
	p = append(p, start)
	slices.Reverse(p)
	return p
}

// bfs is the breadth-first search the hardirq checks make, from start over
// the successors (forward) or predecessors, in the order they were taken,
// until stop accepts a class taken from the queue (start included); it
// returns that class and the path from start to it (start first), or -1
// and nil.
func (ld *Lockdep) bfs(start ClassID, forward bool, stop func(ClassID) bool) (ClassID, []ClassID) {
	ld.newSearch()
	ld.cls[start].visited, ld.cls[start].from = ld.stamp, start
	queue := append(ld.queue[:0], start)
	visit := func(x, y ClassID) {
		if cy := &ld.cls[y]; cy.visited != ld.stamp {
			cy.visited, cy.from = ld.stamp, x
			queue = append(queue, y)
		}
	}
	found := ClassID(-1)
	for head := 0; head < len(queue); head++ {
		x := queue[head]
		if stop(x) {
			found = x
			break
		}
		if forward {
			for _, i := range ld.cls[x].succ {
				visit(x, ld.edges[i].to)
			}
		} else {
			for _, y := range ld.cls[x].pred {
				visit(x, y)
			}
		}
	}
	ld.queue = queue
	if found < 0 {
		return -1, nil
	}
	return found, ld.pathTo(start, found)
}

// path returns a dependency path from -> ... -> to (from != to), or nil:
// DependencyPath on the run's graph.
func (ld *Lockdep) path(from, to ClassID) []ClassID {
	_, p := ld.bfs(from, true, func(x ClassID) bool { return x == to })
	return p
}

// DependencyPath returns a dependency path from -> ... -> to in a graph
// given as each class's successors in the order they were added (breadth
// first, so a report reads the same in every replay), or nil. The run's
// validator searches its graph the same way (Lockdep.path).
func DependencyPath[K comparable](order map[K][]K, from, to K) []K {
	prev := map[K]K{from: from}
	queue := []K{from}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, y := range order[x] {
			if _, seen := prev[y]; seen {
				continue
			}
			prev[y] = x
			if y == to {
				var p []K
				for z := to; z != from; z = prev[z] {
					p = append(p, z)
				}
				p = append(p, from)
				slices.Reverse(p)
				return p
			}
			queue = append(queue, y)
		}
	}
	return nil
}

func (ld *Lockdep) report(c *cpu.CPU, kind, key, msg string) {
	if ld.reported[key] {
		return
	}
	if ld.reported == nil {
		ld.reported = map[string]bool{}
	}
	ld.reported[key] = true
	if ld.Report != nil {
		ld.Report(c, kind, msg)
	}
}

// Dependencies returns the recorded lock order, "A -> B" per edge, sorted:
// what an exploration unions across its schedules.
func (ld *Lockdep) Dependencies() []string {
	var out []string
	for _, e := range ld.edges {
		out = append(out, e.from.String()+" -> "+e.to.String())
	}
	slices.Sort(out)
	return out
}

// LockEdge is one recorded dependency: To was taken while From was held,
// first at Chain (who, where, when).
type LockEdge struct {
	From, To LockClass
	Chain    string
	ids      [2]ClassID // From's and To's ids, when hasIDs (EdgesExcept)
	hasIDs   bool
}

// IDs returns the class ids of From and To: those the lockdep that
// recorded the edge had (EdgeList, EdgesExcept), else ClassOf's.
func (e LockEdge) IDs() (from, to ClassID) {
	if e.hasIDs {
		return e.ids[0], e.ids[1]
	}
	return ClassOf(e.From), ClassOf(e.To)
}

// EdgeList returns the recorded dependencies in the order they were first
// taken: what an exploration unions across its schedules (lockdep's graph
// lives as long as the kernel, not one schedule).
func (ld *Lockdep) EdgeList() []LockEdge { return ld.EdgesExcept(nil) }

// EdgesExcept is EdgeList without the dependencies known(from, to) reports
// (nil: none), whose chains it does not format: an exploration asks only for
// the edges its graph lacks. Each edge keeps its class ids (LockEdge.IDs).
func (ld *Lockdep) EdgesExcept(known func(from, to ClassID) bool) []LockEdge {
	var out []LockEdge
	for _, a := range ld.fromOrder {
		for _, i := range ld.cls[a].succ {
			b := ld.edges[i].to
			if known == nil || !known(a, b) {
				out = append(out, LockEdge{From: a.Class(), To: b.Class(), Chain: ld.edges[i].chain.String(), ids: [2]ClassID{a, b}, hasIDs: true})
			}
		}
	}
	return out
}
