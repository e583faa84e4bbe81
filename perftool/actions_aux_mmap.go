package perftool

import (
	"perfsim/scenarios"

	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/sched"
)

// The AUX mapping actions: a second mapping of an AUX area through another
// event writing into the same ring (one perf redirected there with
// PERF_EVENT_IOC_SET_OUTPUT), and the unmapping of perf's own AUX areas. They
// let a scenario race the two paths of perf_mmap() over one buffer that
// 2ab9d830262c serialized with rb->aux_mutex (kernel knob aux-mutex). The
// second mapping is made by another process holding perf's fds: a thread of
// perf could not map inside perf's munmap(), which holds perf's mmap_lock
// until its perf_mmap_close() is done (pmu/mmap_lock.go).

func init() {
	RegisterAction(Action{Name: "aux-mmap", Args: []scenarios.ArgKind{scenarios.ArgCPU},
		Help: "a process sharing perf's fds but not its address space (on cpuN if given) maps each AUX area of the session once more, through the fd of the first event " +
			"redirected into its ring (SET_OUTPUT; the ring's own fd when there is none); the mapping lasts until munmap or the end",
		Do: func(ss *Session, args []string) { ss.ToolProcess(cpuArg(args, 0), ss.mapAuxExtra) }})
	RegisterAction(Action{Name: "aux-munmap", Args: []scenarios.ArgKind{scenarios.ArgCPU},
		Help: "a thread of perf (on cpuN if given) unmaps the AUX areas perf mapped (auxtrace_mmap__munmap), leaving the rings; perf stops reading them",
		Do: func(ss *Session, args []string) {
			ss.ToolThread(cpuArg(args, 0), func(t *sched.Task) {
				for _, m := range ss.Mmaps {
					ss.auxtraceMunmap(t, m)
				}
			})
		}})
	RegisterAction(Action{Name: "aux-munmap-tail", Args: []scenarios.ArgKind{scenarios.ArgSize, scenarios.ArgCPU}, MinArgs: 1,
		Help: "a thread of perf (on cpuN if given) unmaps the last SIZE bytes of each AUX area perf mapped: a partial munmap, " +
			"-EINVAL today (perf_mmap_may_split()), a split of the mapping before b024d7b56c77 (kernel knob vma-split)",
		Do: func(ss *Session, args []string) {
			size := sizeArg(args, 0)
			ss.ToolThread(cpuArg(args, 1), func(t *sched.Task) {
				for _, mm := range ss.aux.mmaps {
					if mm.Map == nil || size == 0 || size >= mm.Len {
						continue
					}
					if err := ss.K.MunmapRange(t, mm.Map, mm.Len-size, size); err != nil {
						ss.tool.actionErrs++
					}
				}
			})
		}})
	RegisterSessionObservable("tool.aux-mmaps", "AUX mappings the aux-mmap action made", func(ss *Session) int64 { return ss.tool.auxMapped })
}

// mapAuxExtra maps every AUX area of the session again, with perf's offset,
// length and protection, through a redirected event's fd where there is one.
func (ss *Session) mapAuxExtra(t *sched.Task) {
	for _, mm := range ss.aux.mmaps {
		m := mm.Ring
		fd := m.FD
		if len(m.Outputs) > 0 {
			fd = m.Outputs[0]
		}
		prot := pmu.ProtRead
		if !mm.Overwrite {
			prot |= pmu.ProtWrite
		}
		mp, err := ss.K.Mmap(t, fd, uint64(ss.R.MmapBytes())/pmu.PageSize, mm.Len, prot)
		if err != nil {
			ss.tool.actionErrs++
			continue
		}
		ss.tool.auxMapped++
		ss.accessAuxExtra(t)
		ss.tool.auxExtra = append(ss.tool.auxExtra, mp)
	}
}

// unmapAuxExtra unmaps what mapAuxExtra mapped, each mapping once: the
// caller takes the list before it sleeps in munmap(), so a thread unmapping
// at the same time finds it empty. The mappings are in the aux-mmap
// process's address space; pmu.Kernel.Munmap takes that mm's mmap_lock, as
// if that process unmapped them.
func (ss *Session) unmapAuxExtra(t *sched.Task) {
	ss.accessAuxExtra(t)
	todo := ss.tool.auxExtra
	ss.tool.auxExtra = nil
	for _, mp := range todo {
		if err := ss.K.Munmap(t, mp); err != nil {
			ss.tool.actionErrs++
		}
	}
}

// auxExtraKey is the list of the aux-mmap action's mappings: the
// simulator's bookkeeping, which the action's process adds to and perf's
// teardown (or a munmap action) takes.
type auxExtraKey struct{ ss *Session }

// FootprintKey implements cpu.FootprintKeyer: perf's thread names it.
func (k auxExtraKey) FootprintKey() string {
	return k.ss.Perf.Thread.FootprintKey() + "/aux-mmap mappings"
}

// FootprintExtent is the memory the key names (explore's write audit).
func (k auxExtraKey) FootprintExtent() []any { return []any{&k.ss.tool.auxExtra} }

// accessAuxExtra annotates a look at the action's mappings that changes
// them (an append, or the list taken).
func (ss *Session) accessAuxExtra(t *sched.Task) {
	if ss.S.M.FootprintListening() {
		t.CPU().AccessMarkedOnly(auxExtraKey{ss}, "the aux-mmap action's mappings", cpu.MarkedWrite, "Session.auxExtra") // actions_aux_mmap.go: the simulator's list of them
	}
}
