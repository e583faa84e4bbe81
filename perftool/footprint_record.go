package perftool

import (
	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/sched"
)

// The footprints of perf record's own user-mode code (tools/perf/
// builtin-record.c: __cmd_record()), so that its fragments may be complete.
//
//   - Annotated user code (sched.Sched.RunAnnotated: the syscalls it makes
//     return into it unmarked; back in perf's code after it, the fragment
//     is marked): the opens and ids (recordOpen), the mmaps and the side
//     band's (mapRings), the record run (recordRun: the forked workload's
//     COMM and FINISHED_INIT written, the cork's write, and the loop,
//     recordLoop: the pass over the rings, mmapReadAll; the overwrite rings
//     paused and resumed; poll), the final drain (readRings), the munmaps
//     and closes (unmapAndClose). The rest (option and /proc parsing, the
//     filters, the tail's synthesis, the lost samples read, the -S snapshot
//     at exit) is Go code nobody annotated. Inside the annotated run, the
//     synthesis from /proc (the scheduler's tasks and cgroups read
//     directly), the -S snapshots' reads and the evlist's enable and
//     disable (evlistToggle reads perf's affinity from the task, no
//     syscall) run with sched.Sched.RunUnannotated. The flags the loop
//     reads that its signal handlers set (done, switchHit, snapStart) are
//     written by perf's own thread in handlers nobody annotated: marked.
//   - What that code touches another context can see: data_head (READ_ONCE
//     then smp_rmb(): ring_buffer_read_head()), the data pages it copies,
//     data_tail (smp_store_release(): perf_mmap__write_tail()); in the
//     full-trace read of an AUX area (__auxtrace_mmap__read()) aux_head,
//     the area's size and bytes, aux_tail; aux_offset and aux_size before
//     the AUX mmap: annotated on the ring (rb.Buffer.UserAccess). The
//     ioctls, mmaps, writes are syscalls, whose entry and bodies sched and
//     enterBody judge.
//   - The rest is perf's own memory: the reader's positions, the pass's
//     counts, its tables of fds and mappings, the perf.data it writes. Only
//     perf's threads touch it, and the others' code (the actions' threads,
//     the spinner) is a Go callback nobody annotated: marked, dependent on
//     everything.
//
// perf's write(2)s of perf.data, of the rings' bytes, of the AUX areas'
// and of the records it makes itself (pushfn, processAuxtrace, writeSynth)
// have annotated bodies (sched.Sched.SyscallAnnotated): the model's
// sys_write appends to the session's PerfData, perf's own (no other
// context reads a file only perf writes), and takes from the keep budget
// the run's sessions share (accessKeep). So has the cork's write
// (accessCorkWrite; the workload's wake-up is sched's annotated one: wakeCork).
//
// The readers' step points are declared complete: "ring_buffer_read_head:
// loaded" (data_head loaded), "auxtrace_mmap__read_head:loaded" (aux_head
// loaded) and "auxtrace_mmap__write_tail:mb" (before aux_tail's store).
// The fragment that starts at one goes on in the reader's caller,
// annotated only in perf record's pass; every other caller (the actions'
// readers, the spinner, the AUX snapshots of -S, which run unannotated
// from the loop or from a signal handler) is marked there
// (markReaderCaller, sched.Task.MarkUnlessAnnotated).
func init() {
	cpu.DeclareComplete("ring_buffer_read_head:loaded", "auxtrace_mmap__read_head:loaded", "auxtrace_mmap__write_tail:mb")
}

// readRings is mmapReadAll run as annotated user code (above).
func (ss *Session) readRings(t *sched.Task, synch bool) error {
	return ss.annotated(t, func(t *sched.Task) error { return ss.mmapReadAll(t, synch) })
}

// markReaderCaller marks the fragment that starts at a reader's step point
// (the task's or a tool thread's: readStepper) unless the task runs
// annotated user code (the record loop's pass). A stepper that is neither
// is a test's harness, no task of a machine.
func markReaderCaller(s rb.Stepper) {
	switch s := s.(type) {
	case *sched.Task:
		s.MarkUnlessAnnotated("the ring reader's caller")
	case readStepper:
		s.t.MarkUnlessAnnotated("the ring reader's caller")
	}
}

// accessKeep annotates a write(2) body's use of the keep budget the
// sessions of a run share (PerfData.keep: a read and a write of what is
// left, the simulator's own bound on the memory perf.data takes, no
// kernel's), before PerfData.write: the write that goes over it drops what
// is kept, materializing the lazy AUX pieces (perfdata_lazy.go), which
// nobody annotated: marked.
//
// A write that leaves at least half the budget is an add, which commutes
// with the other adds: two sessions' writes then touch no state whose
// order matters. Sound: if A and then B each left half or more, B left
// Left-nA-nB >= Total/2; run B first and it leaves Left-nB, more, and A
// after it Left-nA-nB again: each still fits, still leaves half, and the
// budget ends the same. A write that leaves less is a write, which
// conflicts with every add, so the orders in which one session's write
// could decide another's drop are all tried.
func (ss *Session) accessKeep(t *sched.Task, n int) {
	d := ss.Data
	if n == 0 || d.Discard || d.Keep == nil || d.Dropped || !ss.S.M.FootprintListening() {
		return // PerfData.write does not look at the budget
	}
	c := t.CPU()
	if int64(n) > d.Keep.Left {
		c.Unaudited("PerfData.drop")
		return
	}
	if d.Keep.Left-int64(n) >= d.Keep.Total/2 {
		c.AccessMarkedOnly(d.Keep, "keep budget: Left", cpu.AtomicAdd, "PerfData.keep") // perfdata.go: PerfData.keep(): d.Keep.Left -= n, far from the bound
		return
	}
	c.AccessMarkedOnly(d.Keep, "keep budget: Left", cpu.MarkedWrite, "PerfData.keep") // perfdata.go: PerfData.keep(): d.Keep.Left -= n
}

// FootprintKey implements cpu.FootprintKeyer: a run has one budget.
func (*KeepBudget) FootprintKey() string { return "perf.data keep budget" }

// annotated runs step, a part of perf's setup or teardown whose code is
// annotated, with sched.Sched.RunAnnotated: the evsels' opens and their ids
// read (recordOpen), the rings' mmaps and redirections (recordMmap,
// auxtraceMmap: aux_offset and aux_size written on the ring's user page;
// setupSideBand), the munmaps and closes at the end (unmapAndClose). Their
// Go code between the syscalls computes perf's own tables (Record.Opens,
// the fds, the ids, the poll list); it reads the kernel's objects it was
// handed only where they do not change after the syscall that made them
// (a mapping's ring's size and mask: NewMmap) or where their writers are
// marked (a mapping's length, which only an action's munmap splits). The
// one shortcut, a -G cgroup's directory opened without a syscall
// (cgroupFD), is marked.
func (ss *Session) annotated(t *sched.Task, step func(*sched.Task) error) (err error) {
	ss.S.RunAnnotated(t, func() { err = step(t) })
	return err
}

// perf's main and the workload's child side run as annotated user code
// (sched.CallAnnotated: NewSession), so the fragments that start in them
// (the task's first, from perf_event_task_sched_in; the return from each
// syscall, exit_to_user_mode_loop) may be complete:
//
//   - main: record() and finish() between the annotated steps above only
//     compute perf's own tables and flags (the filters' strings, the
//     snapshot trigger, Err, Finished: read by perf's own code, by its
//     signal handlers and by the actions' threads, all Go code nobody
//     annotated, marked), except where they read the scheduler's or the
//     kernel's objects without a syscall or write records: the -p/-t
//     thread map from /proc (resolveThreads), the filters' symbols and
//     their ioctls (resolveFilters, applyFilters), the -S snapshot at exit,
//     the --overwrite tail's synthesis (its COMM reads the workload's comm):
//     each of those runs with sched.Sched.RunUnannotated when it does
//     anything (unannotated). The PERF_FORMAT_LOST read of each event's
//     lost_samples after the final drain (recordReadLostSamples) is
//     annotated (accessLostSamples), so the fragment the drain's last
//     step point starts goes on through it, complete, to the write(2) of
//     a LOST_SAMPLES record or the first munmap(2) of unmapAndClose.
//   - workloadChild: the cork's read(2), its body annotated up to its
//     sleep (accessCorkRead) and from schedule()'s return (accessCorkWoken), the
//     cork's state read on the way back to user mode (accessCork), then
//     the exec (sched's annotated execve body: sched/footprint_exec.go).

// unannotated runs fn, a part of perf's code nobody annotated, with
// sched.Sched.RunUnannotated when run says it does something there;
// otherwise fn only computes perf's own memory and runs as the annotated
// code around it.
func (ss *Session) unannotated(t *sched.Task, run bool, fn func() error) (err error) {
	if !run {
		return fn()
	}
	ss.S.RunUnannotated(t, func() { err = fn() })
	return err
}

// synthesizeReadsOwn reports whether recordRun's synthesis and enable
// touch only perf's own memory, so that they run as the annotated code
// around them: for a forked workload (no -p/-t/-a/-C target: no /proc
// walk, no enable, synthesize() returns after the header records) without
// --all-cgroups, synthesizeHeaderRecords() reads perf's own tables (the
// attrs and their ids, the evsels, the forked child's PID, which perf got
// from fork(2)), the machine's CPU count and the PMUs' formats (fixed for
// the run), and writes perf's headerSynth; with --all-cgroups it walks
// the scheduler's cgroup tree (cgroupRecords), which another context's
// mkdir changes, and any other target reads /proc and issues the enable
// ioctls: those run unannotated.
func (ss *Session) synthesizeReadsOwn() bool {
	return ss.R.Target.None() && !ss.R.AllCgroups
}

// anyFilter reports whether an evsel has a --filter (resolveFilters
// resolves its symbols; applyFilters sets it with an ioctl).
func (ss *Session) anyFilter() bool {
	for i := range ss.R.Evsels {
		if ss.R.Evsels[i].Filter != "" {
			return true
		}
	}
	return false
}

// accessLostSamples annotates record__read_lost_samples()'s look at e's
// lost_samples (PERF_FORMAT_LOST), which the model's perf reads without
// the read(2) (the fd looked up, annotated by pmu.Kernel.EventOf's
// lookup) and the output path's failures add to, in any context
// (__perf_output_begin(): atomic64_inc()).
func (ss *Session) accessLostSamples(t *sched.Task, e *pmu.Event) {
	if ss.S.M.FootprintListening() {
		t.CPU().AccessMarkedOnly(e, "event->lost_samples", cpu.MarkedRead, "perf_read_one") // kernel/events/core.c: perf_read_one(): values[n++] = atomic64_read(&event->lost_samples)
	}
}

// corkKey is the cork pipe perf forks its workload with (evlist->workload.cork_fd):
// its byte (Session.uncorked) and its wait queue.
type corkKey struct{ ss *Session }

// FootprintKey implements cpu.FootprintKeyer: perf's thread names it.
func (k corkKey) FootprintKey() string { return k.ss.Perf.Thread.FootprintKey() + "/cork pipe" }

// FootprintExtent is the memory the key names (explore's write audit).
func (k corkKey) FootprintExtent() []any { return []any{&k.ss.uncorked, &k.ss.cork} }

// accessCork annotates the workload child's look at the cork pipe (perf's
// write to it, evlist__start_workload(), makes its read return) and
// reports whether perf wrote it. The write is in code nobody annotated
// (startWorkload's body, accessCorkWrite).
func (ss *Session) accessCork(t *sched.Task) bool {
	if ss.S.M.FootprintListening() {
		t.CPU().AccessMarkedOnly(corkKey{ss}, "pipe->mutex", cpu.MarkedRead, "evlist__prepare_workload") // tools/perf/util/evlist.c: evlist__prepare_workload(): read(go_pipe[0], &bf, 1)
	}
	return ss.uncorked
}

// accessCorkRead annotates the child's read(2) of the cork up to its
// sleep: the fd looked up, the pipe locked and read, and when it is empty
// the wait queued (prepare_to_wait_event(): the task's state, its signal
// flags) before schedule()'s step point; the return from schedule() is
// annotated too (accessCorkWoken).
func (ss *Session) accessCorkRead(t *sched.Task) {
	if !ss.S.M.FootprintListening() {
		return
	}
	c := t.CPU()
	sched.AccessFdLookup(c, t, "pipe_read")                                      // fs/read_write.c: ksys_read(): fdget_pos(fd)
	c.AccessMarkedOnly(corkKey{ss}, "pipe->mutex", cpu.MarkedWrite, "pipe_read") // fs/pipe.c: pipe_read(): __pipe_lock(pipe), the buffer read
	if !ss.uncorked {
		c.AccessMarkedOnly(t, "thread_info->flags", cpu.MarkedRead, "pipe_read") // include/linux/sched/signal.h: signal_pending(current)
		c.AccessMarkedOnly(t, "p->__state", cpu.MarkedWrite, "pipe_read")        // kernel/sched/wait.c: prepare_to_wait_event(): set_current_state(TASK_INTERRUPTIBLE)
	}
}

// accessCorkWoken annotates the child's read(2) of the cork once
// schedule() returns into it (sched.Sched.WaitAnnotated), up to the
// syscall's exit (whose sys_exit and registers the entry's annotation
// covers) and exit_to_user_mode_loop's step point: the wait entry taken
// off the pipe's wait queue, the pipe locked again and its byte read,
// signal_pending(); a read still empty waits again (the task's state set,
// the entry queued) before __schedule()'s step point.
func (ss *Session) accessCorkWoken(t *sched.Task) {
	if !ss.S.M.FootprintListening() {
		return
	}
	c := t.CPU()
	c.AccessMarkedOnly(corkKey{ss}, "pipe->mutex", cpu.MarkedWrite, "pipe_read") // fs/pipe.c: pipe_read(): wait_event_interruptible_exclusive() -> finish_wait(); __pipe_lock(pipe), the byte read
	c.AccessMarkedOnly(t, "thread_info->flags", cpu.MarkedRead, "pipe_read")     // include/linux/sched/signal.h: signal_pending(current)
	c.AccessMarkedOnly(t, "p->__state", cpu.MarkedWrite, "pipe_read")            // kernel/sched/wait.c: prepare_to_wait_event(): set_current_state(TASK_INTERRUPTIBLE), a wait again
}

// accessCorkWrite annotates perf's write(2) of the cork
// (evlist__start_workload()): the fd looked up, the pipe locked and
// written (its wait queue with it: the child's entry taken off by the
// wake-up). A child waiting in its read is woken by sched's annotated
// try_to_wake_up() (sched.Sched.WakeUpAllAnnotated, wakeCork), whose
// return into this body, annotated up to the syscall's exit, is not
// marked.
func (ss *Session) accessCorkWrite(t *sched.Task) {
	if !ss.S.M.FootprintListening() {
		return
	}
	c := t.CPU()
	sched.AccessFdLookup(c, t, "pipe_write")                                      // fs/read_write.c: ksys_write(): fdget_pos(fd)
	c.AccessMarkedOnly(corkKey{ss}, "pipe->mutex", cpu.MarkedWrite, "pipe_write") // fs/pipe.c: pipe_write(): __pipe_lock(pipe), the byte copied; wake_up_interruptible_sync_poll(&pipe->rd_wait): the wait queue
}

// wakeCork wakes the child waiting in its read(2) of the cork, from
// perf's write(2) body: fs/pipe.c: pipe_write():
// wake_up_interruptible_sync_poll(&pipe->rd_wait, EPOLLIN | EPOLLRDNORM),
// with sched's annotated try_to_wake_up() (footprint_wake.go).
func (ss *Session) wakeCork() { ss.S.WakeUpAllAnnotated(&ss.cork) }
