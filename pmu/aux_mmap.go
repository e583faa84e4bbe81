package pmu

import (
	"fmt"

	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// perfMmapAuxArea maps the AUX area of e's buffer: the offset and size user space
// wrote into the user page must match the mapping, an existing area must have the
// same offset and size, the size must be a power of two, and the data mapping
// must still be there (rb->mmap_count). A read-only mapping makes the area an
// overwrite (snapshot) one. The caller holds e's mmap_mutex; today the checks,
// the allocation and aux_mmap_count are under rb->aux_mutex too, since several
// events may share the buffer (knob aux-mutex).
// kernel/events/core.c: perf_mmap_aux()
func (k *Kernel) perfMmapAuxArea(t *sched.Task, e *Event, pgoff uint64, nrPages int, prot Prot) error {
	buf := e.rb
	bs := k.bufs[buf]
	old := k.auxMutexOld()
	var mu *sched.Mutex
	if bs != nil {
		mu = &bs.auxMutex
	}
	k.accessMmapAuxLock(t, e, mu, old) // footprint_mmap_aux.go
	if buf == nil {
		return uapi.EINVAL
	}
	k.rbUse(buf, "perf_mmap_aux")
	if bs == nil {
		return uapi.EINVAL
	}
	if old {
		return k.perfMmapAuxLocked(t, e, bs, pgoff, nrPages, prot, true)
	}
	k.lockCounted(t, &bs.auxMutex) // guard(mutex)(&rb->aux_mutex)
	n := bs.auxMutex.Contended
	err := k.perfMmapAuxLocked(t, e, bs, pgoff, nrPages, prot, false)
	k.accessMmapAuxUnlock(t, buf, &bs.auxMutex, n) // footprint_mmap_aux.go
	k.S.MutexUnlock(t, &bs.auxMutex)
	return err
}

// perfMmapAuxLocked is the body of perf_mmap_aux() under its locks; old is
// the code before 2ab9d830262c.
func (k *Kernel) perfMmapAuxLocked(t *sched.Task, e *Event, bs *bufState, pgoff uint64, nrPages int, prot Prot, old bool) error {
	buf := e.rb
	if !old {
		k.accessMmapAuxChecks(t, buf) // footprint_mmap_aux.go: up to the has-aux step
	}
	auxOffset := buf.User.AuxOffset // READ_ONCE(rb->user_page->aux_offset)
	auxSize := buf.User.AuxSize
	if auxOffset < buf.DataSize()+PageSize {
		return uapi.EINVAL
	}
	if auxOffset != pgoff*PageSize {
		return uapi.EINVAL
	}
	// "Already mapped with a different offset"
	if buf.HasAux() && buf.AuxPgoff() != pgoff {
		return uapi.EINVAL
	}
	if auxSize != uint64(nrPages)*PageSize {
		return uapi.EINVAL
	}
	// "Already mapped with a different size"
	if buf.HasAux() && buf.AuxNrPages() != nrPages {
		return uapi.EINVAL
	}
	if nrPages == 0 || nrPages&(nrPages-1) != 0 { // !is_power_of_2(nr_pages)
		return uapi.EINVAL
	}
	if !old {
		k.accessMmapAuxCount(t, buf) // footprint_mmap_aux.go
	}
	if bs.mmapCount <= 0 { // !refcount_inc_not_zero(&rb->mmap_count)
		return uapi.EINVAL
	}
	bs.mmapCount++
	t.Step("perf_mmap_aux:has-aux")
	k.accessMmapAuxHasAux(t, buf, old) // footprint_mmap_aux.go
	if buf.HasAux() {
		if buf.AuxMmapCount() == 0 && !old {
			// The last AUX munmap is tearing the area down: under
			// rb->aux_mutex this cannot be seen. Before 2ab9d830262c,
			// atomic_inc() took the count from 0, silently, on pages
			// about to be freed.
			k.refcountWarn(fmt.Sprintf("rb->aux_mmap_count of the buffer event %d maps", e.id), "perf_mmap_aux")
		}
		buf.AuxMmapSet(buf.AuxMmapCount() + 1) // refcount_inc(&rb->aux_mmap_count)
		if !old {
			// perf_mmap_account(vma, user_extra = nr_pages, 0): charged again,
			// uncharged once by the teardown, since 0c8a4e4139ad (as for the
			// data area, mmap.go; knob mmap-extra-account)
			charge := k.extraMmapCharge(int64(nrPages))
			k.mlockedPages += charge
			k.mm.extraCharged += charge
		}
	} else {
		if old {
			// atomic_set(&rb->aux_mmap_count, 1) before the limits and the
			// allocation, and left set when either fails (until 5468c0fbccbb)
			buf.AuxMmapSet(1)
		}
		mm := k.mmOf(t)
		extra, err := k.perfMmapCalcLimits(mm, int64(nrPages))
		if err != nil {
			k.accessMmapAuxUndo(t, buf) // footprint_mmap_aux.go
			bs.mmapCount--
			return uapi.EPERM
		}
		flags := 0
		if prot&ProtWrite != 0 {
			flags = rb.RingBufferWritable
		}
		ops := &rb.AuxOps{FreeAux: e.pmu.FreeAux}
		_, snap := e.pmu.(AuxSnapshotter)
		d, _ := e.pmu.(AuxDescriber)
		ops.NoSnapshotAux, ops.Described = !snap, d != nil && d.AuxDescribed()
		ops.Lazy = true // a PMU's SetupAux gets no pages: it writes through the rb
		if e.pmu.HasAux() {
			ops.SetupAux = func(data []byte, n int, overwrite bool) any {
				priv, err := e.pmu.SetupAux(e, n, overwrite)
				if err != nil {
					return nil
				}
				return priv
			}
		}
		t.Step("rb_alloc_aux")          // GFP_KERNEL page allocations: may sleep
		k.accessMmapAuxAlloc(t, e, old) // footprint_mmap_aux.go: the driver's setup_aux (rb annotates rb_alloc_aux())
		if k.shouldFail(t, "rb_alloc_aux") {
			err = uapi.ENOMEM // rb_alloc_aux(): kcalloc_node() of rb->aux_pages failed, before the driver's setup_aux()
		} else {
			err = buf.AllocAux(ops, pgoff, nrPages, int64(e.Attr.AuxWatermark), flags)
		}
		if err != nil {
			k.accessMmapAuxUndo(t, buf) // footprint_mmap_aux.go
			bs.mmapCount--
			return uapi.Errno(err.(uapi.Errno))
		}
		// rb_alloc_aux(): its pages come zeroed (__GFP_ZERO) as rb_alloc()'s
		// do, so each costs what a data page does (cost.Profile.RbAllocPerPage;
		// not measured here: this machine has no AUX PMU). The driver's
		// setup_aux() (intel_pt's ToPA tables) costs nothing in the model.
		t.Spend(sim.Duration(nrPages) * k.S.Cfg.Cost.RbAllocPerPage)
		if !old {
			k.accessMmapAuxAllocated(t, buf) // footprint_mmap_aux.go
			buf.AuxMmapSet(1)                // refcount_set(&rb->aux_mmap_count, 1)
		}
		bs.auxUserExtra = int64(nrPages) - extra
		bs.auxExtra = extra
		bs.auxPMU = e.pmu // whose free_aux() rb_free_aux() calls (footprint_munmap.go)
		bs.auxMM = mm
		k.mlockedPages += bs.auxUserExtra
		k.chargePinned(bs.auxMM, bs.auxExtra)
	}
	buf.AuxMapped(true)
	if !old {
		k.accessMmapAuxEventCount(t, e) // footprint_mmap_aux.go
	}
	switch {
	case e.mmapCount == refcountSaturated:
	case e.mmapCount == 0 && !old:
		// A redirected event (SET_OUTPUT) maps the AUX area of the buffer
		// it shares: perf_mmap_aux() has no -EBUSY test like
		// perf_mmap_rb()'s (d06bf78e55d5), so refcount_inc() warns and
		// saturates event->mmap_count (an atomic_t until 448f97fba901).
		k.refcountWarn(fmt.Sprintf("event->mmap_count of event %d", e.id), "perf_mmap_aux")
		e.mmapCount = refcountSaturated
	default:
		e.mmapCount++ // refcount_inc(&event->mmap_count)
	}
	return nil
}

// perfMmapCloseAux is the AUX part of perf_mmap_close() for an AUX mapping: the
// last AUX unmap stops every AUX writer of the buffer (perf_pmu_output_stop) so
// that their transactions drop aux_refcount, then drops the last reference
// itself: the pages are freed here, never from an NMI (95ff4ca26c49). Today
// rb->aux_mutex covers the teardown; before 2ab9d830262c it was the mmap_mutex
// of the event behind this mapping, which an AUX mmap through another event
// sharing the buffer does not take (knob aux-mutex).
// kernel/events/core.c: perf_mmap_close()
func (k *Kernel) perfMmapCloseAux(t *sched.Task, m *Mapping, pgoff uint64) error {
	buf := m.RB
	bs := k.bufs[buf]
	k.accessMmapCloseAuxTest(t, buf)                           // footprint_munmap.go
	if !buf.HasAux() || pgoff != buf.AuxPgoff() || bs == nil { // vma->vm_pgoff == rb->aux_pgoff
		return nil
	}
	// refcount_dec_and_mutex_lock(&rb->aux_mmap_count, &rb->aux_mutex)
	k.accessAuxMmapCountDec(t, buf)
	if n := buf.AuxMmapCount(); n != 1 {
		buf.AuxMmapSet(n - 1)
		return nil
	}
	mu := &bs.auxMutex
	if k.auxMutexOld() {
		k.markSetup(t, "perf_mmap_close (aux-mutex=pre-2ab9d830262c)") // the old lock: not annotated
		mu = &m.ev.mmapMutex                                           // atomic_dec_and_mutex_lock(&rb->aux_mmap_count, &event->mmap_mutex)
	}
	k.accessAuxMutex(t, buf, mu, true, 0)
	k.lockCounted(t, mu)
	held := mu.Contended
	if !buf.AuxMmapDec() {
		k.accessAuxMutex(t, buf, mu, false, held)
		k.S.MutexUnlock(t, mu)
		return nil
	}
	t.Step("perf_mmap_close:aux_mmap_count-zero")
	old := buf.Knobs.OldAuxFree // before 57ffc5ca679f: the writers go on
	if old || k.auxMutexOld() {
		k.markSetup(t, "perf_mmap_close (aux-free=pre-57ffc5ca679f or aux-mutex=pre-2ab9d830262c)") // the old teardown: not annotated
	}
	if !old {
		k.perfPMUOutputStop(t, buf)
	}
	k.accessLockedVM(t, cpu.AtomicAdd, "perf_mmap_close")                            // kernel/events/core.c: perf_mmap_close(): atomic_long_sub(rb->aux_nr_pages - rb->aux_mmap_locked, &mmap_user->locked_vm); atomic64_sub(rb->aux_mmap_locked, &vma->vm_mm->pinned_vm)
	k.accessBufState(buf, "rb->aux_mmap_locked", cpu.MarkedWrite, "perf_mmap_close") // the model clears its record of the AUX area's charges (rb->aux_mmap_locked)
	k.mlockedPages -= bs.auxUserExtra
	k.unchargePinned(t, m.mm, bs.auxMM, bs.auxExtra, m.ev, true)
	bs.auxUserExtra, bs.auxExtra = 0, 0
	// "this has to be the last one"
	k.accessRBFreeAux(t, buf, bs)
	err := buf.FreeAux(false)
	if err == nil && !buf.HasAux() {
		k.mm.auxFrees++ // the pages went here, not later from a writer
	}
	if err == nil && buf.AuxRefcount() != 0 && !old { // WARN_ON_ONCE(refcount_read(&rb->aux_refcount))
		k.aux.stats.auxWarn++
	}
	k.accessAuxMutex(t, buf, mu, false, held)
	k.S.MutexUnlock(t, mu)
	return err
}

// lockCounted takes an mmap path's mutex, counting the times it had to sleep
// for rb->aux_mutex.
func (k *Kernel) lockCounted(t *sched.Task, mu *sched.Mutex) {
	n := mu.Contended
	k.S.MutexLock(t, mu)
	if mu.Contended != n && mu.Name == "rb->aux_mutex" {
		k.mmapStats.auxMutexWaits++
	}
}

// perfPMUOutputStop stops, without restarting, every ACTIVE AUX event that
// writes into buf, an inherited event's children included: for each event on
// rb->event_list, a cross-call to its CPU (event->cpu, or for a task event
// the CPU it runs on, none when it runs nowhere) stops there every AUX event
// of the CPU's context and of the task context scheduled in whose parent's
// (or own) rb is buf. A call that finds such an event ACTIVE on another CPU
// (-EAGAIN) starts the list again: a round of a retry loop (step point
// perf_pmu_output_stop:retry, a soft-lockup round).
// kernel/events/core.c: perf_pmu_output_stop()
func (k *Kernel) perfPMUOutputStop(t *sched.Task, buf *rb.Buffer) {
	bs := k.bufs[buf]
	if bs == nil {
		return
	}
	start := k.now()
restart:
	round := k.now()
	k.accessBufState(buf, "rb->event_list", cpu.MarkedRead, "perf_pmu_output_stop") // kernel/events/core.c: perf_pmu_output_stop(): list_for_each_entry_rcu(iter, &event->rb->event_list, rb_entry)
	for _, iter := range append([]*Event(nil), bs.eventList...) {                   // list_for_each_entry_rcu(iter, &event->rb->event_list, rb_entry)
		k.accessOutputStopIter(t, iter)
		where := iter.cpu
		if where == -1 {
			where = iter.oncpu // READ_ONCE(iter->oncpu)
		}
		if where == -1 {
			continue
		}
		k.markSetup(t, "cpu_function_call(__perf_pmu_output_stop)") // the cross-call, its wait and its return: not annotated here
		if k.cpuFunctionCall(t, where, func(c *cpu.CPU) error { return k.__perfPMUOutputStop(c, buf) }) == uapi.EAGAIN {
			k.stats.outputStopRetries++
			k.retryRound(t, "perf_pmu_output_stop:retry", start, round, func() string {
				return fmt.Sprintf("perf_pmu_output_stop(): the cross-call to cpu%d found an AUX event of the buffer ACTIVE on another CPU (-EAGAIN), "+
					"on every round since %s", where, start)
			})
			goto restart
		}
	}
}

// __perfPMUOutputStop is perf_pmu_output_stop()'s cross-call: on c, every AUX
// event of its CPU context and of its task context (INACTIVE or ACTIVE, that
// may run on c) whose parent's (or own) rb is buf is stopped by
// __perf_event_stop(); the last one's result is the call's.
// kernel/events/core.c: __perf_pmu_output_stop() -> perf_iterate_ctx() -> __perf_event_output_stop()
func (k *Kernel) __perfPMUOutputStop(c *cpu.CPU, buf *rb.Buffer) error {
	var err error
	iter := func(ctx *Context) {
		for _, e := range append([]*Event(nil), ctx.events...) { // perf_iterate_ctx(ctx, ..., false)
			if e.state < StateInactive || !eventFilterMatch(e, c) {
				continue
			}
			if !e.pmu.HasAux() { // __perf_event_output_stop(): has_aux(event)
				continue
			}
			parent := e.parent
			if parent == nil {
				parent = e
			}
			if parent.rb == buf { // rcu_dereference(parent->rb) == rb
				err = k.__perfEventStop(c, e, false)
			}
		}
	}
	cc := &k.cpuCtx[c.ID]
	iter(&cc.ctx)
	if cc.taskCtx != nil {
		iter(cc.taskCtx)
	}
	return err
}

func init() {
	RegisterObservable("funccall.output-stop-eagain", "perf_pmu_output_stop() rounds whose cross-call found an AUX event of the unmapped buffer ACTIVE on another CPU "+
		"(__perf_event_stop(): -EAGAIN) and started the buffer's event list again (step point perf_pmu_output_stop:retry)",
		func(k *Kernel) int64 { return int64(k.stats.outputStopRetries) })
}
