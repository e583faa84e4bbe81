package sched

import (
	"fmt"
	"slices"
	"strings"

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
// kernel/locking/lockdep.c: __lock_acquire(), check_prevs_add(), check_noncircular(), check_deadlock()
type Lockdep struct {
	// Off is CONFIG_PROVE_LOCKING=n: nothing is recorded or reported.
	Off bool
	// Report is told each finding: "circular-dependency", "recursive-locking",
	// "lock-in-nmi", "inconsistent-lock-state" or "irq-safe-unsafe", on the
	// CPU where the offending acquisition ran.
	Report func(c *cpu.CPU, kind, msg string)

	held  map[any][]heldLock
	after map[LockClass]map[LockClass]*lockChain
	// order lists each class's successors as they were added: the search
	// walks them in that order, so a report reads the same in every replay.
	order map[LockClass][]LockClass
	// fromOrder lists the classes with successors, in the order each got
	// its first.
	fromOrder []LockClass
	reported  map[string]bool
	usage     map[LockClass]*lockUsage // hardirq usage of each class (lockdep_irq.go)
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

type heldLock struct {
	class LockClass
	chain lockChain
}

// lockChain is where an acquisition happened, for the report.
type lockChain struct {
	holder  holderKey
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

func (ld *Lockdep) init() {
	if ld.held == nil {
		ld.held, ld.after, ld.reported = map[any][]heldLock{}, map[LockClass]map[LockClass]*lockChain{}, map[string]bool{}
		ld.order = map[LockClass][]LockClass{}
	}
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

// acquirer returns who acquires on c now and where, for the report.
func acquirer(c *cpu.CPU, t *Task) (holderKey, lockChain) {
	key := holder(c, t)
	ch := lockChain{holder: key, cpu: -1}
	if c != nil {
		ch.cpu, ch.t = c.ID, c.Now()
	}
	if key.task != nil {
		ch.syscall = key.task.Syscall
	}
	return key, ch
}

// Acquire records that the holder on c (t for a sleeping lock) takes a lock
// of class cl.
// kernel/locking/lockdep.c: lock_acquire()
func (ld *Lockdep) Acquire(c *cpu.CPU, t *Task, cl LockClass) {
	if ld == nil || ld.Off {
		return
	}
	ld.init()
	key, ch := acquirer(c, t)
	if c != nil && c.InNMI() {
		ld.report(c, "lock-in-nmi", "nmi:"+cl.Name,
			fmt.Sprintf("%s taken in NMI context (%s): an NMI can interrupt its holder on this CPU and spin or sleep forever", cl, ch))
	}
	held := ld.held[key]
	for _, h := range held {
		if h.class == cl {
			ld.report(c, "recursive-locking", "rec:"+cl.String(),
				fmt.Sprintf("possible recursive locking: %s takes %s while holding another %s (taken by %s); annotate with a subclass if the order is fixed",
					ch, cl, cl, h.chain))
			continue
		}
		ld.addEdge(c, h, cl, ch)
	}
	ld.held[key] = append(held, heldLock{cl, ch})
	ld.markIrqUsage(c, cl, ch)
}

// AcquireTry records a trylock that succeeded: the lock is held, but a
// trylock cannot wait, so it adds no dependency.
// kernel/locking/lockdep.c: lock_acquire(trylock=1)
func (ld *Lockdep) AcquireTry(c *cpu.CPU, t *Task, cl LockClass) {
	if ld == nil || ld.Off {
		return
	}
	ld.init()
	key, ch := acquirer(c, t)
	ld.held[key] = append(ld.held[key], heldLock{cl, ch})
	ld.markIrqUsage(c, cl, ch)
}

// ReleaseAny records the release of the innermost held lock named name
// (of whatever subclass) by the holder on c.
// kernel/locking/lockdep.c: lock_release()
func (ld *Lockdep) ReleaseAny(c *cpu.CPU, t *Task, name string) {
	if ld == nil || ld.Off || ld.held == nil {
		return
	}
	key := holder(c, t)
	held := ld.held[key]
	for i := len(held) - 1; i >= 0; i-- {
		if held[i].class.Name == name {
			// In place: the slice is the map's alone. An emptied one stays
			// in the map, so the holder's next acquisition reuses it.
			n := copy(held[i:], held[i+1:])
			held[i+n] = heldLock{}
			held = held[:i+n]
			break
		}
	}
	ld.held[key] = held
}

// addEdge adds prev -> next unless known, after checking that next does not
// already reach prev.
// kernel/locking/lockdep.c: check_prev_add(), check_noncircular()
func (ld *Lockdep) addEdge(c *cpu.CPU, prev heldLock, next LockClass, ch lockChain) {
	if ld.after[prev.class][next] != nil {
		return
	}
	if path := DependencyPath(ld.order, next, prev.class); path != nil {
		var b strings.Builder
		fmt.Fprintf(&b, "possible circular locking dependency: %s takes %s while holding %s (taken by %s); the run already took",
			ch, next, prev.class, prev.chain)
		for i := 0; i+1 < len(path); i++ {
			fmt.Fprintf(&b, " %s then %s (%s);", path[i], path[i+1], ld.after[path[i]][path[i+1]])
		}
		msg := strings.TrimSuffix(b.String(), ";")
		ld.report(c, "circular-dependency", "cyc:"+prev.class.String()+">"+next.String(), msg)
	}
	m := ld.after[prev.class]
	if m == nil {
		m = map[LockClass]*lockChain{}
		ld.after[prev.class] = m
	}
	chain := ch
	m[next] = &chain
	if len(ld.order[prev.class]) == 0 {
		ld.fromOrder = append(ld.fromOrder, prev.class)
	}
	ld.order[prev.class] = append(ld.order[prev.class], next)
	ld.checkIrqEdge(c, prev.class, next)
}

// DependencyPath returns a dependency path from -> ... -> to in a graph
// given as each class's successors in the order they were added (breadth
// first, so a report reads the same in every replay), or nil. The run's
// validator and an exploration's union of runs (explore) both search with it.
func DependencyPath(order map[LockClass][]LockClass, from, to LockClass) []LockClass {
	prev := map[LockClass]LockClass{from: from}
	queue := []LockClass{from}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, y := range order[x] {
			if _, seen := prev[y]; seen {
				continue
			}
			prev[y] = x
			if y == to {
				var p []LockClass
				for z := to; z != from; z = prev[z] {
					p = append(p, z)
				}
				p = append(p, from)
				for i, j := 0, len(p)-1; i < j; i, j = i+1, j-1 {
					p[i], p[j] = p[j], p[i]
				}
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
	ld.reported[key] = true
	if ld.Report != nil {
		ld.Report(c, kind, msg)
	}
}

// Dependencies returns the recorded lock order, "A -> B" per edge, sorted:
// what an exploration unions across its schedules.
func (ld *Lockdep) Dependencies() []string {
	var out []string
	for a, next := range ld.order {
		for _, b := range next {
			out = append(out, a.String()+" -> "+b.String())
		}
	}
	slices.Sort(out)
	return out
}

// LockEdge is one recorded dependency: To was taken while From was held,
// first at Chain (who, where, when).
type LockEdge struct {
	From, To LockClass
	Chain    string
}

// EdgeList returns the recorded dependencies in the order they were first
// taken: what an exploration unions across its schedules (lockdep's graph
// lives as long as the kernel, not one schedule).
func (ld *Lockdep) EdgeList() []LockEdge { return ld.EdgesExcept(nil) }

// EdgesExcept is EdgeList without the dependencies known(from, to) reports
// (nil: none), whose chains it does not format: an exploration asks only for
// the edges its graph lacks.
func (ld *Lockdep) EdgesExcept(known func(from, to LockClass) bool) []LockEdge {
	var out []LockEdge
	for _, a := range ld.fromOrder {
		for _, b := range ld.order[a] {
			if known == nil || !known(a, b) {
				out = append(out, LockEdge{a, b, ld.after[a][b].String()})
			}
		}
	}
	return out
}
