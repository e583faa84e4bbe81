package pmu

import (
	"perfsim/cpu"
	"perfsim/mm"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/uapi"
)

// What the system calls and page faults of package sched's address-space
// model tell perf (sched.CommHook, ExecHook, MmapHook, FaultHook): the
// side-band records COMM and MMAP/MMAP2, enable_on_exec, and the page-fault
// software events.

// TaskComm implements sched.CommHook: __set_task_comm() -> perf_event_comm().
func (k *Kernel) TaskComm(t *sched.Task, exec bool) { k.perfEventComm(t, exec) }

// TaskExec implements sched.ExecHook: exec_mmap() has just put the old mm
// (its perf mappings closed by its last user: mmap_exec.go), then
// perf_event_exec() enables the
// enable_on_exec events, removes the remove_on_exec ones (core_exec.go) and
// clears the ranges of file address filters (addr_filter.go).
// kernel/events/core.c: perf_event_exec()
func (k *Kernel) TaskExec(t *sched.Task) {
	k.accessExec(t) // footprint_exec.go
	k.execMmap(t)   // fs/exec.c: exec_mmap() -> mmput(old_mm)
	k.EnableOnExec(t)
	k.accessEnableOnExecTail(t) // footprint_exec_resched.go: ctx_resched()'s return into it
	k.perfEventRemoveOnExec(t)
	k.accessAddrFiltersExec(t)
	k.perfEventAddrFiltersExec(t)
}

// TaskMmap implements sched.MmapHook: PERF_RECORD_MMAP2 (attr.mmap2) or
// PERF_RECORD_MMAP to every event that hears t's side band and matches: an
// executable mapping for attr.mmap or mmap2, any other for attr.mmap_data.
// With attr.build_id and a file with a build id, MMAP2 carries it instead of
// the device and inode.
// kernel/events/core.c: perf_event_mmap() -> perf_event_mmap_event() -> perf_event_mmap_output()
func (k *Kernel) TaskMmap(t *sched.Task, v *mm.VMA) {
	fp := k.M.FootprintListening()
	if fp {
		k.accessAddrFiltersAdjust(t, v) // footprint_exec.go
	}
	k.perfAddrFiltersAdjust(t, v) // perf_event_mmap(): perf_addr_filters_adjust(vma) first
	c := t.CPU()
	exec := v.Flags&mm.VM_EXEC != 0
	wrote := false
	k.perfIterateSB(c, nil, func(e *Event) {
		a := &e.Attr
		if fp {
			k.accessSBOutput(c, e)
		}
		if !(!exec && a.MmapData || exec && (a.Mmap || a.Mmap2)) || e.rb == nil { // perf_event_mmap_match()
			return
		}
		if fp {
			k.accessMmapVMA(c, t.MM) // footprint_sideband.go
		}
		r := &rb.Mmap{Mmap2: a.Mmap2, Data: !exec, Pid: uint32(t.PID), Tid: uint32(t.TID),
			Start: v.Start, Len: v.Len(), Pgoff: v.Pgoff * mm.PageSize,
			Prot: v.Prot(), Flags: v.MapFlags(), Filename: v.Name()}
		if f := v.File; f != nil {
			r.Maj, r.Min, r.Ino, r.InoGeneration = f.Maj, f.Min, f.Ino, f.Gen
			if a.BuildID && len(f.BuildID) > 0 {
				r.BuildID = f.BuildID
			}
		}
		wrote = true
		_ = rb.PerfOutputSidebandAudited(c, e.rb, e, r, k.sidebandID(c, e), a.WriteBackward)
	})
	if fp {
		k.sidebandReturn(c, wrote, k.mmapCallerAudited(t), "perf_event_mmap's caller") // footprint_sideband.go
	}
}

// PageFault implements sched.FaultHook: perf_sw_event(PERF_COUNT_SW_PAGE_FAULTS,
// 1, regs, address) at the entry of do_user_addr_fault().
// arch/x86/mm/fault.c: do_user_addr_fault()
func (k *Kernel) PageFault(t *sched.Task, addr uint64, ip string) {
	k.perfSwEventFault(t, uapi.PERF_COUNT_SW_PAGE_FAULTS, addr, ip)
}

// FaultAccounted implements sched.FaultHook: the major or minor page-fault
// event once handle_mm_fault() succeeded.
// mm/memory.c: mm_account_fault()
func (k *Kernel) FaultAccounted(t *sched.Task, addr uint64, major bool, ip string) {
	if major {
		k.perfSwEventFault(t, uapi.PERF_COUNT_SW_PAGE_FAULTS_MAJ, addr, ip)
	} else {
		k.perfSwEventFault(t, uapi.PERF_COUNT_SW_PAGE_FAULTS_MIN, addr, ip)
	}
}

// perfSwEventFault counts a fault software event on t's CPU with the regs
// of the faulting access (the exception frame: user mode and the task's
// user IP, or, for a fault of the kernel's copy from or to user memory,
// kernel mode at that function) and the faulting address as the sample's
// addr.
// include/linux/perf_event.h: perf_sw_event() -> ___perf_sw_event() -> do_perf_sw_event()
func (k *Kernel) perfSwEventFault(t *sched.Task, config int, addr uint64, ip string) {
	c := t.CPU()
	r := regs{ip: k.userIP(t), user: true, task: t}
	if ip != "" {
		r = regs{ip: k.fakeIP(ip, true), task: t}
	}
	k.perfSwEventRegs(c, config, r, addr)
}

// perfSwEventRegs delivers one software event to the events of config ACTIVE
// on c, sampling with r and addr (perf_sample_data_init(&data, addr, 0)),
// skipping those whose exclude_user/exclude_kernel filter the regs
// (perf_exclude_event()).
// kernel/events/core.c: do_perf_sw_event()
func (k *Kernel) perfSwEventRegs(c *cpu.CPU, config int, r regs, addr uint64) {
	l := k.swPMU.active[c.ID][config]
	for i := 0; i < len(l); i++ {
		e := l[i]
		if e.hw.state&PERF_HES_STOPPED != 0 {
			continue
		}
		if e.Attr.ExcludeUser && r.user || e.Attr.ExcludeKernel && !r.user {
			continue
		}
		data := perfSampleData{addr: addr}
		k.perfSweventEvent(c, e, 1, &data, &r)
		l = k.swPMU.active[c.ID][config]
	}
}
