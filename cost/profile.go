package cost

import (
	"fmt"

	"perfsim/sim"
)

// Profile is one machine's costs. Each field is charged by one place of the
// model, named in its comment, to the CPU that does the work.
type Profile struct {
	Name   string
	Source string // where the figures come from
	// HZ is the profiled kernel's CONFIG_HZ (0: unknown), the default of
	// knob hz (sched.Config.HZ).
	HZ int

	// SyscallEntryExit is a system call that does nothing in its body:
	// entry_SYSCALL_64 -> do_syscall_64() -> the body -> syscall_exit_to_user_mode()
	// (close(-1): fdget() fails). Charged by sched's syscall for a call with
	// no model body (sched.Config.SyscallCost).
	SyscallEntryExit sim.Duration
	// SyscallTracepoint is a syscalls:sys_enter_NAME/sys_exit_NAME
	// tracepoint firing with an event attached (perf_syscall_enter/exit():
	// the TIF_SYSCALL_TRACEPOINT slow path, perf_trace_buf_alloc(), the
	// filter), before any sample. Charged by pmu's perfTraceSyscall.
	SyscallTracepoint sim.Duration
	// TraceEvent is any other tracepoint (raw_syscalls:*, sched:*: a
	// TRACE_EVENT's perf_trace_##call) firing with an event attached, before
	// any sample. Charged by pmu's perfTraceSyscall and perfTpEvent.
	TraceEvent sim.Duration
	// SampleRecord is one sample written: perf_prepare_sample(),
	// perf_output_begin(), the copy of a tracepoint-sized (88-byte) record,
	// perf_output_end(). Charged by pmu's perfEventOutput.
	SampleRecord sim.Duration
	// CallchainSetup and CallchainEntry are PERF_SAMPLE_CALLCHAIN:
	// get_perf_callchain() and each entry of the chain it walks (user frames
	// by frame pointer through copy_from_user_nofault()). Charged by pmu's
	// perfEventOutput.
	CallchainSetup, CallchainEntry sim.Duration
	// ContextSwitch is __schedule() -> context_switch() from one task to
	// another. Charged by sched's schedule: its SchedulePick part after
	// pick_next_task() chose, before trace_sched_switch() and
	// prepare_task_switch() (prev's events still in), the rest at
	// context_switch() (switch_mm, switch_to), after perf's sched-out.
	ContextSwitch, SchedulePick sim.Duration
	// PerfContextSwitch is perf_event_task_sched_out() and _sched_in() of a
	// task context that has events (ctx_sched_out/in of its groups). Charged
	// by pmu's sched-out hook.
	PerfContextSwitch sim.Duration
	// HrtimerSample is a cpu-clock/task-clock hrtimer interrupt:
	// irq entry and exit, hrtimer_interrupt(), perf_swevent_hrtimer(), the
	// timer rearmed (the sample it writes is SampleRecord). Charged by pmu's
	// swevent hrtimer handler.
	HrtimerSample sim.Duration
	// ReaderRound is perf record's time per pass over its rings that found
	// data: perf_mmap__push() of each, the write(2)s, the FINISHED_ROUND;
	// ReaderPerKiB its time per KiB copied into perf.data. Charged by
	// perftool's Session to the perf task (a slow reader is what makes the
	// kernel lose records into a small ring). This machine's are fitted by
	// FitReader from perf's time per wake-up when it shares the workload's
	// CPU (calibrate/reader-wakeups.sh).
	ReaderRound, ReaderPerKiB sim.Duration
	// HrtimerLatePerMillion is how many of a million hrtimer expiries run
	// a period or more late (the interrupt delayed past the next expiry:
	// a vCPU not running, irqs held off), so that hrtimer_forward_now()
	// skips a period. Charged by pmu's cpu-clock/task-clock hrtimer (which
	// expiries are late is a hash of the CPU and the expiry's number:
	// deterministic). Fitted from cost/testdata/hrtimer-gaps.txt.
	HrtimerLatePerMillion int

	// CloneProcess is a clone() of a process (fork()) as its caller spends
	// it: entry, kernel_clone() -> copy_process() (dup_task_struct(),
	// dup_fd(), dup_mm() -> dup_mmap()), wake_up_new_task(), exit;
	// CloneThread a thread's (CLONE_VM|CLONE_THREAD: no dup_mm()). Charged
	// by sched's copyProcess to the parent, after perf_event_init_task()
	// where copy_mm() runs, before the child is visible. Fitted from
	// cost/testdata/forkexit.txt (FitForkExit).
	CloneProcess, CloneThread sim.Duration
	// Wait4Reap is a wait4() that finds a zombie child: entry, do_wait() ->
	// wait_task_zombie() -> release_task(), exit. Charged by sched's wait4
	// to the waiter when it reaps. From cost/testdata/forkexit.txt.
	Wait4Reap sim.Duration
	// ExitStart, ExitMMap, ExitFiles and ExitDead are do_exit() of a
	// process (the last thread of its group, the last user of its mm), by
	// part: ExitStart up to perf_event_exit_task() (exit_signals(), the
	// group-dead timers, acct, taskstats), charged by sched's exit before
	// sched_process_exit; ExitMMap perf_event_exit_task() and exit_mm(),
	// whose last mmput() runs exit_mmap(), charged by sched's exitMM when
	// the mm's last user drops it, before exit_mmap() closes the perf VMAs;
	// ExitFiles the rest of mmput(), exit_files(), exit_fs(),
	// exit_task_work(), cgroup_exit() and exit_notify() up to the parent's
	// SIGCHLD, charged by sched's exit after the task work; ExitDead the
	// rest of exit_notify() and do_task_dead(), up to __schedule()'s
	// SchedulePick, charged after exit_notify() woke the parent.
	// ExitThreadStart, ExitThreadMM and ExitThreadRest are a thread's (not
	// the last of its group nor of its mm's users): ExitThreadMM up to
	// exit_mm_release()'s futex wake of a joiner, before it; ExitThreadRest
	// all after it (mmput(), exit_files() of a shared table, exit_notify()
	// with release_task(), do_task_dead()) less SchedulePick, charged where
	// ExitFiles is. Fitted from cost/testdata/forkexit.txt's fork.child and
	// thread.life shared out as cost/testdata/exitsplit.txt's tracepoints
	// split them (FitExitSplit).
	ExitStart, ExitMMap, ExitFiles, ExitDead      sim.Duration
	ExitThreadStart, ExitThreadMM, ExitThreadRest sim.Duration

	// ExecStart and ExecLoad are an execve() of a dynamically linked
	// image, by part: ExecStart from the entry to begin_new_exec()'s
	// exec_mmap() (alloc_bprm() with do_open_execat() and bprm_mm_init(),
	// copy_strings(), sched_exec(), load_elf_binary() reading the headers
	// and opening the interpreter, de_thread()), charged by sched's Execve
	// after sched_exec(); the old mm's teardown when the exec drops its
	// last user (exec_mmap() -> mmput() -> exit_mmap()) is ExitMMap,
	// charged there as an exit charges it; ExecLoad the rest
	// (perf_event_exec(), __set_task_comm(), do_close_on_exec(),
	// setup_new_exec(), setup_arg_pages(), the PT_LOAD and interpreter
	// mappings, map_vdso(), create_elf_tables(), bprm_execve()'s cleanup),
	// charged by Execve in equal shares before each mapping it reports
	// and after the last. Fitted from cost/testdata/execsplit.txt
	// (FitExecSplit).
	ExecStart, ExecLoad sim.Duration

	// AnonFault, ZeroPageFault, FileMapFault and CopyFault are a user page
	// fault, exception entry to return, by the handler it runs
	// (mm.How): a zeroed anon page (do_anonymous_page() of a write), the
	// zero page mapped (of a read), a file's cached pages mapped
	// (do_read_fault()'s fault-around: 16 pages), a page copied
	// (do_cow_fault(), wp_page_copy()). Charged by sched's pageFault
	// (a PTE made writable, wp_page_shared(), is charged ZeroPageFault:
	// no page allocated either). Fitted from cost/testdata/faults.txt
	// (FitFaults).
	AnonFault, ZeroPageFault, FileMapFault, CopyFault sim.Duration

	// FileReadPerKiB and FileWritePerKiB are the CPU time a read(2) of a
	// regular file's cached pages and a write(2) that caches and dirties
	// them spend a KiB (filemap_read()'s copy_folio_to_iter(),
	// generic_perform_write()'s copy and ext4's delayed allocation), on
	// top of the syscall. Charged by sched's fileIO. Fitted from
	// cost/testdata/fileio.txt (FitFileIO).
	FileReadPerKiB, FileWritePerKiB sim.Duration

	// DiskReadBase and DiskReadPerKiB are how long the disk takes to
	// serve a read of n KiB alone: DiskReadBase + n * DiskReadPerKiB (a
	// major fault's read, the async readahead's; a task waits for its
	// page in D). Reads overlap in their DiskReadBase, not in their
	// transfer (mm.FS.ReadLatency, ReadPerPage, which sched sets). Fitted
	// from cost/testdata/diskread.txt (FitDiskRead).
	DiskReadBase, DiskReadPerKiB sim.Duration

	// DiskWriteBase and DiskWritePerKiB are how long the disk takes to
	// write n KiB back: DiskWriteBase + n * DiskWritePerKiB (an fsync()'s
	// writeback, which its task waits for in D; a POSIX_FADV_DONTNEED's,
	// which nobody waits for), in the reads' queue (mm.FS.WriteLatency,
	// WritePerPage). Fitted from cost/testdata/diskwrite.txt
	// (FitDiskWrite).
	DiskWriteBase, DiskWritePerKiB sim.Duration

	// PerfMmapBase and PerfMmapPerPage are an mmap() of a perf ring that
	// is allocated already (a second mapping of it): the syscall,
	// do_mmap() and map_range()'s vm_insert_pages() of each page (user
	// page counted). RbAllocBase and RbAllocPerPage are what a mapping
	// that allocates the ring spends more: rb_alloc()'s zeroed pages.
	// PerfMunmapBase and PerfMunmapPerPage are a munmap() of a perf
	// mapping, the syscall, the zap and perf_mmap_close() (the ring's last
	// close frees it in the same time, within the noise). Charged by
	// pmu's perf_mmap() (RbAlloc* after rb_alloc(), and per AUX page after
	// rb_alloc_aux(), whose pages are zeroed the same way; PerfMmap* where
	// map_range() runs, under event->mmap_mutex) and munmap() (per VMA
	// closed, and per VMA exit_mmap() closes). Fitted from
	// cost/testdata/perfmmap.txt (FitPerfMmap).
	PerfMmapBase, PerfMmapPerPage     sim.Duration
	RbAllocBase, RbAllocPerPage       sim.Duration
	PerfMunmapBase, PerfMunmapPerPage sim.Duration
}

// Free is the zero profile: kernel work takes no virtual time.
var Free = Profile{Name: "free", Source: "no cost model: kernel work is free (perfsim before the cost model)"}

// Callchain is what a callchain of n entries costs.
func (p *Profile) Callchain(n int) sim.Duration {
	if n == 0 {
		return 0
	}
	return p.CallchainSetup + sim.Duration(n)*p.CallchainEntry
}

// Table prints p one cost a line, for `simrun knobs` and the note.
func (p *Profile) Table() []string {
	rows := []struct {
		name string
		d    sim.Duration
	}{
		{"syscall entry+exit", p.SyscallEntryExit},
		{"syscalls:* tracepoint fire", p.SyscallTracepoint},
		{"other tracepoint fire", p.TraceEvent},
		{"sample record", p.SampleRecord},
		{"callchain setup", p.CallchainSetup},
		{"callchain entry", p.CallchainEntry},
		{"context switch", p.ContextSwitch},
		{"  of it before sched_switch", p.SchedulePick},
		{"perf context switch", p.PerfContextSwitch},
		{"hrtimer sample irq", p.HrtimerSample},
		{"perf record per pass", p.ReaderRound},
		{"perf record per KiB written", p.ReaderPerKiB},
		{"clone() of a process", p.CloneProcess},
		{"clone() of a thread", p.CloneThread},
		{"wait4() reaping a zombie", p.Wait4Reap},
		{"exit: start", p.ExitStart},
		{"exit: exit_mm (exit_mmap)", p.ExitMMap},
		{"exit: files to exit_notify", p.ExitFiles},
		{"exit: exit_notify to switch", p.ExitDead},
		{"thread exit: start", p.ExitThreadStart},
		{"thread exit: exit_mm", p.ExitThreadMM},
		{"thread exit: the rest", p.ExitThreadRest},
		{"exec: to exec_mmap", p.ExecStart},
		{"exec: after exec_mmap", p.ExecLoad},
		{"page fault: anon page", p.AnonFault},
		{"page fault: zero page", p.ZeroPageFault},
		{"page fault: fault-around", p.FileMapFault},
		{"page fault: page copied", p.CopyFault},
		{"file read per KiB", p.FileReadPerKiB},
		{"file write per KiB", p.FileWritePerKiB},
		{"disk read", p.DiskReadBase},
		{"disk read per KiB", p.DiskReadPerKiB},
		{"disk write", p.DiskWriteBase},
		{"disk write per KiB", p.DiskWritePerKiB},
		{"perf mmap (mapped ring)", p.PerfMmapBase},
		{"perf mmap per page", p.PerfMmapPerPage},
		{"rb_alloc", p.RbAllocBase},
		{"rb_alloc per page", p.RbAllocPerPage},
		{"perf munmap", p.PerfMunmapBase},
		{"perf munmap per page", p.PerfMunmapPerPage},
	}
	out := make([]string, len(rows), len(rows)+1)
	for i, r := range rows {
		out[i] = fmt.Sprintf("%-28s %s", r.name, r.d)
	}
	return append(out, fmt.Sprintf("%-28s %d per million", "hrtimer a period late", p.HrtimerLatePerMillion))
}

// HrtimerLate reports whether the n-th expiry of an hrtimer on cpu runs a
// period late (HrtimerLatePerMillion of them do): a splitmix64 hash of the
// pair, so which ones are late depends on nothing but the count.
func (p *Profile) HrtimerLate(cpu int, n uint64) bool {
	if p.HrtimerLatePerMillion <= 0 {
		return false
	}
	z := n*0x9e3779b97f4a7c15 + uint64(cpu+1)*0xd1b54a32d192ed03
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return z%1000000 < uint64(p.HrtimerLatePerMillion)
}
