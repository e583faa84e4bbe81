package pmu

import (
	"fmt"
	"sort"

	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
)

// The object-lifetime oracle: what KASAN, refcount_t and kmemleak say about
// perf's objects, with no invariant a scenario has to write.
//
//   - A use after free: freed memory touched (an event after free_event_rcu(),
//     a perf_buffer after rb_free_rcu(), each a grace period after call_rcu()):
//     "BUG: KASAN: slab-use-after-free in FUNC", with where the object was
//     freed and where it was used (the function, the CPU, its context, the
//     task and its system call, the last step point that CPU passed, the time).
//   - A refcount_t going from 0 to 1 ("refcount_t: addition on 0;
//     use-after-free", lib/refcount.c: the count saturates and the object leaks)
//     or below 0 ("refcount_t: underflow; use-after-free"); event->refcount is an
//     atomic_long_t, whose underflow is a double free.
//   - A leak at the end of the scenario (kmemleak's "unreferenced object"): an
//     object whose count is more than what still holds it.
//
// "The end" is a run whose every task exited: every task work ran
// (exit_task_work()) and every task context is dead. A process's last
// exit unmaps what it still mapped (exit_mm() -> exit_mmap(): mmap_exec.go)
// and closes its fds (exit_files() -> close_files()); a mapping still live at
// the end belongs to a task that has not exited (a scenario cut short), and a
// reference it holds is accounted for, not a leak. What is counted as a holder:
//   - a perf_event: its file (open fd or mapping, one reference for all),
//     each inherited child on its child_list (inherit_event()'s reference),
//     a queued perf_pending_task() (__perf_event_overflow()'s reference);
//   - a perf_buffer: each event whose event->rb points at it
//     (ring_buffer_attach());
//   - rb->mmap_count, rb->aux_mmap_count, event->mmap_count: each live VMA
//     (piece of a mapping) of it.
// An AUX area still allocated when its buffer's last reference goes is a
// leak at once (rb_free_rcu() does not free the AUX pages).
//
// The oracle is the object-lifetime invariant (knob object-lifetime=on|off).
// A use after free or an underflow stops the run as the oops it is (the model
// cannot go on with freed memory any more than the kernel can); an addition
// on 0 (the kernel WARNs and saturates) and a leak are reported and the run
// goes on.

// lifetimeKnob turns the oracle off.
var lifetimeKnob = sim.KnobSpec{
	Name:   "object-lifetime",
	Values: []string{"on", "off"},
	Help: "the object-lifetime oracle (CONFIG_KASAN, refcount_t's checks, kmemleak at the end): on reports a use of a freed event or " +
		"ring buffer, a refcount_t taken from 0 or below 0, and an event or ring buffer still referenced at the end of a scenario " +
		"whose tasks all exited beyond what holds it, as the object-lifetime invariant, with where the object was freed and where it was used; " +
		"off reports nothing (a use of freed memory is still an oops)",
	Source:  "mm/kasan/report.c, lib/refcount.c: refcount_warn_saturate(), mm/kmemleak.c (on by default, as in a debug kernel)",
	Package: "pmu",
}

// LifetimeInvariants is the oracle's invariant.
var LifetimeInvariants = []struct{ Name, Says, Why string }{
	{"object-lifetime",
		"no event, ring buffer, task context or perf_event_pmu_context is used after it was freed, no refcount_t is taken from 0 or dropped below 0, no AUX area outlives its buffer, and when every task has exited no event or ring buffer holds more references than its file, mappings, children, pending task work and attached events account for, nor more mmap counts than its live VMAs; nor does a task context, a perf_event_pmu_context (its events, the pmu's for a CPU one) or a task_struct (events' hw.target, contexts' task) hold more or fewer than its holders",
		"KASAN, refcount_t and kmemleak: perf's objects are freed by their last reference (put_event(), ring_buffer_put(), a grace period later); a reference taken on a dying object, dropped twice, or never dropped is a use after free or a leak (517e6a301f34, 3a5465418f5f, f91840a32dee)"},
}

// LifetimeViolation is one report of the oracle.
type LifetimeViolation struct {
	Invariant string
	T         sim.Time
	CPU       int // -1: judged at the end
	Message   string
}

func init() {
	KnobSpecs = append(KnobSpecs, lifetimeKnob, childReleaseKnob)
	RegisterObservable("lifetime.reports", "reports of the object-lifetime oracle: uses after free, refcount_t additions on 0 and underflows, leaks at the end",
		func(k *Kernel) int64 { return int64(k.lt.reports) })
}

// lifePoint is where something happened to an object: the function, and the
// CPU, its context, the task and its system call, the last step point, the
// time. Nothing is formatted until a report.
type lifePoint struct {
	where   string
	cpu     int
	ctx     cpu.Context
	task    *sched.Task
	syscall string
	step    string
	t       sim.Time
}

func (p lifePoint) String() string {
	if p.where == "" {
		return "(not recorded)"
	}
	s := fmt.Sprintf("%s on cpu%d", p.where, p.cpu)
	switch {
	case p.ctx != cpu.CtxTask:
		s += fmt.Sprintf(" in %s context", p.ctx)
		if p.task != nil {
			s += " over " + p.task.String()
		}
	case p.task != nil:
		s += " by " + p.task.String()
		if p.syscall != "" {
			s += " in " + p.syscall
		}
	}
	if p.step != "" {
		s += " after step " + p.step
	}
	return s + " at " + p.t.String()
}

// here records where the running code is: where is the kernel function.
func (k *Kernel) here(where string) lifePoint {
	var p lifePoint
	k.mark(&p, where)
	return p
}

// mark is *p = k.here(where), written in place (an object's get and put
// points are recorded on every reference it takes or drops).
func (k *Kernel) mark(p *lifePoint, where string) {
	p.where, p.t = where, k.now()
	c := k.curCPU()
	if c == nil {
		p.cpu, p.ctx, p.task, p.syscall, p.step = -1, cpu.CtxTask, nil, "", ""
		return
	}
	p.cpu, p.ctx, p.step = c.ID, c.Context(), c.LastStep()
	if t := sched.TaskOf(c.Curr()); t != nil {
		p.task, p.syscall = t, t.Syscall
	} else {
		p.task, p.syscall = nil, ""
	}
}

// lifetime is the oracle's state on one kernel.
type lifetime struct {
	init    bool
	off     bool
	report  func(LifetimeViolation)
	reports uint64
	rbs     map[*rb.Buffer]*rbLife // every buffer perf_mmap() allocated
	rbOrder []*rb.Buffer           // in allocation order, for the end check
	maps    []*Mapping             // every mapping perf_mmap() made, for the mmap counts at the end
	// The buffer rbLifeOf last found (most runs map one or two).
	lastBuf  *rb.Buffer
	lastLife *rbLife
}

// rbLifeOf is k.lt.rbs[buf].
func (k *Kernel) rbLifeOf(buf *rb.Buffer) *rbLife {
	if buf == k.lt.lastBuf && buf != nil {
		return k.lt.lastLife
	}
	l := k.lt.rbs[buf]
	if l != nil {
		k.lt.lastBuf, k.lt.lastLife = buf, l
	}
	return l
}

// lifeMapped records a mapping perf_mmap() made.
func (k *Kernel) lifeMapped(m *Mapping) {
	if k.lifeOn() {
		k.lt.maps = append(k.lt.maps, m)
	}
}

// livePieces is how many VMAs of m are still mapped: each holds an
// rb->mmap_count and an event->mmap_count (and, for an AUX piece, an
// rb->aux_mmap_count), which its perf_mmap_close() gives back (munmap() or
// the exit's exit_mmap()).
func (m *Mapping) livePieces() int {
	switch {
	case m.unmap:
		return 0
	case m.vmas == nil:
		return 1
	}
	return len(m.vmas)
}

// rbLife is a perf_buffer's life: who allocated it, where its last reference
// went (call_rcu(&rb->rcu_head, rb_free_rcu)), when the grace period ends.
type rbLife struct {
	owner   uint64 // the event perf_mmap() allocated it for
	alloc   lifePoint
	get     lifePoint // the last ring_buffer_get() the core made
	put     lifePoint // the last ring_buffer_put()
	freed   bool
	freedAt sim.Time
}

func (r *rbLife) isFreed(now sim.Time) bool { return r.freed && now >= r.freedAt }

// SetLifetimeHook installs the oracle's report (the runner's violation).
func (k *Kernel) SetLifetimeHook(f func(LifetimeViolation)) { k.lt.report = f }

func (k *Kernel) lifeOn() bool {
	if !k.lt.init {
		k.lt.init = true
		k.lt.off = k.KnobIs(lifetimeKnob.Name, "off")
		k.lt.rbs = map[*rb.Buffer]*rbLife{}
	}
	return !k.lt.off
}

// lifeReport reports msg at the running CPU (cpu -1: at the end).
func (k *Kernel) lifeReport(c int, msg string) {
	if !k.lifeOn() {
		return
	}
	k.lt.reports++
	if k.lt.report != nil {
		k.lt.report(LifetimeViolation{Invariant: "object-lifetime", T: k.now(), CPU: c, Message: msg})
	}
}

// lifeOops reports a use after free or an underflow and stops the run with
// the same words, as the kernel's oops.
func (k *Kernel) lifeOops(msg string) {
	use := k.here("")
	k.lifeReport(use.cpu, msg)
	panicCrash("%s", msg)
}

// eventUAF is KASAN's report of freed event memory touched in where.
func (k *Kernel) eventUAF(e *Event, where string) {
	use := k.here(where)
	k.lifeOops(fmt.Sprintf("BUG: KASAN: slab-use-after-free in %s: event %d (%s) freed by free_event_rcu() at %s, its last reference dropped by %s; used by %s",
		where, e.id, e.pmuName(), e.life.freedAt, e.life.put, use))
}

// eventUnderflow is put_event() on an event whose count is already 0: the
// second _free_event() of the same memory.
func (k *Kernel) eventUnderflow(e *Event) {
	use := k.here("put_event")
	k.lifeOops(fmt.Sprintf("BUG: KASAN: double-free in put_event: event %d (%s) refcount below 0, its last reference already dropped by %s; dropped again by %s",
		e.id, e.pmuName(), e.life.put, use))
}

func (e *Event) pmuName() string {
	if e.pmu == nil {
		return "?"
	}
	return e.pmu.Name()
}

// refcountAddOnZero is refcount_warn_saturate(REFCOUNT_ADD_UAF) for the
// refcount_t obj (say "event 3's mmap_count"): taken from 0 by op.
// lib/refcount.c: refcount_warn_saturate()
func (k *Kernel) refcountAddOnZero(obj, op string) {
	p := k.here(op)
	k.lifeReport(p.cpu, fmt.Sprintf("refcount_t: addition on 0; use-after-free: %s taken from 0 by %s", obj, p))
}

// refcountUnderflow is refcount_warn_saturate(REFCOUNT_SUB_UAF): obj dropped
// below 0 by op; last is where it went to 0 (if known). It stops the run.
func (k *Kernel) refcountUnderflow(obj, op string, last lifePoint) {
	p := k.here(op)
	k.lifeOops(fmt.Sprintf("refcount_t: underflow; use-after-free: %s dropped below 0 by %s; it went to 0 at %s", obj, p, last))
}

// rbAlloc records a buffer perf_mmap() allocated for e.
func (k *Kernel) rbAlloc(buf *rb.Buffer, e *Event) {
	if !k.lifeOn() {
		return
	}
	k.lt.rbs[buf] = &rbLife{owner: e.id, alloc: k.here("rb_alloc")}
	k.lt.rbOrder = append(k.lt.rbOrder, buf)
}

// rbPut records a ring_buffer_put(); freed: it was the last, so
// call_rcu(rb_free_rcu) frees the buffer a grace period later.
func (k *Kernel) rbPut(buf *rb.Buffer, freed bool) {
	if !k.lifeOn() {
		return
	}
	if l := k.rbLifeOf(buf); l != nil {
		k.mark(&l.put, "ring_buffer_put")
		if freed {
			l.freed, l.freedAt = true, k.now()+rcuGracePeriod
			k.lifeCheckFreedMapped(buf, l)
			if buf.HasAux() {
				// rb_free_rcu() frees the data pages only: the AUX pages go
				// with the last aux_refcount (rb_free_aux()), which is held.
				k.lifeReport(l.put.cpu, fmt.Sprintf("unreferenced object (leak): the AUX pages of the perf_buffer event %d mapped outlive it (aux_refcount %d, aux_mmap_count %d): "+
					"the buffer's last reference dropped by %s", l.owner, buf.AuxRefcount(), buf.AuxMmapCount(), l.put))
			}
		}
	}
}

// lifeCheckFreedMapped reports a buffer whose last reference went while a
// VMA still maps its pages: map_range() mapped them VM_PFNMAP, so the
// mapping holds no page reference and rb_free_rcu() frees pages user space
// still reads and writes (a use after free no fault reports; the VMA's
// later perf_mmap_close() finds event->rb gone).
// kernel/events/core.c: map_range(), ring_buffer_put() -> rb_free_rcu()
func (k *Kernel) lifeCheckFreedMapped(buf *rb.Buffer, l *rbLife) {
	n := 0
	for _, m := range k.lt.maps {
		if m.RB == buf && m.livePieces() > 0 {
			n += m.livePieces()
		}
	}
	if n > 0 {
		k.lifeReport(l.put.cpu, fmt.Sprintf("use after free: the perf_buffer event %d mapped (allocated by %s) lost its last reference (dropped by %s) while %d VMA(s) still map its pages: "+
			"map_range() mapped them VM_PFNMAP, which holds no page reference, so rb_free_rcu() frees pages user space still maps", l.owner, l.alloc, l.put, n))
	}
}

// rbGet is ring_buffer_get()'s refcount_inc_not_zero(&rb->refcount) on a
// buffer the core reached through event->rb (under RCU: still allocated).
func (k *Kernel) rbGet(buf *rb.Buffer, where string) bool {
	l := k.rbCheck(buf, where)
	if !buf.Get() {
		return false
	}
	if l != nil {
		k.mark(&l.get, where)
	}
	return true
}

// rbUse checks that buf is still allocated where the model touches it.
func (k *Kernel) rbUse(buf *rb.Buffer, where string) { k.rbCheck(buf, where) }

// rbCheck is rbUse returning the buffer's lifetime record (nil when the
// oracle is off or the buffer is not one perf_mmap() allocated).
func (k *Kernel) rbCheck(buf *rb.Buffer, where string) *rbLife {
	if buf == nil || !k.lifeOn() {
		return nil
	}
	l := k.rbLifeOf(buf)
	if l == nil || !l.isFreed(k.now()) {
		return l
	}
	use := k.here(where)
	k.lifeOops(fmt.Sprintf("BUG: KASAN: slab-use-after-free in %s: the perf_buffer event %d mapped, freed by rb_free_rcu() at %s, its last reference dropped by %s; used by %s",
		where, l.owner, l.freedAt, l.put, use))
	return l
}

// rbPutUnderflow is ring_buffer_put() on a buffer whose count is 0.
func (k *Kernel) rbPutUnderflow(buf *rb.Buffer) {
	var last lifePoint
	owner := uint64(0)
	if l := k.lt.rbs[buf]; l != nil {
		last, owner = l.put, l.owner
	}
	k.refcountUnderflow(fmt.Sprintf("the refcount of the perf_buffer event %d mapped", owner), "ring_buffer_put", last)
}

// LifetimeCheck is the oracle's end of the scenario: when every task exited
// (quiet), every event and buffer not freed must hold exactly the references
// its holders account for; more is a leak, fewer an imbalance that the
// closes exit_files() and exit_mmap() would do turn into an underflow.
func (k *Kernel) LifetimeCheck(quiet bool) []LifetimeViolation {
	if !quiet || !k.lifeOn() {
		return nil
	}
	var out []LifetimeViolation
	bad := func(format string, args ...any) {
		k.lt.reports++
		out = append(out, LifetimeViolation{Invariant: "object-lifetime", T: k.now(), CPU: -1, Message: fmt.Sprintf(format, args...)})
	}
	onRB := map[*rb.Buffer]int{}
	for _, e := range k.events {
		if e.life.freeQueued {
			continue
		}
		if e.rb != nil {
			onRB[e.rb]++
		}
		holders, why := e.lifeHolders()
		if e.life.refcount == holders {
			continue
		}
		kind := "unreferenced object (leak)"
		if e.life.refcount < holders {
			kind = "refcount below its holders"
		}
		refused := ""
		if e.life.refused.where != "" {
			refused = "; free_event() refused it (\"unexpected event refcount\") at " + e.life.refused.String()
		}
		bad("%s: event %d (%s, %s) has refcount %d at the end, %d held (%s); last reference taken by %s, last dropped by %s%s",
			kind, e.id, e.pmuName(), e.state, e.life.refcount, holders, why, e.life.get, e.life.put, refused)
	}
	for _, buf := range k.lt.rbOrder {
		l := k.lt.rbs[buf]
		if l.freed {
			continue
		}
		n := int32(onRB[buf])
		if buf.Refcount() == n {
			continue
		}
		kind := "unreferenced object (leak)"
		if buf.Refcount() < n {
			kind = "refcount below its holders"
		}
		aux := ""
		if buf.HasAux() {
			aux = fmt.Sprintf(", its AUX area still allocated (aux_refcount %d, aux_mmap_count %d)", buf.AuxRefcount(), buf.AuxMmapCount())
		}
		bad("%s: the perf_buffer event %d mapped (allocated by %s) has refcount %d at the end, %d events attached%s; last reference taken by %s, last dropped by %s",
			kind, l.owner, l.alloc, buf.Refcount(), n, aux, l.get, l.put)
	}
	k.lifeCheckMmapCounts(bad)
	k.lifeCheckCtxs(bad)
	k.lifeCheckEpcs(bad)
	k.lifeCheckTasks(bad)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Message < out[j].Message })
	return out
}

// lifeHolders counts what legitimately holds a reference on e at the end.
func (e *Event) lifeHolders() (int64, string) {
	var n int64
	why := ""
	add := func(m int64, s string) {
		n += m
		if why != "" {
			why += ", "
		}
		why += s
	}
	switch {
	case e.fileRefs > 0:
		add(1, fmt.Sprintf("its file: %d fd/mapping references", e.fileRefs))
	case e.parent != nil:
		add(0, fmt.Sprintf("inherited from event %d, its task exited", e.parent.id))
	default:
		add(0, "its file closed")
	}
	live := int64(0)
	for _, c := range e.childList {
		if !c.life.freeQueued {
			live++
		}
	}
	if live > 0 {
		add(live, fmt.Sprintf("%d inherited children", live))
	}
	if e.life.pendingWork != 0 && e.life.pendingRef {
		add(1, "a queued perf_pending_task()")
	}
	return n, why
}

// lifeCheckMmapCounts checks, at the end, that each buffer's and event's mmap
// counts are what their live VMAs hold: more is a count no perf_mmap_close()
// will give back (the buffer stays mapped and charged, its AUX pages stay),
// fewer one that a close will take below 0.
func (k *Kernel) lifeCheckMmapCounts(bad func(format string, args ...any)) {
	rbVMAs, auxVMAs, evVMAs := map[*rb.Buffer]int{}, map[*rb.Buffer]int{}, map[*Event]int{}
	for _, m := range k.lt.maps {
		n := m.livePieces()
		rbVMAs[m.RB] += n
		evVMAs[m.ev] += n
		if m.Aux {
			auxVMAs[m.RB] += n
		}
	}
	for _, buf := range k.lt.rbOrder {
		l, bs := k.lt.rbs[buf], k.bufs[buf]
		if l.freed || bs == nil {
			continue
		}
		if bs.mmapCount != rbVMAs[buf] {
			bad("mmap count imbalance: rb->mmap_count of the perf_buffer event %d mapped is %d at the end, %d VMAs map it; last reference taken by %s, last dropped by %s",
				l.owner, bs.mmapCount, rbVMAs[buf], l.get, l.put)
		}
		if buf.HasAux() && int(buf.AuxMmapCount()) != auxVMAs[buf] {
			bad("mmap count imbalance: rb->aux_mmap_count of the perf_buffer event %d mapped is %d at the end, %d VMAs map its AUX area (its AUX pages stay allocated)",
				l.owner, buf.AuxMmapCount(), auxVMAs[buf])
		}
	}
	for _, e := range k.events {
		if e.life.freeQueued || e.mmapCount == refcountSaturated {
			continue
		}
		if e.mmapCount != evVMAs[e] {
			bad("mmap count imbalance: event->mmap_count of event %d is %d at the end, %d VMAs map it", e.id, e.mmapCount, evVMAs[e])
		}
	}
}
