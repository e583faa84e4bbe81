package pmu

import (
	"fmt"

	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/uapi"
)

// bufState is the part of struct perf_buffer that rb.Buffer leaves to the
// core: mmap_count and the list of events writing into the buffer.
type bufState struct {
	mmapCount int      // rb->mmap_count
	eventList []*Event // rb->event_list
	userExtra int64    // pages charged to user->locked_vm (rb->mmap_user)
	extra     int64    // pages charged to mm->pinned_vm (rb->mmap_locked)

	auxUserExtra, auxExtra int64 // the AUX area's charges (rb->aux_mmap_locked)
	// The mms whose pinned_vm the data ring's and the AUX area's first
	// mappings charged (extra, auxExtra): the kernel does not keep them (it
	// uncharges vma->vm_mm); the proposed fix of knob mmap-pinned-mm does.
	mmapMM, auxMM *mmStruct
	auxPMU        PMU // the PMU whose setup_aux() made the AUX area (rb->free_aux)

	auxMutex sched.Mutex // rb->aux_mutex (2ab9d830262c)
}

// rlimitMemlockPages is RLIMIT_MEMLOCK's default (8 MiB) in pages.
const rlimitMemlockPages = 8 << 20 / PageSize

// Mmap maps a perf fd: pgoff 0 maps the user page and the data pages (1+2^n
// pages), a read-only mapping making an overwrite buffer; pgoff != 0 is the
// AUX area (not modelled yet).
// kernel/events/core.c: perf_mmap()
func (k *Kernel) Mmap(t *sched.Task, fd int, pgoff uint64, length uint64, prot Prot) (m *Mapping, err error) {
	// The body is annotated (footprint_setup.go), the AUX area's marked:
	// its entry's fragment may be complete.
	k.S.SyscallAnnotated(t, "mmap", func(t *sched.Task) {
		m, err = k.perfMmap(t, fd, pgoff, length, prot)
	})
	return m, err
}

func (k *Kernel) perfMmap(t *sched.Task, fd int, pgoff, length uint64, prot Prot) (*Mapping, error) {
	e, err := k.lookup(t, fd) // ksys_mmap_pgoff(): fget(fd)
	if err != nil {
		return nil, err
	}
	// The file reference fget() took pins the event for the whole call: a
	// close() of the fd meanwhile by another thread does not release it;
	// fput() after vm_mmap_pgoff() (and after mmap_lock is released).
	k.accessFileRef(t, e, true) // fs/file.c: fget(): the file's f_count
	e.fileRefs++
	defer k.fputMmap(t, e)
	// vm_mmap_pgoff(): mmap_write_lock_killable(mm); do_mmap() ->
	// mmap_region() -> perf_mmap() runs under it (mmap_lock.go).
	if k.mm.mms[t] == nil {
		k.accessMMAlloc(t, t) // the model's first mm of the task, made here (footprint_mm_alloc.go)
	}
	mm := k.mmOf(t)
	k.accessDownWrite(t, mm)
	k.mmapWriteLock(t, mm)
	defer k.upWriteMmap(t, mm, mm.mmapLock.Contended)
	// do_mmap() up to the driver's hook: get_unmapped_area(), the new VMA
	// (and the syscall's entry and exit: cost.Profile.PerfMmapBase); a
	// length perf_mmap() refuses costs it too
	t.Spend(k.S.Cfg.Cost.PerfMmapBase)
	// "Don't allow mmap() of inherited per-task counters. This would create
	// a performance issue due to all children writing to the same rb."
	if e.cpu == -1 && e.Attr.Inherit {
		return nil, uapi.EINVAL
	}
	if length == 0 {
		return nil, uapi.EINVAL // do_mmap()
	}
	nrPages := length / PageSize
	if nrPages > 1<<31-1 {
		return nil, uapi.ENOMEM
	}
	if length != PageSize*nrPages {
		return nil, uapi.EINVAL
	}
	oldAux := k.auxMutexOld()
	if pgoff != 0 && oldAux {
		k.accessEventSetup(t, e, "event->rb", cpu.MarkedRead, "perf_mmap") // before 2ab9d830262c: perf_mmap(): if (!event->rb) return -EINVAL (no lock held)
	}
	if pgoff != 0 && oldAux && e.rb == nil {
		return nil, uapi.EINVAL // before 2ab9d830262c: an unlocked test, checked again under the mutex
	}
	// scoped_guard (mutex, &event->mmap_mutex)
	n := k.lockMutex(t, &e.mmapMutex, e, "event->mmap_mutex", 0)
	t.Step("perf_mmap:mmap_mutex")
	var m *Mapping
	k.accessEventSetup(t, e, "event->state", cpu.MarkedRead, "perf_mmap") // kernel/events/core.c: perf_mmap(): if (event->state <= PERF_EVENT_STATE_REVOKED) return -ENODEV
	switch {
	case e.state <= StateRevoked:
		err = uapi.ENODEV
	case pgoff != 0:
		// the AUX area: annotated up to its has-aux step (footprint_mmap_aux.go)
		if err = k.perfMmapAuxArea(t, e, pgoff, int(nrPages), prot); err == nil {
			m = &Mapping{RB: e.rb, ev: e, Aux: true}
		}
	default:
		m, err = k.perfMmapRB(t, e, int(nrPages), prot)
	}
	// map_range(), and perf_mmap_close() when it fails, run under
	// event->mmap_mutex today (knob map-range-fail, map_range.go): the
	// mutex is held while it inserts the pages (their cost), and only a
	// fail line can make it fail.
	under := err == nil && k.mapRangeUnderMutex()
	if under {
		err = k.mapRange(t, e, m, pgoff, nrPages)
	}
	k.unlockMutex(t, &e.mmapMutex, e, "event->mmap_mutex", n)
	if err == nil && !under {
		err = k.mapRange(t, e, m, pgoff, nrPages)
	}
	if err != nil {
		return nil, err
	}
	m.FD, m.Pgoff, m.Length, m.Prot, m.task, m.mm = fd, pgoff, length, prot, t, mm
	k.accessFileRef(t, e, true)                                 // mm/vma.c: __mmap_new_file_vma(): vma->vm_file = get_file(map->file)
	e.fileRefs++                                                // the vma holds the file
	k.accessMM(t, mm, "mm->mm_mt", cpu.MarkedWrite, "vma_link") // mm/vma.c: __mmap_region(): the new vma in the mm's maple tree (mmap_lock held for write)
	mm.maps = append(mm.maps, m)
	k.lifeMapped(m)
	return m, nil
}

// perfMmapRB maps the data buffer: share the event's buffer when it already
// has one of the same size, else allocate and attach a new one.
// kernel/events/core.c: perf_mmap_rb()
func (k *Kernel) perfMmapRB(t *sched.Task, e *Event, nrPages int, prot Prot) (*Mapping, error) {
	userPages := int64(nrPages) // user_extra, counting the user page
	nrPages--
	// "If we have rb pages ensure they're a power-of-two number, so we can
	// do bitmasks instead of modulo."
	if nrPages != 0 && nrPages&(nrPages-1) != 0 {
		return nil, uapi.EINVAL
	}
	k.accessEventSetup(t, e, "event->rb", cpu.MarkedRead, "perf_mmap_rb") // kernel/events/core.c: perf_mmap_rb(): if (event->rb) (event->mmap_mutex held)
	if e.rb != nil {
		k.accessRB(e.rb, "rb->nr_pages", cpu.MarkedRead, "perf_mmap_rb") // kernel/events/core.c: perf_mmap_rb(): if (data_page_nr(event->rb) != nr_pages)
		if e.rb.NrPages() != nrPages {
			return nil, uapi.EINVAL
		}
		// An event whose output was redirected (SET_OUTPUT) shares another's
		// buffer; mapping it would take event->mmap_count from 0 (d06bf78e55d5).
		k.accessEventSetup(t, e, "event->mmap_count", cpu.MarkedRead, "perf_mmap_rb") // kernel/events/core.c: perf_mmap_rb(): if (refcount_inc_not_zero(&event->rb->mmap_count)) ... map_range() ... refcount_inc(&event->mmap_count)
		if e.mmapCount == 0 {
			return nil, uapi.EBUSY
		}
		k.accessBufState(e.rb, "rb->mmap_count", cpu.MarkedWrite, "perf_mmap_rb") // kernel/events/core.c: perf_mmap_rb(): refcount_inc_not_zero(&event->rb->mmap_count)
		if bs := k.bufs[e.rb]; bs != nil && bs.mmapCount > 0 {
			// "Success -- managed to mmap() the same buffer multiple times."
			// perf_mmap_account() charges the pages again, and only the last
			// perf_mmap_close() uncharges, once: a locked_vm leak per extra
			// mapping since 0c8a4e4139ad (knob mmap-extra-account).
			k.accessLockedVM(t, cpu.AtomicAdd, "perf_mmap_account")
			charge := k.extraMmapCharge(userPages)
			k.mlockedPages += charge
			k.mm.extraCharged += charge
			bs.mmapCount++
			k.accessEventSetup(t, e, "event->mmap_count", cpu.MarkedWrite, "perf_mmap_rb") // kernel/events/core.c: perf_mmap_rb(): refcount_inc(&event->mmap_count)
			if e.mmapCount != refcountSaturated {
				e.mmapCount++
			}
			return &Mapping{RB: e.rb, ev: e}, nil
		}
		// Raced against perf_mmap_close(): drop the stale reference.
		k.ringBufferAttach(e, nil)
	}
	k.accessLockedVM(t, cpu.MarkedRead, "perf_mmap_calc_limits")
	mm := k.mmOf(t)
	extra, err := k.perfMmapCalcLimits(mm, userPages)
	if err != nil {
		return nil, err
	}
	flags := 0
	if prot&ProtWrite != 0 {
		flags = rb.RingBufferWritable
	}
	var wm int64
	if e.Attr.Watermark {
		wm = int64(e.Attr.WakeupEvents) // wakeup_watermark
	}
	if k.shouldFail(t, "rb_alloc") {
		return nil, uapi.ENOMEM // rb_alloc() returned NULL: "if (!rb) return -ENOMEM;"
	}
	buf, err := rb.NewBuffer(nrPages, wm, flags)
	if err != nil {
		return nil, uapi.ENOMEM
	}
	t.Spend(k.S.Cfg.Cost.RbAlloc(nrPages + 1)) // rb_alloc(): a zeroed page for the user page and each data page (cost.Profile.RbAlloc*)
	buf.Knobs = k.Opts.Knobs.RB
	k.traceBuffer(buf, e)
	bs := &bufState{mmapCount: 1, userExtra: userPages - extra, extra: extra, mmapMM: mm}
	bs.auxMutex.Name = "rb->aux_mutex"
	k.accessNewBuffer(t)
	k.keyBuffer(buf, e, bs) // stable keys (footprint_key.go)
	k.bufs[buf] = bs
	k.accessLockedVM(t, cpu.AtomicAdd, "perf_mmap_account")
	k.mlockedPages += bs.userExtra
	k.chargePinned(mm, bs.extra)
	k.rbAlloc(buf, e)                 // the object-lifetime oracle (lifetime.go)
	k.ringBufferAttachRet(e, buf, "") // the return is annotated: up to the syscall's exit (footprint_setup.go)
	// perf_event_update_time() with event->mmap_mutex held but not ctx->lock,
	// while the event may be going in or out on its own CPU under ctx->lock
	// (perf_event_set_state()): the data race syzbot's KCSAN reported on
	// today's kernel (knob mmap-update-time). The user page that
	// perf_event_init_userpage() and perf_event_update_userpage() fill next
	// has no times in the model.
	k.accessEventSetup(t, e, "event->state", cpu.MarkedRead, "perf_event_update_time") // kernel/events/core.c: perf_event_update_time(): __perf_update_times() reads event->state
	k.perfMmapRBUpdateTime(e)
	k.accessEventSetup(t, e, "event->mmap_count", cpu.MarkedWrite, "perf_mmap_rb") // kernel/events/core.c: perf_mmap_rb(): refcount_set(&event->mmap_count, 1)
	k.perfMmapRBSetCount(e)
	k.stats.mmaps++
	return &Mapping{RB: buf, ev: e}, nil
}

// perfMmapCalcLimits charges the pages to the user's perf_event_mlock_kb
// allowance (per online CPU), the excess to RLIMIT_MEMLOCK, which an unprivileged
// user may not exceed.
// kernel/events/core.c: perf_mmap_calc_limits()
func (k *Kernel) perfMmapCalcLimits(mm *mmStruct, userExtra int64) (int64, error) {
	sys := k.Opts.Sysctl
	limit := int64(sys.MlockKB) / (PageSize / 1024) * int64(k.S.NumOnlineCPUs())
	// "sysctl_perf_event_mlock may have changed, so that user->locked_vm >
	// user_lock_limit" (or a leak put it there): the charge counts from the
	// limit, so the excess is at most the mapping's pages
	locked := min(k.mlockedPages, limit) + userExtra
	var extra int64
	if locked > limit {
		extra = locked - limit
	}
	// locked = atomic64_read(&vma->vm_mm->pinned_vm) + *extra: the
	// mapping mm's own count, below zero after a close took another mm's
	// charge from it (knob mmap-pinned-mm)
	if k.pinnedVM[mm]+extra > rlimitMemlockPages && sys.Paranoid > -1 && !sys.PerfmonCapable {
		return 0, uapi.EPERM
	}
	return extra, nil
}

// ringBufferAttach points event->rb at buf (or nil), moving the event between
// the buffers' event lists and dropping the old buffer's reference; a waiter
// that may have missed a wakeup is woken. The caller's code after it is
// marked where the call returns (footprint_setup.go).
// kernel/events/core.c: ring_buffer_attach()
func (k *Kernel) ringBufferAttach(e *Event, buf *rb.Buffer) {
	k.ringBufferAttachRet(e, buf, "ring_buffer_attach's caller")
}

// ringBufferAttachRet is ringBufferAttach, whose return into its caller is
// marked as reaching code nobody annotated, ret ("": the caller's code up
// to its next step point is annotated).
func (k *Kernel) ringBufferAttachRet(e *Event, buf *rb.Buffer, ret string) {
	c := k.curCPU()
	fp := k.M.FootprintListening() && c != nil
	if fp {
		c.AccessMarkedOnly(e, "event->rb", cpu.MarkedRead, "ring_buffer_attach") // kernel/events/core.c: ring_buffer_attach(): if (event->rb)
	}
	old := e.rb
	if old != nil {
		k.accessBufState(old, "rb->event_list", cpu.MarkedWrite, "ring_buffer_attach") // kernel/events/core.c: ring_buffer_attach(): spin_lock_irqsave(&old_rb->event_lock); list_del_rcu(&event->rb_entry)
		if bs := k.bufs[old]; bs != nil {
			bs.eventList = remove(bs.eventList, e)
		}
	}
	if buf != nil {
		k.accessBufState(buf, "rb->event_list", cpu.MarkedWrite, "ring_buffer_attach") // kernel/events/core.c: ring_buffer_attach(): spin_lock_irqsave(&rb->event_lock); list_add_rcu(&event->rb_entry, &rb->event_list)
		bs := k.bufs[buf]
		bs.eventList = append(bs.eventList, e)
	}
	// "Avoid racing with perf_mmap_close(AUX): stop the event before
	// swizzling the event::rb pointer; if it's getting unmapped, its
	// aux_mmap_count will be 0 and it won't restart."
	if e.pmu.HasAux() {
		if fp {
			c.AccessMarkedOnly(e, "event->state", cpu.MarkedRead, "perf_event_stop") // kernel/events/core.c: perf_event_stop(): if (READ_ONCE(event->state) != PERF_EVENT_STATE_ACTIVE) return 0
			if e.state == StateActive {
				c.Unaudited("perf_event_stop") // the cross-call to the event's CPU: core_funccall.go's
			}
		}
		if c := k.curCPU(); c != nil {
			if t := sched.TaskOf(c.Curr()); t != nil && c.Context() == cpu.CtxTask {
				k.perfEventStop(t, e, false)
			}
		}
	}
	if c := k.curCPU(); c != nil {
		c.Step("ring_buffer_attach:rb-set") // the event is on the new rb's list; event->rb changes next
	}
	c = k.curCPU()
	fp = k.M.FootprintListening() && c != nil
	if fp {
		c.AccessMarkedOnly(e, "event->rb", cpu.MarkedWrite, "ring_buffer_attach") // kernel/events/core.c: ring_buffer_attach(): rcu_assign_pointer(event->rb, rb)
	}
	e.rb = buf // rcu_assign_pointer(event->rb, rb)
	if old != nil {
		k.accessRBPut(old)
		k.ringBufferPut(old)
		if fp {
			c.AccessMarkedOnly(e, "event->waitq", cpu.MarkedRead, "wake_up_all") // kernel/events/core.c: ring_buffer_attach(): wake_up_all(&event->waitq)
			if len(e.pollers) > 0 {
				c.Unaudited("__wake_up") // the pollers woken: try_to_wake_up(), the scheduler's
			}
		}
		e.wakeUpAll(false)
	}
	if fp && ret != "" {
		c.Unaudited(ret)
	}
}

// ringBufferPut drops a reference; the last one frees the buffer. Dropping
// one that is not held is a refcount underflow: an oops.
// kernel/events/core.c: ring_buffer_put()
func (k *Kernel) ringBufferPut(buf *rb.Buffer) {
	if buf != nil && buf.Refcount() <= 0 {
		k.rbPutUnderflow(buf)
	}
	freed, err := buf.Put()
	if err != nil {
		panicCrash("%v", err)
	}
	k.rbPut(buf, freed)
	if freed {
		delete(k.bufs, buf) // call_rcu(rb_free_rcu)
	}
}

// perfMmapClose is vm_ops->close for the piece of m at pgoff (the whole
// mapping unless a partial munmap split it, mmap_split.go), called once per
// VMA: munmap() detached it from its mm under mmap_lock (mmap_lock.go).
// kernel/events/core.c: perf_mmap_close()
func (k *Kernel) perfMmapClose(t *sched.Task, m *Mapping, pgoff uint64) {
	k.perfMmapCloseFrom(t, m, pgoff, false, false)
}

// perfMmapCloseFrom is perfMmapClose; callerAudited says its caller
// annotates its code after the return (munmap()'s: footprint_munmap.go),
// which is otherwise marked; held says the caller holds event->mmap_mutex
// and the close must not take it again (knob map-range-fail=proposed:
// perf_mmap()'s undo under its scoped_guard).
func (k *Kernel) perfMmapCloseFrom(t *sched.Task, m *Mapping, pgoff uint64, callerAudited, held bool) {
	e := m.ev
	k.accessMmapCloseGet(t, e) // footprint_munmap.go: up to the first step point
	buf := e.rb                // ring_buffer_get(event)
	if buf == nil {
		// The event lost its buffer while this VMA maps it: the close of
		// the last mapping in another process detached the buffer a racing
		// perf_mmap() had just attached, over the count the close held
		// (since 59741451b49c, built-in mmap-vs-last-munmap), or a failed
		// perf_mmap()'s undo did, before 77de62ad3de3 (CVE-2026-23248,
		// built-in mmap-fail-vs-mmap).
		panicCrash("BUG: kernel NULL pointer dereference in perf_mmap_close: ring_buffer_get(event) is NULL (rb->mmap_user)")
	}
	if buf != m.RB {
		// The event was redirected (SET_OUTPUT is refused while mapped), or
		// a VMA was closed twice: neither can happen in the kernel, where
		// vma->vm_file pins the event and munmap() detaches a VMA once.
		panicCrash("perf_mmap_close: event->rb is not the mapped buffer")
	}
	k.rbUse(buf, "perf_mmap_close")
	k.mm.closes++
	if m.Aux {
		buf.AuxMapped(false) // unmap_region() zapped the pages before ->close
		t.Step("perf_mmap_close:aux-unmapped")
	}
	if m.Aux {
		k.accessMmapCloseGet(t, e) // the model's ring_buffer_get() is after the step
	}
	k.rbGet(buf, "perf_mmap_close") // ring_buffer_get(event)
	if err := k.perfMmapCloseAux(t, m, pgoff); err != nil {
		panicCrash("%v", err)
	}
	bs := k.bufs[buf]
	k.accessBufState(buf, "rb->mmap_count", cpu.MarkedWrite, "perf_mmap_close") // kernel/events/core.c: perf_mmap_close(): if (refcount_dec_and_test(&rb->mmap_count))
	if bs.mmapCount <= 0 {
		k.refcountUnderflow(fmt.Sprintf("rb->mmap_count of the buffer event %d maps", e.id), "perf_mmap_close", lifePoint{})
	}
	bs.mmapCount--
	detachRest := bs.mmapCount == 0
	t.Step("perf_mmap_close:mmap_count-dec")
	// The rest is annotated (footprint_setup.go) up to the return into the
	// caller (remove_vma()'s), which is marked unless the caller annotates
	// its code (munmap()'s).
	if !callerAudited {
		defer k.markSetup(t, "perf_mmap_close's caller")
	}
	// refcount_dec_and_mutex_lock(&event->mmap_count, &event->mmap_mutex)
	k.accessEventSetup(t, e, "event->mmap_count", cpu.MarkedWrite, "perf_mmap_close") // kernel/events/core.c: perf_mmap_close(): refcount_dec_and_mutex_lock(&event->mmap_count, &event->mmap_mutex)
	if e.mmapCount <= 0 && e.mmapCount != refcountSaturated {
		k.refcountUnderflow(fmt.Sprintf("event->mmap_count of event %d", e.id), "perf_mmap_close", lifePoint{})
	}
	if e.mmapCount != 1 {
		if e.mmapCount != refcountSaturated {
			e.mmapCount--
		}
		k.perfMmapCloseNotLast(t, m, buf, bs, detachRest, held)
		return
	}
	var n int
	if !held {
		n = k.lockMutex(t, &e.mmapMutex, e, "event->mmap_mutex", 0)
	}
	if e.mmapCount--; e.mmapCount > 0 {
		if !held {
			k.unlockMutex(t, &e.mmapMutex, e, "event->mmap_mutex", n)
		}
		k.perfMmapCloseNotLast(t, m, buf, bs, detachRest, held)
		return
	}
	// event->mmap_count hit zero: detach it (ring_buffer_attach(event, NULL)).
	k.ringBufferAttachRet(e, nil, "") // the return is annotated: up to perf_mmap_close:detached
	k.mm.detaches++
	if !held {
		k.unlockMutex(t, &e.mmapMutex, e, "event->mmap_mutex", n)
	}
	t.Step("perf_mmap_close:detached")
	if detachRest {
		k.perfMmapCloseDetachRest(t, m, buf, bs, held)
	}
	k.accessMmapClosePut(t, buf) // footprint_munmap.go
	k.ringBufferPut(buf)         // could be last
	k.fputMmap(t, e)
}

// perfMmapCloseNotLast is perf_mmap_close() for a VMA that was not its
// event's last mapping: "goto out_put", even when this close took
// rb->mmap_count to 0 (detachRest) and another close of the same event,
// which took it from 2 to 1 first, will drop the event's last mmap_count
// with detach_rest false: then nobody detaches the other events, gives
// back the buffer's locked_vm and pinned_vm charge or drops mmap_user
// (knob mmap-close-teardown; proposed: this close does it).
// kernel/events/core.c: perf_mmap_close()
func (k *Kernel) perfMmapCloseNotLast(t *sched.Task, m *Mapping, buf *rb.Buffer, bs *bufState, detachRest, held bool) {
	e := m.ev
	if detachRest {
		if k.KnobIs(mmapCloseTeardownKnob.Name, "proposed") {
			k.perfMmapCloseDetachRest(t, m, buf, bs, held)
		} else {
			k.mm.teardownsSkipped++
		}
	}
	k.accessRBPut(buf)
	k.ringBufferPut(buf)
	k.fputMmap(t, e)
}

// perfMmapCloseDetachRest is perf_mmap_close()'s teardown of a buffer no
// VMA maps any more: "No other mmap()s, detach from all other events that
// might redirect into the now unreachable buffer", then the buffer's
// locked_vm and pinned_vm charge given back and free_uid(mmap_user).
// held says the caller holds e's mmap_mutex (the proposed undo of a failed
// perf_mmap()), which the loop must not take again.
// kernel/events/core.c: perf_mmap_close()
func (k *Kernel) perfMmapCloseDetachRest(t *sched.Task, m *Mapping, buf *rb.Buffer, bs *bufState, held bool) {
	e := m.ev
	k.mm.teardowns++
	k.accessBufState(buf, "rb->event_list", cpu.MarkedRead, "perf_mmap_close") // kernel/events/core.c: perf_mmap_close(): list_for_each_entry_rcu(event, &rb->event_list, rb_entry)
	for _, x := range append([]*Event(nil), bs.eventList...) {
		own := held && x == e
		var nx int
		if !own {
			nx = k.lockMutex(t, &x.mmapMutex, x, "event->mmap_mutex", 0)
		}
		k.accessEventSetup(t, x, "event->rb", cpu.MarkedRead, "perf_mmap_close") // kernel/events/core.c: perf_mmap_close(): if (event->rb == rb)
		if x.rb == buf {
			k.ringBufferAttachRet(x, nil, "") // the return is annotated: the next event, or the rest below
		}
		if !own {
			k.unlockMutex(t, &x.mmapMutex, x, "event->mmap_mutex", nx)
		}
	}
	k.accessLockedVM(t, cpu.AtomicAdd, "perf_mmap_close") // kernel/events/core.c: perf_mmap_close(): atomic_long_sub(..., &mmap_user->locked_vm); atomic64_sub(..., &vma->vm_mm->pinned_vm)
	k.mlockedPages -= bs.userExtra
	k.unchargePinned(t, m.mm, bs.mmapMM, bs.extra, e, false)
}
