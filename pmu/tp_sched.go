package pmu

import (
	"encoding/binary"
	"strconv"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
)

// The sched:* tracepoints (include/trace/events/sched.h) as perf sees them:
// each record laid out as this machine's tracefs format file says
// (perftool/tracepoints_sched.go holds the catalogue entries), filled with
// the task's real comm, pid, prio and CPUs, and handed to perf_tp_event()
// with the caller's kernel regs. sched_wakeup and sched_wakeup_new name the
// woken task as __perf_task(p): its own context's events hear it too, on
// whatever CPU it is woken from. sched_stat_runtime counts its runtime
// (__perf_count(runtime)), not 1.

// taskCommLen is TASK_COMM_LEN.
const taskCommLen = 16

// traceComm is what a comm[16] field holds: at most 15 bytes and a NUL.
func traceComm(t *sched.Task, c *cpu.CPU) string {
	if t == nil {
		return "swapper/" + strconv.Itoa(c.ID)
	}
	if len(t.Comm) >= taskCommLen {
		return t.Comm[:taskCommLen-1]
	}
	return t.Comm
}

// tracePid is p->pid (the thread id); 0 for an idle task.
func tracePid(t *sched.Task) int32 {
	if t == nil {
		return 0
	}
	return int32(t.TID)
}

func tracePrio(t *sched.Task) int32 {
	if t == nil {
		return sched.DefaultPrio
	}
	return int32(t.Prio())
}

// schedRecord builds a trace record: struct trace_entry, the fixed fields
// (fill writes them into rec[8:fixed]), then the __data_loc strings in
// order, each as __string() copies it (with its NUL; the u32 at locs[i] is
// offset | len << 16), padded to the PERF_SAMPLE_RAW size
// (ALIGN(size + sizeof(u32), sizeof(u64)) - sizeof(u32)).
// include/trace/trace_events.h: trace_event_get_offsets_##call(), __assign_str();
// kernel/trace/trace_event_perf.c: perf_trace_buf_alloc()
func (k *Kernel) schedRecord(s *tpSlot, c *cpu.CPU, fixed int, strs []string, locs []int, fill func(rec []byte)) []byte {
	size := fixed
	for _, str := range strs {
		size += len(str) + 1
	}
	raw := (size+4+7)&^7 - 4
	rec := make([]byte, raw)
	le := binary.LittleEndian
	le.PutUint16(rec[0:], uint16(s.info.ID))
	var flags byte
	if c.IrqsDisabled() {
		flags |= 0x01 // TRACE_FLAG_IRQS_OFF
	}
	if c.InIRQ() {
		flags |= 0x08 // TRACE_FLAG_HARDIRQ
	}
	if c.InNMI() {
		flags |= 0x10 // TRACE_FLAG_NMI
	}
	rec[2], rec[3] = flags, 1
	if t := sched.TaskOf(c.Curr()); t != nil {
		le.PutUint32(rec[4:], uint32(t.TID))
	}
	fill(rec)
	off := fixed
	for i, str := range strs {
		le.PutUint32(rec[locs[i]:], uint32(off)|uint32(len(str)+1)<<16)
		copy(rec[off:], str)
		off += len(str) + 1
	}
	return rec
}

// putComm writes a char[16] field.
func putComm(rec []byte, off int, comm string) {
	copy(rec[off:off+taskCommLen], comm)
}

// fireSched hands a sched record to perf_tp_event() on c: the events
// attached to the tracepoint on this CPU, then, for a __perf_task(task)
// tracepoint with task not current, the matching events of task's context.
// kernel/events/core.c: perf_tp_event(), perf_tp_event_target_task()
func (k *Kernel) fireSched(c *cpu.CPU, name string, count uint64, task *sched.Task, build func(s *tpSlot) []byte) {
	s := k.tp.attached(name)
	if s != nil {
		k.accessTpRegistered(c, s, "perf_trace_run_bpf_submit")
	}
	if s == nil || s.users == 0 {
		return
	}
	var ctx *Context
	if task != nil && task != sched.TaskOf(c.Curr()) {
		if x := k.taskCtx[task]; x != nil && !x.dead {
			ctx = x
		}
	}
	k.accessTpHlist(c, s, cpu.MarkedRead, "perf_trace_run_bpf_submit")
	if len(s.perCPU[c.ID]) == 0 && ctx == nil {
		return
	}
	c.Unaudited("perf_tp_event") // footprint_entry.go
	rec := build(s)
	r := regs{ip: k.fakeIP(schedTraceIP[name], true), task: sched.TaskOf(c.Curr())}
	data := perfSampleData{raw: rec}
	l := s.perCPU[c.ID]
	for i := 0; i < len(l); i++ {
		e := l[i]
		if e.hw.state&PERF_HES_STOPPED != 0 || e.Attr.ExcludeKernel { // perf_tp_event_match()
			continue
		}
		if !e.perfTpFilterMatch(c, rec) {
			continue
		}
		k.perfSweventEvent(c, e, count, &data, &r)
		l = s.perCPU[c.ID]
	}
	if ctx == nil {
		return
	}
	k.ctxLock(c, ctx)
	for _, g := range append(append([]*Event(nil), ctx.pinned...), ctx.flexible...) {
		for _, e := range append([]*Event{g}, g.siblings...) {
			// __perf_tp_event_target_task(): this tracepoint, this CPU or any.
			if e.tp != s || !eventFilterMatch(e, c) || e.Attr.Sigtrap {
				continue
			}
			if e.hw.state&PERF_HES_STOPPED != 0 || e.Attr.ExcludeKernel || !e.perfTpFilterMatch(c, rec) {
				continue
			}
			k.perfSweventEvent(c, e, count, &data, &r)
		}
	}
	k.ctxUnlock(c, ctx)
}

// schedTraceIP is the kernel function each tracepoint is called from (the
// caller's regs perf_fetch_caller_regs() takes).
var schedTraceIP = map[string]string{
	"sched:sched_switch":       "__schedule",
	"sched:sched_wakeup":       "ttwu_do_activate",
	"sched:sched_wakeup_new":   "wake_up_new_task",
	"sched:sched_migrate_task": "set_task_cpu",
	"sched:sched_process_fork": "kernel_clone",
	"sched:sched_process_exec": "exec_binprm",
	"sched:sched_process_exit": "do_exit",
	"sched:sched_stat_runtime": "update_curr",
}

// SchedSwitch implements sched.TraceHook: sched_switch {prev_comm, prev_pid,
// prev_prio, prev_state, next_comm, next_pid, next_prio}.
// include/trace/events/sched.h: TRACE_EVENT(sched_switch)
func (k *Kernel) SchedSwitch(c *cpu.CPU, preempt bool, prev, next *sched.Task, prevState int64) {
	if preempt {
		prevState = sched.StateReportPreempted
	}
	k.fireSched(c, "sched:sched_switch", 1, nil, func(s *tpSlot) []byte {
		return k.schedRecord(s, c, 64, nil, nil, func(rec []byte) {
			le := binary.LittleEndian
			putComm(rec, 8, traceComm(prev, c))
			le.PutUint32(rec[24:], uint32(tracePid(prev)))
			le.PutUint32(rec[28:], uint32(tracePrio(prev)))
			le.PutUint64(rec[32:], uint64(prevState))
			putComm(rec, 40, traceComm(next, c))
			le.PutUint32(rec[56:], uint32(tracePid(next)))
			le.PutUint32(rec[60:], uint32(tracePrio(next)))
		})
	})
}

// SchedWakeup implements sched.TraceHook: sched_wakeup or sched_wakeup_new
// {comm, pid, prio, target_cpu}, with __perf_task(p).
// include/trace/events/sched.h: DECLARE_EVENT_CLASS(sched_wakeup_template)
func (k *Kernel) SchedWakeup(c *cpu.CPU, t *sched.Task, targetCPU int, isNew bool) {
	name := "sched:sched_wakeup"
	if isNew {
		name = "sched:sched_wakeup_new"
	}
	k.fireSched(c, name, 1, t, func(s *tpSlot) []byte {
		return k.schedRecord(s, c, 36, nil, nil, func(rec []byte) {
			le := binary.LittleEndian
			putComm(rec, 8, traceComm(t, c))
			le.PutUint32(rec[24:], uint32(tracePid(t)))
			le.PutUint32(rec[28:], uint32(tracePrio(t)))
			le.PutUint32(rec[32:], uint32(targetCPU))
		})
	})
}

// SchedMigrateTask implements sched.TraceHook: sched_migrate_task {comm
// (__data_loc), pid, prio, orig_cpu, dest_cpu}. From the stopper thread
// (migration/N, a kernel thread with no events of its own) only CPU-wide
// events hear it.
// include/trace/events/sched.h: TRACE_EVENT(sched_migrate_task)
func (k *Kernel) SchedMigrateTask(c *cpu.CPU, t *sched.Task, orig, dest int) {
	name := "sched:sched_migrate_task"
	k.fireSched(c, name, 1, nil, func(s *tpSlot) []byte {
		return k.schedRecord(s, c, 28, []string{traceComm(t, c)}, []int{8}, func(rec []byte) {
			le := binary.LittleEndian
			le.PutUint32(rec[12:], uint32(tracePid(t)))
			le.PutUint32(rec[16:], uint32(tracePrio(t)))
			le.PutUint32(rec[20:], uint32(orig))
			le.PutUint32(rec[24:], uint32(dest))
		})
	})
}

// SchedProcessFork implements sched.TraceHook: sched_process_fork
// {parent_comm, parent_pid, child_comm, child_pid}, in the parent.
// include/trace/events/sched.h: TRACE_EVENT(sched_process_fork)
func (k *Kernel) SchedProcessFork(parent, child *sched.Task) {
	c := parent.CPU()
	k.fireSched(c, "sched:sched_process_fork", 1, nil, func(s *tpSlot) []byte {
		return k.schedRecord(s, c, 24, []string{traceComm(parent, c), traceComm(child, c)}, []int{8, 16}, func(rec []byte) {
			le := binary.LittleEndian
			le.PutUint32(rec[12:], uint32(tracePid(parent)))
			le.PutUint32(rec[20:], uint32(tracePid(child)))
		})
	})
}

// SchedProcessExec implements sched.TraceHook.
func (k *Kernel) SchedProcessExec(t *sched.Task, filename string, oldPID int) {
	k.TraceSchedProcessExec(t, filename, oldPID)
}

// TraceSchedProcessExec fires sched_process_exec {filename, pid, old_pid}
// from t's execve (exec_binprm(), after the new image is in: old_pid is the
// thread id before a de_thread() made t the leader). The execve model calls it.
// include/trace/events/sched.h: TRACE_EVENT(sched_process_exec)
func (k *Kernel) TraceSchedProcessExec(t *sched.Task, filename string, oldPID int) {
	c := t.CPU()
	k.fireSched(c, "sched:sched_process_exec", 1, nil, func(s *tpSlot) []byte {
		return k.schedRecord(s, c, 20, []string{filename}, []int{8}, func(rec []byte) {
			le := binary.LittleEndian
			le.PutUint32(rec[12:], uint32(t.TID))
			le.PutUint32(rec[16:], uint32(oldPID))
		})
	})
}

// SchedProcessExit implements sched.TraceHook: sched_process_exit {comm,
// pid, prio, group_dead}, in do_exit() before perf_event_exit_task().
// include/trace/events/sched.h: TRACE_EVENT(sched_process_exit)
func (k *Kernel) SchedProcessExit(t *sched.Task, groupDead bool) {
	c := t.CPU()
	k.fireSched(c, "sched:sched_process_exit", 1, nil, func(s *tpSlot) []byte {
		return k.schedRecord(s, c, 33, nil, nil, func(rec []byte) {
			le := binary.LittleEndian
			putComm(rec, 8, traceComm(t, c))
			le.PutUint32(rec[24:], uint32(tracePid(t)))
			le.PutUint32(rec[28:], uint32(tracePrio(t)))
			if groupDead {
				rec[32] = 1
			}
		})
	})
}

// SchedStatRuntime implements sched.TraceHook: sched_stat_runtime {comm,
// pid, runtime}, counting runtime nanoseconds.
// include/trace/events/sched.h: DECLARE_EVENT_CLASS(sched_stat_runtime)
func (k *Kernel) SchedStatRuntime(c *cpu.CPU, t *sched.Task, runtime sim.Duration) {
	k.fireSched(c, "sched:sched_stat_runtime", uint64(runtime), nil, func(s *tpSlot) []byte {
		return k.schedRecord(s, c, 24, []string{traceComm(t, c)}, []int{8}, func(rec []byte) {
			le := binary.LittleEndian
			le.PutUint32(rec[12:], uint32(tracePid(t)))
			le.PutUint64(rec[16:], uint64(runtime))
		})
	})
}
