package perftool

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"

	"perfsim/mm"
	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/uapi"
)

// A -p/-t session: perf attaches to tasks that already run. The scenario
// names them (SessionOptions.Tasks: a declared task by its name; a thread or
// forked child by its program's name), and perf reads their thread map when
// it starts, as cmd_record() does before __cmd_record().

// resolveThreads builds the thread map of a -p/-t target: for -p, every
// live thread of each named process in tid order (/proc/PID/task); for -t,
// the named threads. A -p process that is gone fails as perf does
// ("Couldn't create thread/CPU maps: No such process"); a -t thread that is
// gone fails at perf_event_open() with ESRCH.
// tools/perf/util/thread_map.c: thread_map__new_str() -> thread_map__new_by_pid_str() / thread_map__new_by_tid_str()
func (ss *Session) resolveThreads() error {
	tids, err := ss.threadMap()
	if err != nil {
		return err
	}
	ss.R.Threads = tids
	return nil
}

// threadMap reads a -p/-t target's threads now, as thread_map__new_str()
// does each time an evlist's maps are made: cmd_record()'s, and again the
// side band's (evlist__start_sb_thread() -> evlist__create_maps()), which
// sees only the threads still alive then.
// tools/perf/util/thread_map.c: thread_map__new_str(); util/sideband_evlist.c: evlist__start_sb_thread()
func (ss *Session) threadMap() ([]int, error) {
	tg := &ss.R.Target
	var tids []int
	if tg.PID != nil {
		for _, name := range tg.PID {
			leaders := ss.lookupTasks(name)
			if len(leaders) == 0 {
				return nil, fmt.Errorf("perf record: Couldn't create thread/CPU maps: No such process (-p %s: no such task)", name)
			}
			pid := leaders[0].Leader().PID
			var group []int
			for _, x := range ss.S.Tasks {
				if x.PID == pid && x.State != sched.Dead {
					group = append(group, x.TID)
				}
			}
			if len(group) == 0 {
				return nil, fmt.Errorf("perf record: Couldn't create thread/CPU maps: No such process (-p %s: exited)", name)
			}
			slices.Sort(group)
			tids = append(tids, group...)
		}
	} else {
		for _, name := range tg.TID {
			ts := ss.lookupTasks(name)
			if len(ts) == 0 {
				return nil, fmt.Errorf("perf record: -t %s: %w", name, uapi.ESRCH)
			}
			for _, x := range ts {
				tids = append(tids, x.TID)
			}
		}
	}
	return tids, nil
}

// lookupTasks finds the tasks a -p/-t name stands for: the declared task of
// that name, or the live tasks running the program of that name (threads
// and forked children), in tid order.
func (ss *Session) lookupTasks(name string) []*sched.Task {
	if t, ok := ss.Opts.Tasks[name]; ok {
		if t.State == sched.Dead {
			return nil
		}
		return []*sched.Task{t}
	}
	var out []*sched.Task
	for _, x := range ss.S.Tasks {
		if x.State != sched.Dead && x.ProgName() == name {
			out = append(out, x)
		}
	}
	return out
}

// synthesizeThreadMap writes what perf learns from /proc about a -p/-t
// target's threads: a COMM for each (its tgid and tid, /proc/TID/status'
// Name), and for a process's leader the MMAP2 of each executable mapping in
// /proc/PID/maps; a thread whose leader is not in the map brings the
// leader's COMM and MMAP2s too.
// tools/perf/util/synthetic-events.c: perf_event__synthesize_thread_map() -> __event__synthesize_thread(full = 0)
func (ss *Session) synthesizeThreadMap(t *sched.Task) {
	a := &ss.Data.Attrs[0].Attr
	byTID := map[int]*sched.Task{}
	for _, x := range ss.S.Tasks {
		if x.State != sched.Dead {
			byTID[x.TID] = x
		}
	}
	var b []byte
	one := func(x *sched.Task) { b = append(b, synthThread(a, x, x.Comm, false, ss.R.MmapData)...) }
	for _, tid := range ss.R.Threads {
		x := byTID[tid]
		if x == nil {
			continue // gone since perf read the map: /proc/TID/status fails
		}
		one(x)
		if x.PID != x.TID && !slices.Contains(ss.R.Threads, x.PID) {
			if l := byTID[x.PID]; l != nil {
				one(l) // "is thread group leader in thread_map? ... if not, generate events for it"
			}
		}
	}
	ss.writeSynth(t, b)
}

// synthesizeThreads writes what a -a/-C perf reads from every /proc/PID,
// in pid order, and from each of its /proc/PID/task/TID, in tid order: a
// FORK (misc PERF_RECORD_MISC_FORK_EXEC; the leader's parent is its real
// parent, 0:0 for the tasks the machine starts with; a thread's is its
// leader) and a COMM, and after the leader's COMM the MMAP2 of each
// executable mapping of the process (a kernel thread has none). The
// forked workload, not yet exec'd, is still perf's child "perf-exec".
// tools/perf/util/synthetic-events.c: perf_event__synthesize_threads() -> __event__synthesize_thread(full = 1)
func (ss *Session) synthesizeThreads(t *sched.Task) {
	a := &ss.Data.Attrs[0].Attr
	var live []*sched.Task
	for _, x := range ss.S.Tasks {
		if x.State != sched.Dead {
			live = append(live, x)
		}
	}
	slices.SortStableFunc(live, func(x, y *sched.Task) int { return cmp.Or(cmp.Compare(x.PID, y.PID), cmp.Compare(x.TID, y.TID)) })
	var b []byte
	// The machine's kernel threads the model runs: each CPU's stopper,
	// migration/N (sched/stopper.go), and its hotplug thread, cpuhp/N
	// (sched/cpuhp.go), children of kthreadd (pid 2), made at boot whether
	// or not they have run yet (the model makes cpuhp/N at the first
	// hotplug, with its boot pid). Their pids are below every task's.
	type kthread struct {
		pid  int
		comm string
	}
	var kthreads []kthread
	for i := range ss.S.M.CPUs {
		kthreads = append(kthreads, kthread{sched.StopperPID(i), "migration/" + strconv.Itoa(i)}, kthread{sched.CPUHPPID(i), "cpuhp/" + strconv.Itoa(i)})
	}
	slices.SortFunc(kthreads, func(x, y kthread) int { return cmp.Compare(x.pid, y.pid) })
	for _, k := range kthreads {
		b = append(b, synthFork(a, k.pid, k.pid, kthreaddPID)...)
		b = append(b, synthComm(a, k.pid, k.pid, k.comm)...)
	}
	for _, x := range live {
		comm := x.Comm
		if x == ss.Workload {
			comm = workloadComm // forked, not yet exec'd
		}
		b = append(b, synthThread(a, x, comm, true, ss.R.MmapData)...)
	}
	ss.writeSynth(t, b)
}

// synthThread is what __event__synthesize_thread() writes for one thread:
// with full (a -a/-C session) a FORK first, then its COMM, and for a
// process's leader the MMAP2s of its executable mappings, and with mmapData
// (-d) of its readable data mappings too ("send mmap only for thread group
// leader").
// tools/perf/util/synthetic-events.c: __event__synthesize_thread()
func synthThread(a *pmu.Attr, x *sched.Task, comm string, full, mmapData bool) []byte {
	var b []byte
	if full {
		ppid := x.PID // perf_event__synthesize_fork(): a thread's parent is its leader
		if x.TID == x.PID {
			ppid = x.PPID // the leader's: PPid of /proc/PID/status
		}
		b = synthFork(a, x.PID, x.TID, ppid)
	}
	b = append(b, synthComm(a, x.PID, x.TID, comm)...)
	if x.TID == x.PID && x.MM != nil {
		b = append(b, synthMmapEvents(a, x, mmapData)...)
	}
	return b
}

// kthreaddPID is kthreadd's pid, every kernel thread's parent.
const kthreaddPID = 2

// miscForkExec is PERF_RECORD_MISC_FORK_EXEC, perf's own mark on the FORKs
// it synthesizes (tools/lib/perf/include/perf/event.h).
const miscForkExec = 1 << 13

// synthFork is the PERF_RECORD_FORK perf synthesizes for a thread it finds
// in /proc: pid:tid, parent ppid:ppid, time 0, a zeroed sample_id.
// tools/perf/util/synthetic-events.c: perf_event__synthesize_fork()
func synthFork(a *pmu.Attr, pid, tid, ppid int) []byte {
	b := rb.AppendRecord(nil, &rb.Task{Fork: true, Pid: uint32(pid), Tid: uint32(tid), Ppid: uint32(ppid), Ptid: uint32(ppid)}, a.SampleType, a.SampleIDAll, nil)
	binary.LittleEndian.PutUint16(b[4:], miscForkExec)
	return b
}

// vsyscallStart is the x86_64 vsyscall page (VSYSCALL_ADDR), which
// /proc/PID/maps lists for every process as [vsyscall] ("--xp" with
// vsyscall=xonly, the default), from the gate VMA rather than the mm.
const vsyscallStart = 0xffffffffff600000

// synthMmapEvents are the PERF_RECORD_MMAP2 records perf reads from
// /proc/PID/maps, in address order: each executable mapping, and with
// mmapData (record -d: opts->sample_address) each other readable one too,
// marked PERF_RECORD_MISC_MMAP_DATA (a mapping with neither PROT_EXEC nor
// PROT_READ, a guard page, is skipped); then the gate area. The fields are
// the maps line's: the offset is the file's (0 for anon and special
// mappings, whose vm_pgoff show_map_vma() does not print), the flags
// MAP_SHARED or MAP_PRIVATE from its 's'/'p', an unnamed mapping "//anon";
// no build id (perf 6.1 reads maj/min/ino) and ino_generation 0.
// tools/perf/util/synthetic-events.c: perf_event__synthesize_mmap_events()
func synthMmapEvents(a *pmu.Attr, x *sched.Task, mmapData bool) []byte {
	st, all := a.SampleType, a.SampleIDAll
	var b []byte
	for _, v := range x.MM.VMAs {
		prot := v.Prot()
		data := prot&uapi.PROT_EXEC == 0
		if data && (!mmapData || prot&uapi.PROT_READ == 0) {
			continue
		}
		flags := uint32(uapi.MAP_PRIVATE)
		if v.Flags&mm.VM_MAYSHARE != 0 {
			flags = uapi.MAP_SHARED // read_proc_maps_line(): 's'
		}
		r := &rb.Mmap{Mmap2: true, Data: data, Pid: uint32(x.PID), Tid: uint32(x.TID), Start: v.Start, Len: v.Len(),
			Prot: prot, Flags: flags, Filename: v.Name()}
		if f := v.File; f != nil {
			r.Pgoff, r.Maj, r.Min, r.Ino = v.Pgoff*mm.PageSize, f.Maj, f.Min, f.Ino
		}
		b = rb.AppendRecord(b, r, st, all, nil)
	}
	r := &rb.Mmap{Mmap2: true, Pid: uint32(x.PID), Tid: uint32(x.TID), Start: vsyscallStart, Len: mm.PageSize,
		Prot: uapi.PROT_EXEC, Flags: uapi.MAP_PRIVATE, Filename: "[vsyscall]"}
	return rb.AppendRecord(b, r, st, all, nil)
}

func init() {
	RegisterSessionObservable("perf.threads", "threads in a -p/-t session's thread map once perf has opened its events (0 for the other targets)",
		func(ss *Session) int64 { return int64(len(ss.R.Threads)) })
	RegisterSessionObservable("perf.ignored_threads", "threads of a -p target gone before perf opened on them, dropped from its thread map (\"WARNING: Ignored open failure for pid N\")",
		func(ss *Session) int64 { return int64(ss.ignoredThreads) })
}
