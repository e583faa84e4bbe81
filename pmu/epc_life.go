package pmu

import (
	"fmt"
	"slices"

	"perfsim/sched"
	"perfsim/sim"
)

// The lifetime of struct perf_event_pmu_context (an event's event->pmu_ctx,
// "epc"), in the object-lifetime oracle (lifetime.go).
//
// Each context keeps one epc per PMU that has events in it, on
// ctx->pmu_ctx_list (sorted by pmu->type). epc->refcount is an atomic_t:
//   - find_get_pmu_context() returns it with a reference: for a task context
//     it allocates one (refcount 1) and links it, or takes a reference on the
//     one already listed, under ctx->lock; for a CPU context the epc is
//     embedded in the per-CPU perf_cpu_pmu_context: the first user sets the
//     refcount to 2 ("One extra reference for the pmu; see perf_pmu_free()",
//     which only perf_pmu_unregister() drops: never here) and links it;
//   - each event holds the reference it got: sys_perf_event_open(),
//     inherit_event() (child_event->pmu_ctx); a move_group moves the group's
//     members (put_pmu_ctx() of the old, get_pmu_ctx() of the new);
//   - __free_event() drops it (put_pmu_ctx(event->pmu_ctx)) before put_ctx();
//     so does sys_perf_event_open()'s err_context.
//
// put_pmu_ctx() decrements with atomic_dec_and_raw_lock_irqsave(): the last
// reference is dropped under ctx->lock, which find_get_pmu_context() holds
// while it looks the list up, so a lookup either takes its reference before
// the count reaches 0 or no longer finds the epc; the last put unlinks it
// and frees a task epc a grace period later (call_rcu(free_epc_rcu)).
// Before 4f64a6c9f6f1 (knob pmu-ctx-serialize=pre-4f64a6c9f6f1) the count
// dropped to 0 outside ctx->lock: a find_get_pmu_context() on another CPU
// found the dying epc on the list and took it from 0 to 1 (atomic_inc(), no
// refcount_t to warn), then the put unlinked and freed it under the new
// event, whose next touch (list_del_event()'s event->pmu_ctx->nr_events--)
// KASAN reports.

// pmuCtxSerializeKnob picks put_pmu_ctx()'s locking.
var pmuCtxSerializeKnob = sim.KnobSpec{
	Name:    "pmu-ctx-serialize",
	Values:  []string{"today", "pre-4f64a6c9f6f1"},
	Implies: map[string][]string{"pre-4f64a6c9f6f1": closeFputPreV66}, // v6.2
	Help: "put_pmu_ctx() against find_get_pmu_context(): today the last reference of a perf_event_pmu_context is dropped under ctx->lock " +
		"(atomic_dec_and_raw_lock_irqsave()), the lock the lookup holds; pre-4f64a6c9f6f1: atomic_dec_and_test() outside ctx->lock, then the lock " +
		"to unlink it, so a lookup in between takes the dying epc from 0 to 1 and the put then unlinks and frees it under the new event " +
		"(a use after free at that event's list_del_event()); a CPU context's embedded epc started at refcount 1 and was checked for epc->ctx outside the lock",
	Source: "4f64a6c9f6f1 perf: Fix perf_event_pmu_context serialization (James Clark, v6.2-rc7; syzbot WARN in put_pmu_ctx(), " +
		"\"very quick to trigger on Arm by running [perf record -- ls] at the same time\"; Fixes bd2756811766 perf: Rewrite core context handling)",
	Package: "pmu",
}

func init() {
	KnobSpecs = append(KnobSpecs, pmuCtxSerializeKnob)
	RegisterObservable("pmu-ctx.freed", "task perf_event_pmu_contexts whose last put_pmu_ctx() unlinked them (call_rcu(free_epc_rcu))",
		func(k *Kernel) int64 { return int64(k.epcStats.freed) })
	RegisterStepHelp(map[string]string{
		"put_pmu_ctx:dec_and_test": "kernel/events/core.c: put_pmu_ctx() before 4f64a6c9f6f1 (knob pmu-ctx-serialize=pre-4f64a6c9f6f1): epc->refcount dropped to 0 " +
			"by atomic_dec_and_test() outside ctx->lock, before raw_spin_lock_irqsave(&ctx->lock) unlinks it (a find_get_pmu_context() may take it meanwhile)",
	})
}

// PMUContext is struct perf_event_pmu_context: one PMU's part of a context.
type PMUContext struct {
	pmu      PMU
	ctx      *Context // epc->ctx: set with its ctx->pmu_ctx_list entry, NULL once the last put unlinked it
	refcount int32    // epc->refcount (atomic_t)
	embedded bool     // epc->embedded: a CPU context's, in perf_cpu_pmu_context
	owner    *Context // the context it was made for (ctx is cleared)

	freeQueued bool     // call_rcu(&epc->rcu_head, free_epc_rcu) ran
	freedAt    sim.Time // when free_epc_rcu() frees it
	alloc      lifePoint
	get, put   lifePoint
}

// epcStats counts what the epc lifetime did.
type epcStats struct {
	freed uint64
}

func (epc *PMUContext) String() string {
	where := "a CPU context"
	if epc.owner != nil && epc.owner.task != nil {
		where = "the context of " + epc.owner.task.String()
	} else if epc.owner != nil {
		where = fmt.Sprintf("the context of cpu%d", epc.owner.cpu)
	}
	return fmt.Sprintf("the perf_event_pmu_context of PMU %s in %s", epc.pmu.Name(), where)
}

// epcUse is KASAN on freed epc memory touched in where.
func (k *Kernel) epcUse(epc *PMUContext, where string) {
	if epc == nil || !epc.freeQueued || k.now() < epc.freedAt || !k.lifeOn() {
		return
	}
	use := k.here(where)
	k.lifeOops(fmt.Sprintf("BUG: KASAN: slab-use-after-free in %s: %s freed by free_epc_rcu() at %s, its last reference dropped by %s; used by %s",
		where, epc, epc.freedAt, epc.put, use))
}

// cpuEpc is the epc embedded in the perf_cpu_pmu_context of p on cpuID.
func (k *Kernel) cpuEpc(p PMU, cpuID int) *PMUContext {
	key := [2]int{cpuID, p.base().index}
	if k.cpcEpc == nil {
		k.cpcEpc = map[[2]int]*PMUContext{}
	}
	epc := k.cpcEpc[key]
	if epc == nil {
		epc = &PMUContext{pmu: p, embedded: true}
		k.cpcEpc[key] = epc
		k.lifeEpc(epc)
	}
	return epc
}

// findGetPMUContext returns ctx's epc of p with a reference for e; nil
// when a task context's allocation fails (ERR_PTR(-ENOMEM); a CPU
// context's lookup "cannot fail").
// kernel/events/core.c: find_get_pmu_context()
func (k *Kernel) findGetPMUContext(p PMU, ctx *Context, e *Event) *PMUContext {
	c := k.curCPU()
	if k.M.FootprintListening() {
		k.accessFindGetPMUContext(c, p, ctx) // footprint_open.go
	}
	pre := k.pmuCtxSerializeOld()
	if !ctx.isTask() {
		epc := k.cpuEpc(p, e.cpu)
		if pre && epc.ctx != nil { // "if (!epc->ctx)" outside ctx->lock
			k.epcInc(epc, "find_get_pmu_context")
			return epc
		}
		f := c.LocalIrqSave()
		k.ctxLock(c, ctx)
		if epc.ctx == nil {
			epc.refcount = 2 // "One extra reference for the pmu; see perf_pmu_free()."
			if pre {
				epc.refcount = 1 // atomic_set(&epc->refcount, 1)
			}
			epc.owner, epc.ctx = ctx, ctx
			ctx.linkEpc(epc)
			if k.lifeOn() {
				k.mark(&epc.get, "find_get_pmu_context")
			}
		} else {
			k.epcInc(epc, "find_get_pmu_context") // atomic_inc(&epc->refcount)
		}
		k.ctxUnlock(c, ctx)
		c.LocalIrqRestore(f)
		return epc
	}
	// "new = kzalloc_obj(*epc); if (!new) return ERR_PTR(-ENOMEM);": a
	// task context's lookup allocates first, found or not.
	if k.shouldFail(k.current(), "find_get_pmu_context") {
		return nil
	}
	f := c.LocalIrqSave()
	k.ctxLock(c, ctx)
	k.ctxUse(ctx, "find_get_pmu_context")
	for _, epc := range ctx.pmuCtxList {
		if epc.pmu == p {
			k.epcInc(epc, "find_get_pmu_context") // atomic_inc(&epc->refcount)
			k.ctxUnlock(c, ctx)
			c.LocalIrqRestore(f)
			return epc
		}
	}
	epc := &PMUContext{pmu: p, refcount: 1, owner: ctx, ctx: ctx} // __perf_init_event_pmu_context(new, pmu)
	if k.lifeOn() {
		k.mark(&epc.alloc, "find_get_pmu_context")
		epc.get = epc.alloc
	}
	ctx.linkEpc(epc)
	k.lifeEpc(epc)
	k.ctxUnlock(c, ctx)
	c.LocalIrqRestore(f)
	return epc
}

// linkEpc is list_add(&epc->pmu_ctx_entry, ...): sorted by pmu->type.
func (ctx *Context) linkEpc(epc *PMUContext) {
	i := len(ctx.pmuCtxList)
	for j, x := range ctx.pmuCtxList {
		if x.pmu.Type() > epc.pmu.Type() {
			i = j
			break
		}
	}
	ctx.pmuCtxList = append(ctx.pmuCtxList, nil)
	copy(ctx.pmuCtxList[i+1:], ctx.pmuCtxList[i:])
	ctx.pmuCtxList[i] = epc
}

// epcInc is atomic_inc(&epc->refcount) in find_get_pmu_context(): an
// atomic_t, so a count taken from 0 goes unwarned; the oracle says it.
func (k *Kernel) epcInc(epc *PMUContext, where string) {
	k.epcUse(epc, where)
	if epc.refcount == 0 && k.lifeOn() {
		p := k.here(where)
		k.lifeReport(p.cpu, fmt.Sprintf("atomic_inc() on 0: %s taken from 0 by %s; its last reference was dropped by %s, which will unlink and free it",
			epc, p, epc.put))
	}
	epc.refcount++
	if k.lifeOn() {
		k.mark(&epc.get, where)
	}
}

// getPMUCtx is get_pmu_ctx(): WARN_ON_ONCE(!atomic_inc_not_zero(&epc->refcount)).
// kernel/events/core.c: get_pmu_ctx()
func (k *Kernel) getPMUCtx(epc *PMUContext, where string) {
	k.epcUse(epc, where)
	if epc.refcount == 0 {
		if k.lifeOn() {
			p := k.here(where)
			k.lifeReport(p.cpu, fmt.Sprintf("WARNING: get_pmu_ctx(): atomic_inc_not_zero() failed: %s has no reference left (last dropped by %s); taken by %s",
				epc, epc.put, p))
		}
		return
	}
	epc.refcount++
	if k.lifeOn() {
		k.mark(&epc.get, where)
	}
}

// putPMUCtx is put_pmu_ctx(): the last reference, under ctx->lock, unlinks
// the epc and queues a task epc's free after a grace period (a CPU
// context's is embedded: call_rcu(free_cpc_rcu) frees the perf_cpu_pmu_context,
// which only the pmu's own reference, never dropped here, can do).
// kernel/events/core.c: put_pmu_ctx()
func (k *Kernel) putPMUCtx(epc *PMUContext, where string) {
	if epc == nil {
		return
	}
	k.epcUse(epc, where)
	ctx := epc.ctx // struct perf_event_context *ctx = epc->ctx;
	if epc.refcount <= 0 {
		// An atomic_t: no refcount_t saturation; the count goes negative.
		if k.lifeOn() {
			k.refcountUnderflowReport(epc.String(), where, epc.put)
		}
		epc.refcount--
		return
	}
	c := k.curCPU()
	if k.pmuCtxSerializeOld() {
		epc.refcount-- // atomic_dec_and_test(&epc->refcount), no lock held
		if k.lifeOn() {
			k.mark(&epc.put, where)
		}
		if epc.refcount != 0 {
			return
		}
		c.Step("put_pmu_ctx:dec_and_test")
		if epc.ctx == nil { // "if (epc->ctx)": unlinked by a put that raced with us
			return
		}
		ctx = epc.ctx
		f := c.LocalIrqSave()
		k.ctxLock(c, ctx)
		k.epcUnlink(epc, ctx)
		k.ctxUnlock(c, ctx)
		c.LocalIrqRestore(f)
		k.epcFree(epc)
		return
	}
	// atomic_dec_and_raw_lock_irqsave(): "Subtract 1 from counter unless that
	// drops it to 0 (ie. it was 1)", else lock and decrement.
	if epc.refcount > 1 {
		epc.refcount--
		if k.lifeOn() {
			k.mark(&epc.put, where)
		}
		return
	}
	f := c.LocalIrqSave()
	k.ctxLock(c, ctx)
	epc.refcount--
	if k.lifeOn() {
		k.mark(&epc.put, where)
	}
	if epc.refcount != 0 {
		k.ctxUnlock(c, ctx)
		c.LocalIrqRestore(f)
		return
	}
	k.epcUnlink(epc, ctx)
	k.ctxUnlock(c, ctx)
	c.LocalIrqRestore(f)
	k.epcFree(epc)
}

// epcUnlink is list_del_init(&epc->pmu_ctx_entry); epc->ctx = NULL.
func (k *Kernel) epcUnlink(epc *PMUContext, ctx *Context) {
	if epc.ctx == nil && k.lifeOn() { // WARN_ON_ONCE(list_empty(&epc->pmu_ctx_entry)): epc->ctx and the entry go together
		p := k.here("put_pmu_ctx")
		k.lifeReport(p.cpu, fmt.Sprintf("WARNING: put_pmu_ctx(): %s is not on ctx->pmu_ctx_list (list_empty(&epc->pmu_ctx_entry)) at its last put by %s", epc, p))
	}
	ctx.pmuCtxList = slices.DeleteFunc(ctx.pmuCtxList, func(x *PMUContext) bool { return x == epc })
	epc.ctx = nil
}

// epcFree is the end of put_pmu_ctx(): a task epc is freed a grace period
// later (call_rcu(&epc->rcu_head, free_epc_rcu)); an embedded one stays.
func (k *Kernel) epcFree(epc *PMUContext) {
	if epc.embedded {
		return
	}
	epc.freeQueued, epc.freedAt = true, k.now()+rcuGracePeriod
	k.epcStats.freed++
}

// refcountUnderflowReport reports obj's count dropped below 0 by op without
// stopping the run (an atomic_t: the kernel goes on with a corrupt count).
func (k *Kernel) refcountUnderflowReport(obj, op string, last lifePoint) {
	p := k.here(op)
	k.lifeReport(p.cpu, fmt.Sprintf("refcount underflow: %s dropped below 0 by %s; it went to 0 at %s", obj, p, last))
}

// lifeCheckEpcs is the end check of perf_event_pmu_contexts: each live one
// holds exactly one reference per event whose event->pmu_ctx it is, plus the
// pmu's own for a linked CPU epc; and it is on its context's list.
func (k *Kernel) lifeCheckEpcs(bad func(format string, args ...any)) {
	held := map[*PMUContext]int32{}
	for _, e := range k.events {
		if !e.life.freeQueued && e.pmuCtx != nil {
			held[e.pmuCtx]++
		}
	}
	old := k.pmuCtxSerializeOld()
	for _, epc := range k.epcs {
		if epc.freeQueued {
			continue
		}
		n := held[epc]
		if epc.embedded && epc.ctx != nil && !old {
			n++ // the pmu's reference (perf_pmu_free())
		}
		if epc.refcount == n && (n == 0 || epc.ctx != nil) {
			continue
		}
		kind := "unreferenced object (leak)"
		switch {
		case epc.refcount < n:
			kind = "refcount below its holders"
		case epc.refcount == n:
			kind = "unlinked while held"
		}
		bad("%s: %s has refcount %d at the end, %d held (events, the pmu), on ctx->pmu_ctx_list: %v; last reference taken by %s, last dropped by %s",
			kind, epc, epc.refcount, n, epc.ctx != nil, epc.get, epc.put)
	}
}

// taskLife is the references perf holds on a task_struct (tsk->usage):
// get_task_struct() by find_lively_task_by_vpid() (sys_perf_event_open()'s
// own, dropped before it returns), perf_event_alloc() (event->hw.target,
// dropped by __free_event()) and alloc_perf_context() (ctx->task, dropped by
// perf_event_exit_task_context() when it tombstones the context, or by the
// context's last put_ctx() if it never did).
type taskLife struct {
	refs     int32
	get, put lifePoint
}

// taskLifeOf is t's record, made on first use.
func (k *Kernel) taskLifeOf(t *sched.Task) *taskLife {
	if t == k.lastTask && t != nil {
		return k.lastTaskLife
	}
	if k.taskRefs == nil {
		k.taskRefs = map[*sched.Task]*taskLife{}
	}
	l := k.taskRefs[t]
	if l == nil {
		l = &taskLife{}
		k.taskRefs[t] = l
		k.taskOrder = append(k.taskOrder, t)
	}
	k.lastTask, k.lastTaskLife = t, l
	return l
}

// getTaskStruct is get_task_struct(t): refcount_inc(&t->usage). A reaped
// task no perf reference kept is freed memory (delayed_put_task_struct()
// dropped its last usage).
// include/linux/sched/task.h: get_task_struct()
func (k *Kernel) getTaskStruct(t *sched.Task, where string) {
	if t == nil || !k.lifeOn() {
		return
	}
	k.taskUse(t, where)
	l := k.taskLifeOf(t)
	if l.refs == 0 && t.Reaped() {
		k.refcountAddOnZero(fmt.Sprintf("the usage of the task_struct of %s (reaped, its last reference dropped by %s)", t, l.put), where)
	}
	l.refs++
	k.mark(&l.get, where)
}

// taskUse is KASAN on a task_struct a failed fork freed
// (copy_process()'s delayed_free_task()).
func (k *Kernel) taskUse(t *sched.Task, where string) {
	if f := k.freedTasks[t]; f != nil && k.lifeOn() {
		use := k.here(where)
		k.lifeOops(fmt.Sprintf("BUG: KASAN: slab-use-after-free in %s: the task_struct of %s (a fork that failed) freed by free_task() at %s; used by %s",
			where, t, f.at, use))
	}
}

// lifeCheckTasks is the end check of the task references perf holds: one
// per live event with event->hw.target, one per context whose ctx->task was
// not tombstoned (a context never torn down), none left by an open.
func (k *Kernel) lifeCheckTasks(bad func(format string, args ...any)) {
	held := map[*sched.Task]int32{}
	for _, e := range k.events {
		if e.life.targetRef {
			held[e.hw.target]++
		}
	}
	for _, ctx := range k.ctxs {
		if ctx.life.taskRef {
			held[ctx.task]++
		}
	}
	for _, t := range k.taskOrder {
		l := k.taskRefs[t]
		n := held[t]
		if l.refs == n {
			continue
		}
		kind := "unreferenced object (leak)"
		if l.refs < n {
			kind = "refcount below its holders"
		}
		bad("%s: perf holds %d references on the task_struct of %s at the end, %d held (events' hw.target, contexts' task); last taken by %s, last dropped by %s",
			kind, l.refs, t, n, l.get, l.put)
	}
}

// pmuCtxSerializeOld reports pmu-ctx-serialize=pre-4f64a6c9f6f1.
func (k *Kernel) pmuCtxSerializeOld() bool {
	return k.KnobIs(pmuCtxSerializeKnob.Name, "pre-4f64a6c9f6f1")
}

// lifeEpc records a new epc for the end's check (lifeCheckEpcs), when the
// oracle is on.
func (k *Kernel) lifeEpc(epc *PMUContext) {
	if k.lifeOn() {
		k.epcs = append(k.epcs, epc)
	}
}

// perfEventPutTarget is __free_event()'s put_task_struct(event->hw.target)
// of perfEventGetTarget's reference.
func (k *Kernel) perfEventPutTarget(e *Event) {
	if e.life.targetRef {
		e.life.targetRef = false
		k.putTaskStruct(e.hw.target, "_free_event")
	}
}

// perfEventGetTarget is perf_event_alloc()'s reference on the target task.
// kernel/events/core.c: perf_event_alloc(): event->hw.target = get_task_struct(task)
func (k *Kernel) perfEventGetTarget(e *Event) {
	if e.hw.target == nil || !k.lifeOn() {
		return
	}
	k.getTaskStruct(e.hw.target, "perf_event_alloc")
	e.life.targetRef = true
}

// openPMUContext is sys_perf_event_open()'s choice of the pmu and
// find_get_pmu_context(): a software event joining a group on a hardware
// context goes to the leader's pmu_ctx; a hardware event joining a software
// group moves the group (returns true).
// kernel/events/core.c: sys_perf_event_open(): pmu_ctx = find_get_pmu_context(pmu, ctx, event)
func (k *Kernel) openPMUContext(e, leader *Event, ctx *Context) (moveGroup bool) {
	p := e.pmu
	if leader != nil && leader.pmuCtx != nil {
		switch {
		case e.pmu.base().isSoftware && !leader.pmuCtx.pmu.base().isSoftware:
			p = leader.pmuCtx.pmu // "pmu = group_leader->pmu_ctx->pmu"
		case !e.pmu.base().isSoftware && leader.allSoftware():
			moveGroup = true
		}
	}
	e.pmuCtx = k.findGetPMUContext(p, ctx, e)
	return moveGroup
}

// moveGroupPMUContext is move_group's pmu_ctx part: each member leaves its
// pmu_ctx (put_pmu_ctx()) and takes a reference on the new one.
// kernel/events/core.c: sys_perf_event_open(): if (move_group) { ... put_pmu_ctx(); ... get_pmu_ctx(pmu_ctx) }
func (k *Kernel) moveGroupPMUContext(leader *Event, epc *PMUContext) {
	members := append([]*Event{leader}, leader.siblings...)
	for _, m := range members {
		k.putPMUCtx(m.pmuCtx, "perf_event_open")
	}
	for _, m := range members {
		m.pmuCtx = epc
		k.getPMUCtx(epc, "perf_event_open")
	}
}
