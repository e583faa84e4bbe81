package perftool

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// Signals perf record handles (x86-64 numbers).
const (
	sigINT  = 2
	sigCHLD = 17
)

// SessionOptions are the parameters of the perf record process model.
//
// The costs are what perf's own work takes on its CPU. perf record does not
// look at the records it copies: record__mmap_read_all() hands each ring's
// new bytes to record__pushfn(), one write(2) per contiguous piece
// (perf_mmap__push()); parsing happens later, in perf report / script. So
// the defaults charge a small fixed cost per ring visited, a write syscall
// per piece and a per-byte copy (copy_from_user into the page cache), and
// nothing per record. Set WritePerKiB to 0 for `-o /dev/null` (seed 002's
// benchmark), and PerRecord for a reader that parses in the loop (perf top,
// perf trace).
type SessionOptions struct {
	// CPU pins the perf process to one CPU; -1 lets it run anywhere.
	CPU int
	// Comm is the perf process's comm ("perf").
	Comm string
	// MmapVisit is user time per ring per pass: perf_mmap__read_head(),
	// perf_mmap__read_init() and the bookkeeping around push (default 50ns).
	MmapVisit sim.Duration
	// WriteSyscall is the fixed kernel time of one write(2) of a piece to
	// perf.data, besides the entry/exit path (default 1µs).
	WriteSyscall sim.Duration
	// WritePerKiB is the copy cost per KiB written (default 250ns: ~4 GiB/s).
	WritePerKiB sim.Duration
	// PerRecord is user time per record copied (default 0; see above).
	PerRecord sim.Duration
	// SwitchOutputSignal models --switch-output=signal: SIGUSR2 then makes
	// perf collect the --overwrite rings (pause, read, resume) on the spot.
	// Without it (and without -S) perf ignores SIGUSR2.
	SwitchOutputSignal bool
	// NoSideBand skips the BPF side-band evlist (--no-bpf-event) even when
	// the Record has one.
	NoSideBand bool
	// Tasks are the scenario's declared tasks by name, for -p/-t
	// (session_target.go); names not in it are programs' names.
	Tasks map[string]*sched.Task
	// Knobs are the tool knobs' values (ToolKnobs; unset: the default).
	Knobs map[string]string
	// Symbolize resolves sample ips for Script (default: Kernel.Symbolize).
	Symbolize func(pid, tid int, ip uint64, kernel bool) (sym string, off uint64, dso string, ok bool)
	// NoMergeCallchains is perf script --no-merge-callchains.
	NoMergeCallchains bool
}

// DefaultSessionOptions returns the defaults documented on SessionOptions.
func DefaultSessionOptions() SessionOptions {
	return SessionOptions{CPU: -1, Comm: "perf", MmapVisit: 50 * sim.Nanosecond,
		WriteSyscall: 1 * sim.Microsecond, WritePerKiB: 250 * sim.Nanosecond}
}

// bkwState is enum bkw_mmap_state of tools/perf/util/evlist.h.
type bkwState uint8

const (
	bkwNotReady    bkwState = iota // BKW_MMAP_NOTREADY
	bkwRunning                     // BKW_MMAP_RUNNING
	bkwDataPending                 // BKW_MMAP_DATA_PENDING
	bkwEmpty                       // BKW_MMAP_EMPTY
)

// SessionMmap is one ring perf mapped (struct mmap): the fd it mapped, the
// other fds redirected into it with PERF_EVENT_IOC_SET_OUTPUT, and the
// tools/lib/perf reader state.
type SessionMmap struct {
	CPU       int // -1 for a --per-thread ring
	FD        int
	Outputs   []int // fds set to output into this ring
	Overwrite bool
	Map       *pmu.Mapping
	Reader    *Mmap

	pushedEnd uint64 // furthest position pushed (forward rings)
	pushedAny bool
	traceRec  []byte // tracePushed's copy of the record it reports
	// pushBuf is pushfn's copy of the piece it writes, reused: the write
	// copies it into perf.data before the next push of this ring.
	pushBuf []byte
}

// Session is a `perf record` process: a task of the simulated machine that
// opens the events of a parsed Record, maps their rings, lets the workload
// exec, copies the rings into an in-memory perf.data until the workload is
// gone (or ^C), reads what is left, SIGTERMs the workload if it has not
// heard of its end and waits for it (waitWorkload).
// tools/perf/builtin-record.c: __cmd_record()
type Session struct {
	R    *Record
	K    *pmu.Kernel
	S    *sched.Sched
	Opts SessionOptions

	cgroupFDs map[string]int // -G: the cgroup directories perf opened (cgroup.go)

	Perf     *sched.Task // the perf process
	Workload *sched.Task // the forked workload (nil for -a/-C without one)

	Data  *PerfData
	Mmaps []*SessionMmap
	// FDs are the fds perf_event_open returned, one per Record.Opens() entry.
	FDs []int
	// filters are the evsels' filters as perf writes them (filter.go).
	filters map[int]string
	// SideBandFDs are the BPF side-band evlist's fds (never read: no BPF
	// program loads in the simulation).
	SideBandFDs  []int
	sideBandMaps []*pmu.Mapping
	// strayFDs are fds of threads dropped from a -p thread map
	// (evsel__remove_fd() forgets them; perf's exit closes them).
	strayFDs       []int
	ignoredThreads int

	// Err is why perf gave up (a failed perf_event_open, mmap or ioctl).
	Err error
	// affinityCPU is the CPU --affinity=cpu last moved perf to, plus one
	// (0: it has not moved; the thread's mask starts empty).
	affinityCPU int
	// Warnings are what perf printed and carried on with.
	Warnings []string
	// Finished is set when the perf process has written its perf.data.
	Finished bool

	stats sessionStats

	pollFDs  []int
	pollIn   map[int]bool
	done     bool
	draining bool
	disabled bool
	forked   bool // evlist__prepare_workload() ran: perf's error paths kill and wait for the workload
	uncorked bool
	// childFinished is child_finished: perf took its SIGCHLD (sig_handler()),
	// so the loop's end needs no SIGTERM for the workload.
	childFinished bool
	// signr is the signal perf raises on itself at exit (record__sig_exit()):
	// the SIGINT it took (sig_handler()), or the one that killed its workload
	// (WTERMSIG(exit_status)); 0 for none (-1 in perf).
	signr     int
	cork      sched.WaitQueue
	corkMutex cpu.SyncClock // the cork pipe's pipe->mutex, for the data-race oracle
	bkw       bkwState
	switchHit bool
	snapStart bool

	tool toolState // what the registered actions keep (actions.go)
	aux  auxState  // the AUX areas (session_aux.go)
	spin spinState // the spin-read action's reader (spin_reader.go)

	headerSynth []byte // synthesized records written with the next writeSynth (perfdata_synth.go)
}

// sessionStats are the counters perf keeps while recording.
type sessionStats struct {
	wakeups   int64 // waking: poll returns
	pushes    int64 // rec->samples: record__pushfn() calls
	bytes     int64 // bytes copied out of the rings
	keepup    int64 // "failed to keep up with mmap data" (forward reader skipped a lap)
	dupBytes  int64 // bytes pushed twice (perf_mmap__push's prev = the older head)
	snapshots int64 // SIGUSR2 snapshots taken
	rounds    int64 // FINISHED_ROUND records written
}

// NewSession starts `perf record` as described by r on machine s with perf
// core k. For a forked workload (r.Target.None()) workload is the task perf
// forks: it must not have run yet; its program is prefixed with the child
// side of evlist__prepare_workload() (wait on the cork, then exec, which
// enables the enable_on_exec events). For -a/-C, workload may be nil or a
// task whose exit ends the session (perf record -a -- cmd). The perf task is
// spawned now and runs when the machine runs.
// tools/perf/builtin-record.c: cmd_record() -> __cmd_record()
func NewSession(r *Record, k *pmu.Kernel, s *sched.Sched, workload *sched.Task, o SessionOptions) (*Session, error) {
	if o.Comm == "" {
		o.Comm = "perf"
	}
	if c := s.Cfg.Cost; c.ReaderRound > 0 || c.ReaderPerKiB > 0 {
		// The cost model's figures for perf record itself (cost.Profile):
		// a pass that found data, and the copy per KiB.
		o.MmapVisit, o.WriteSyscall, o.WritePerKiB = 0, 0, c.ReaderPerKiB
	}
	ss := &Session{R: r, K: k, S: s, Opts: o, Workload: workload, Data: newPerfData(r), pollIn: map[int]bool{}}
	ss.Data.BuildIDOf = ss.fileBuildID
	if r.Target.None() && workload == nil {
		return nil, fmt.Errorf("perf record: a forked workload is needed without -a/-C")
	}
	if workload != nil {
		if workload.Ran != 0 || workload.KernelEntries != 0 {
			return nil, fmt.Errorf("perf record: workload %s has already run; perf must fork it", workload)
		}
		workload.Prog = append([]sched.Op{sched.CallAnnotated(ss.workloadChild)}, workload.Prog...) // footprint_record.go
		s.ExitHooks = append(s.ExitHooks, sessionExitHook{ss})
	}
	var mask sched.CPUMask
	if o.CPU >= 0 {
		mask = sched.MaskOf(o.CPU)
	}
	ss.Perf = s.Spawn(o.Comm, mask, sched.CallAnnotated(ss.main)) // footprint_record.go
	if workload != nil {                                          // perf forks it: its real_parent
		s.ForkedBy(workload, ss.Perf)
	}
	ss.corkMutex.SetKey(&ss.Perf.Thread, "cork pipe->mutex") // its stable key (cpu.FootprintKey)
	return ss, nil
}

// sessionExitHook delivers SIGCHLD to perf when the workload's process is
// dead: at do_notify_parent(), in the exit that notifies (the last thread
// to go, after exit_mm() and exit_files(): whichever thread that is; after
// an exec's de_thread() it is not the task perf forked).
type sessionExitHook struct{ ss *Session }

// TaskExit implements sched.TaskExitHook: nothing at the exit's start.
func (h sessionExitHook) TaskExit(t *sched.Task) {}

// AccessTaskExit implements sched.AnnotatedExitHook: TaskExit reads nothing.
func (h sessionExitHook) AccessTaskExit(t *sched.Task) bool { return true }

// NotifyParent implements sched.ParentNotifyHook: SIGCHLD to perf for its
// workload's process.
// kernel/exit.c: exit_notify() -> kernel/signal.c: do_notify_parent()
func (h sessionExitHook) NotifyParent(t, l *sched.Task) {
	if w := h.ss.Workload; w == nil || l.PID != w.PID {
		return
	}
	h.ss.signal(sigCHLD, func() { h.ss.childFinished, h.ss.done = true, true }) // sig_handler(): child_finished = 1; done = 1
}

// AccessNotifyParent implements sched.AnnotatedParentNotifyHook: the
// SIGCHLD to perf reads perf's state and whether its session finished
// (the model's look: gone, or done recording, takes no signal), and
// send_signal_locked() annotates itself (sched/footprint_signal.go);
// another process's notification reads nothing (the workload is the
// session's, fixed before anything runs).
func (h sessionExitHook) AccessNotifyParent(t, l *sched.Task) bool {
	if w := h.ss.Workload; w == nil || l.PID != w.PID || h.ss.Perf == nil {
		return true
	}
	c := t.CPU()
	c.AccessMarkedOnly(h.ss.Perf, "p->__state", cpu.MarkedRead, "do_notify_parent")           // kernel/signal.c: do_notify_parent(): the parent, as the model skips a dead one
	c.AccessMarkedOnly(finishedKey(h), "Session.Finished", cpu.MarkedRead, "sessionExitHook") // the model's: a session done recording takes no signal
	return true
}

// finishedKey is the session's Finished, which perf's finish writes and
// the workload's exit hook reads (Session.signal).
type finishedKey struct{ ss *Session }

// FootprintKey implements cpu.FootprintKeyer: perf's thread names it.
func (k finishedKey) FootprintKey() string {
	return k.ss.Perf.Thread.FootprintKey() + "/session finished"
}

// FootprintExtent is the memory the key names (explore's write audit).
func (k finishedKey) FootprintExtent() []any { return []any{&k.ss.Finished} }

// signal queues a signal for the perf process with its handler, which
// only sets perf's own flags (sig_handler(): done = 1): annotated user
// code (sched.CallAnnotated, footprint_record.go). perf installs its
// handlers with glibc's signal(), whose sa_flags are SA_RESTART: a wait4()
// the signal interrupts runs again (perf 6.1 on this machine, strace:
// rt_sigaction(SIGINT, {sa_handler=..., sa_flags=SA_RESTORER|SA_RESTART}).
// tools/perf/builtin-record.c: __cmd_record(): signal(SIGINT, sig_handler)
func (ss *Session) signal(sig int, handler func()) {
	if ss.Perf == nil || ss.Perf.State == sched.Dead || ss.Finished {
		return
	}
	ss.S.SendSignal(ss.Perf, sched.Signal{Sig: sig, SaFlags: sched.SA_RESTART, Handler: []sched.Op{sched.CallAnnotated(func(*sched.Task) { handler() })}})
}

// Stop is ^C (SIGINT): perf stops recording, disables the events and
// drains the rings. This is how a -a session without a workload ends.
func (ss *Session) Stop() { ss.signal(sigINT, func() { ss.signr, ss.done = sigINT, true }) } // sig_handler(): signr = sig; done = 1

// Snapshot is `kill -USR2 <perf>`: snapshot_sig_handler(). With -S it
// starts an AUX area snapshot (session_aux_snapshot.go); with
// SwitchOutputSignal it makes perf collect the --overwrite rings. Otherwise
// perf ignores SIGUSR2 (signal(SIGUSR2, SIG_IGN)).
func (ss *Session) Snapshot() {
	if ss.R.Snapshot == nil && !ss.Opts.SwitchOutputSignal {
		return
	}
	if ss.Perf == nil || ss.Perf.State == sched.Dead || ss.Finished {
		return
	}
	ss.S.SendSignal(ss.Perf, sched.Signal{Sig: sched.SIGUSR2, SaFlags: sched.SA_RESTART, Handler: []sched.Op{sched.Call(func(t *sched.Task) { // signal(SIGUSR2, snapshot_sig_handler)
		if ss.R.Snapshot != nil {
			ss.hitAuxtraceSnapshotTrigger(t) // session_aux_snapshot.go
		}
		if ss.Opts.SwitchOutputSignal {
			ss.switchHit = true // trigger_hit(&switch_output_trigger)
		}
	})}})
}

// workloadComm is the forked child's comm until its exec:
// evlist__prepare_workload() sets it with prctl(PR_SET_NAME, "perf-exec").
const workloadComm = "perf-exec"

// workloadChild is the forked child until exec: it blocks reading the cork
// pipe until perf writes to it, then execs the workload, where the kernel
// enables the enable_on_exec events (perf_event_exec()).
// tools/perf/util/evlist.c: evlist__prepare_workload() (child branch)
//
// A signal for the child ends its wait (pipe_read() returns -ERESTARTSYS):
// the handler runs on the way back to user mode and read(2) starts over;
// perf's SIGTERM when it gives up (waitWorkload), fatal, kills it there
// before it ever execs.
func (ss *Session) workloadChild(t *sched.Task) {
	for !ss.accessCork(t) {
		ss.S.SyscallAnnotated(t, "read", func(t *sched.Task) {
			ss.accessCorkRead(t) // footprint_record.go
			for !ss.uncorked && ss.S.WaitAnnotated(t, &ss.cork, func() { ss.accessCorkWoken(t) }) {
			}
			// pipe_read() takes pipe->mutex, which pipe_write() released:
			// what perf did before the write happens before the exec, even
			// when the child found the byte there without sleeping (the
			// data-race oracle's edge; a wake-up gives it only to a sleeper).
			if ss.uncorked {
				t.CPU().Acquire(&ss.corkMutex)
			}
		})
	}
	ss.S.Exec(t, WorkloadPath(t.Comm)) // begin_new_exec(): perf_event_exec(), the exec COMM, the image's MMAP2s

}

// WorkloadPath is the file the simulated workload TASK execs: /usr/local/bin/TASK.
func WorkloadPath(task string) string { return "/usr/local/bin/" + task }

// startWorkload writes the cork: evlist__start_workload().
func (ss *Session) startWorkload(t *sched.Task) {
	ss.S.SyscallAnnotated(t, "write", func(t *sched.Task) {
		ss.accessCorkWrite(t)          // footprint_record.go
		t.CPU().Release(&ss.corkMutex) // pipe_write(): mutex_unlock(&pipe->mutex)
		ss.uncorked = true
		ss.wakeCork() // footprint_record.go
	})
}

// main is the perf process.
// tools/perf/builtin-record.c: __cmd_record()
func (ss *Session) main(t *sched.Task) {
	// Not deferred: when a run is cut short, the machine kills the
	// coroutines, and a deferred finish would run kernel code in a dead one.
	ss.record(t)
	ss.waitWorkload(t)
	ss.finish(t)
	ss.sigExit(t)
}

// sigExit is record__sig_exit(), which cmd_record() registered with
// atexit(): perf ends by the signal that ended the recording (^C's
// SIGINT) or its workload (a workload killed by SIGTERM makes perf die of
// SIGTERM: perf 6.1 on this machine, ^C to `perf record -- W`, under
// strace: wait4() returns W WIFSIGNALED/SIGTERM, then perf's
// tgkill(perf, perf, SIGTERM), "killed by SIGTERM"; the shell's status 143).
// tools/perf/builtin-record.c: record__sig_exit()
func (ss *Session) sigExit(t *sched.Task) {
	if ss.signr == 0 {
		return
	}
	ss.S.RaiseDefault(t, ss.signr) // signal(signr, SIG_DFL); raise(signr)
}

// waitWorkload is __cmd_record()'s end for a forked workload, once the
// recording loop is over or perf gave up after evlist__prepare_workload()
// (record__open() failed, say), before the output is finished and the
// events closed (evlist__delete(), after __cmd_record()): a workload perf
// has not heard the SIGCHLD of (!child_finished: still running, blocked
// on the cork pipe it was never let out of, or dying but not yet
// notified) gets SIGTERM, whose default action kills it wherever it is
// (evlist__prepare_workload()'s child reset SIGTERM to SIG_DFL before it
// blocked: it never execs); then perf waits for it (wait(&exit_status)).
// A workload that handles, ignores or blocks SIGTERM keeps perf waiting
// until it exits, as the real perf does. perf stat's error path is
// another: evlist__cancel_workload() closes the cork, and the child's
// read() returns 0 and it exits (perf record does not use it).
// tools/perf/builtin-record.c: __cmd_record(): out_free_threads
func (ss *Session) waitWorkload(t *sched.Task) {
	if !ss.forked {
		return
	}
	if !ss.childFinished {
		ss.S.Kill(t, ss.Workload, sched.SIGTERM) // kill(rec->evlist->workload.pid, SIGTERM)
	}
	ss.S.WaitChild(t)
	// "if (err < 0) status = err; else if (WIFEXITED(exit_status)) status =
	// WEXITSTATUS(exit_status); else if (WIFSIGNALED(exit_status)) signr =
	// WTERMSIG(exit_status);"
	if sig, _ := ss.Workload.ExitSignal(); ss.Err == nil && sig != 0 {
		ss.signr = sig
	}
}

// record is __cmd_record() up to the final read. It runs as annotated user
// code (main is a sched.CallAnnotated): the parts nobody annotated run
// with sched.Sched.RunUnannotated (footprint_record.go: unannotated).
func (ss *Session) record(t *sched.Task) {
	if ss.R.Exit != nil { // parse_options()/parse_events() gave up: exit(129) (perf61_errors.go)
		ss.setErr(t, ss.R.Exit)
		return
	}
	if ss.R.Target.HasTask() { // cmd_record(): evlist__create_maps() reads /proc
		if ss.setErr(t, ss.unannotated(t, true, ss.resolveThreads)) != nil {
			return
		}
	}
	if ss.setErr(t, ss.unannotated(t, ss.anyFilter(), ss.resolveFilters)) != nil {
		return
	}
	// evlist__prepare_workload() forked the workload (NewSession made perf
	// its parent): from here perf's way out kills and reaps it (waitWorkload)
	ss.forked = ss.Workload != nil
	// record__open(): a failure of any of these ends perf before it has
	// written perf.data's header, which it writes at the end: the file it
	// created stays empty
	if ss.setErr(t, ss.annotated(t, ss.recordOpen)) != nil { // footprint_record.go
		ss.Data.Empty = true
		return
	}
	if ss.setErr(t, ss.unannotated(t, ss.anyFilter(), func() error { return ss.applyFilters(t) })) != nil {
		ss.Data.Empty = true
		return
	}
	if ss.setErr(t, ss.annotated(t, ss.mapRings)) != nil {
		ss.Data.Empty = true
		return
	}
	ss.setErr(t, ss.annotated(t, ss.recordRun)) // footprint_record.go
	ss.offAuxtraceSnapshotTrigger()
	if ss.R.Snapshot != nil && ss.R.Snapshot.OnExit {
		ss.unannotated(t, true, func() error { ss.auxtraceSnapshotExit(t); return nil }) // session_aux_snapshot.go
	}
	ss.unannotated(t, ss.R.Overwrite && ss.Err == nil, func() error { ss.tailSynthesize(t); return nil })
	// out_child: record__mmap_read_all(rec, true)
	ss.toggleBkwMmap(t, bkwDataPending)
	if err := ss.readRings(t, true); ss.Err == nil {
		ss.setErr(t, err)
	}
}

// setErr records why perf gives up (nil: it does not), annotated as a
// write of perf's own state (errKey) when there is a reason: read by perf's
// code and by the observables, never by another context.
func (ss *Session) setErr(t *sched.Task, err error) error {
	if err != nil {
		if c := t.CPU(); c != nil && ss.S.M.FootprintListening() {
			c.AccessMarkedOnly(errKey{ss}, "Session.Err", cpu.MarkedWrite, "Session.record") // perf's reason to give up
		}
	}
	ss.Err = err
	return err
}

// errKey is why perf gave up (Session.Err), perf's own.
type errKey struct{ ss *Session }

// FootprintKey implements cpu.FootprintKeyer: perf's thread names it.
func (k errKey) FootprintKey() string { return k.ss.Perf.Thread.FootprintKey() + "/session error" }

// FootprintExtent is the memory the key names (explore's write audit).
func (k errKey) FootprintExtent() []any { return []any{&k.ss.Err} }

// recordRun synthesizes what perf learns from /proc, enables the events,
// lets the workload exec, and records until it is gone. The synthesis and
// the enable run as code nobody annotated (footprint_record.go), but for
// a forked workload's synthesis, which only computes perf's own records
// (synthesizeReadsOwn).
func (ss *Session) recordRun(t *sched.Task) error {
	ss.unannotated(t, !ss.synthesizeReadsOwn(), func() error {
		ss.synthesize(t)
		// "When perf is starting the traced process, all the events (apart
		// from group members) have enable_on_exec=1 set, so don't spoil it
		// by prematurely enabling them"; -D enables them later
		if !ss.R.Target.None() && ss.R.InitialDelay == 0 {
			ss.evlistEnable(t)
		}
		return nil
	})
	if ss.Workload != nil { // forks
		// perf_event__synthesize_comm() on the child before it execs: its
		// /proc/PID/comm is still workloadComm; the kernel's
		// PERF_RECORD_COMM|MISC_COMM_EXEC at the exec renames the thread.
		w := ss.Workload
		ss.writeSynth(t, synthComm(&ss.Data.Attrs[0].Attr, w.PID, w.TID, workloadComm))
		ss.startWorkload(t)
	}
	ss.initialDelay(t)
	if !ss.R.Overwrite { // --overwrite sets opts.tail_synthesize: at the end (session_tail.go)
		ss.writeSynth(t, headerOnly(RecordFinishedInit)) // write_finished_init()
	}
	return ss.recordLoop(t)
}

// initialDelay is -D: perf says the events are disabled, sleeps the delay
// (usleep(): nanosleep, which a signal cuts short: the workload's SIGCHLD),
// enables them (evlist__enable(), perf moving over the CPUs as it does),
// and says so; below 0 they stay disabled. Perf reads no ring meanwhile.
// tools/perf/builtin-record.c: __cmd_record()
func (ss *Session) initialDelay(t *sched.Task) {
	d := ss.R.InitialDelay
	if d == 0 {
		return
	}
	ss.info("Events disabled") // EVLIST_DISABLED_MSG
	if d < 0 {
		return
	}
	ss.S.Nanosleep(t, sim.Duration(d)*sim.Millisecond)
	ss.unannotated(t, true, func() error { ss.evlistEnable(t); return nil })
	ss.info("Events enabled") // EVLIST_ENABLED_MSG
}

// info is perf's pr_info(): printed unless -q.
func (ss *Session) info(text string) {
	if ss.R.Verbosity >= 0 {
		ss.Warnings = append(ss.Warnings, text)
	}
}

// verbose is what perf prints only with -v (pr_debug(), a "verbose > 0"
// ui__warning()).
func (ss *Session) verbose(text string) {
	if ss.R.Verbosity > 0 {
		ss.Warnings = append(ss.Warnings, text)
	}
}

// recordLoop is __cmd_record()'s loop: read the rings, wait for them, until
// the workload is gone and the rings are drained. The -S snapshots and
// the evlist's disable run as code nobody annotated (footprint_record.go).
func (ss *Session) recordLoop(t *sched.Task) error {
	for {
		hits := ss.stats.pushes
		if ss.switchHit || ss.done || ss.draining {
			ss.toggleBkwMmap(t, bkwDataPending)
		}
		if err := ss.readRings(t, false); err != nil {
			return err
		}
		if ss.snapStart {
			ss.snapStart = false
			ss.S.RunUnannotated(t, func() { ss.readAuxtraceSnapshot(t) })
		}
		if ss.switchHit {
			if ss.bkw == bkwRunning {
				continue // SIGUSR2 raced with the read: read again
			}
			ss.switchHit = false
			ss.toggleBkwMmap(t, bkwRunning)
		}
		if hits == ss.stats.pushes {
			if ss.done || ss.draining {
				return nil
			}
			ss.poll(t)
		}
		if ss.done && !ss.disabled && !ss.R.Target.None() {
			ss.offAuxtraceSnapshotTrigger()
			ss.S.RunUnannotated(t, func() { ss.evlistDisable(t) })
			ss.disabled = true
		}
	}
}

// finish unmaps and closes everything (evlist__delete(): munmap, then
// close) and processes the perf.data.
func (ss *Session) finish(t *sched.Task) {
	ss.recordReadLostSamples(t)       // perfdata_synth.go: annotated (footprint_record.go: accessLostSamples)
	ss.annotated(t, ss.unmapAndClose) // footprint_record.go
	if ss.Err != nil && ss.Workload != nil && !ss.forked {
		// cmd_record() gave up before __cmd_record() forked the workload
		// (options, -p/-t's threads, the address filters): the real perf
		// never started it. The scenario's task exists all the same; it
		// runs as if started without perf: exec'd, with no events.
		ss.unannotated(t, true, func() error {
			ss.uncorked = true
			ss.S.WakeUpAll(&ss.cork)
			return nil
		})
	}
	if ss.S.M.FootprintListening() {
		t.CPU().AccessMarkedOnly(finishedKey{ss}, "Session.Finished", cpu.MarkedWrite, "Session.finish") // what the workload's exit hook reads (sessionExitHook)
	}
	ss.Finished = true
	// The records are parsed when something reads them (PerfData.Parsed).
}

// mapRings maps the rings and the side band's.
func (ss *Session) mapRings(t *sched.Task) error {
	if err := ss.recordMmap(t); err != nil {
		return err
	}
	ss.setupSideBand(t)
	return nil
}

// unmapAndClose is evlist__delete(): munmap, then close.
func (ss *Session) unmapAndClose(t *sched.Task) error {
	ss.unmapAuxExtra(t)
	for _, m := range ss.Mmaps { // evlist__munmap(): perf_mmap__munmap(), then the AUX area
		if m.Map != nil {
			// A munmap action racing this one may have closed it: munmap()
			// then returns 0. m.Map stays set: the run's judges (runner)
			// look at the rings perf read to the end.
			ss.K.Munmap(t, m.Map)
		}
		ss.auxtraceMunmap(t, m)
	}
	for _, m := range ss.sideBandMaps { // evlist__stop_sb_thread() -> evlist__delete()
		ss.K.Munmap(t, m)
	}
	ss.sideBandMaps = nil
	for _, fd := range append(append(append([]int(nil), ss.FDs...), ss.SideBandFDs...), ss.strayFDs...) {
		if fd >= 0 {
			ss.K.Close(t, fd)
		}
	}
	return nil
}

// recordOpen opens every evsel on every CPU (or the workload thread) in
// perf's order, each member with its leader's fd as group_fd, and reads back
// each event's id. For -p, a thread that is gone by the time perf opens on
// it (ESRCH) leaves the thread map (ignoreMissingThread).
// tools/perf/builtin-record.c: record__open() -> evlist__open() -> evsel__open_cpu()
func (ss *Session) recordOpen(t *sched.Task) error {
	done := map[openKey]int{} // the fds opened so far
	for {
		opens := ss.R.Opens(len(ss.S.M.CPUs))
		ss.FDs = make([]int, len(opens))
		retry := false
		for i, o := range opens {
			k := openKey{o.Evsel, o.CPU, o.PID}
			if fd, ok := done[k]; ok {
				ss.FDs[i] = fd
				continue
			}
			ss.FDs[i] = -1
			pid := o.PID
			if pid == PIDWorkload {
				pid = ss.Workload.PID
			}
			if pid == PIDCgroup {
				t.CPU().Unaudited("open") // cgroupFD: the cgroup's directory looked up and its fd installed, not annotated (footprint_record.go)
				fd, err := ss.cgroupFD(t, ss.R.Evsels[o.Evsel].Cgroup)
				if err != nil {
					return err
				}
				pid = fd
			}
			group := -1
			if o.GroupFD >= 0 {
				group = ss.FDs[o.GroupFD]
			}
			attr := ss.R.Evsels[o.Evsel].Attr
			fd, err := ss.K.PerfEventOpen(t, &attr, pid, o.CPU, group, o.Flags)
			if err != nil {
				if ss.ignoreMissingThread(o, err) {
					// update_fds(): evsel__remove_fd(), the fds kept open (closed at perf's exit, in this order)
					ss.strayFDs = append(ss.strayFDs, takeOpened(opens, done, func(x Open) bool { return x.PID == o.PID })...)
					ss.dropIDs(o.PID)
					retry = true
					break
				}
				if msg, ok := evselFallback(&ss.R.Evsels[o.Evsel], err, ss.K.Opts.Sysctl.Paranoid); ok {
					ss.reopenEvsel(t, o.Evsel, opens, done, msg)
					retry = true
					break
				}
				return newOpenError(&ss.R.Evsels[o.Evsel], &ss.R.Target, ss.R.Tool, pid, o.CPU, group, err, ss.K.Opts.Sysctl.Paranoid) // open_strerror.go
			}
			ss.FDs[i] = fd
			done[k] = fd
			// perf_evlist__id_add_fd(): ioctl(fd, PERF_EVENT_IOC_ID, &id)
			if id, err := ss.K.Ioctl(t, fd, uapi.PERF_EVENT_IOC_ID, 0); err == nil {
				fa := &ss.Data.Attrs[o.Evsel]
				fa.IDs = append(fa.IDs, id)
				fa.IDSample = append(fa.IDSample, IDSample{CPU: o.CPU, TID: pid})
			}
		}
		if !retry {
			return nil
		}
	}
}

// reopenEvsel is record__open()'s "goto try_again" after evsel__fallback()
// changed evsel ev: the fds evsel__open_cpu() opened for it before the
// failure are closed (its out_close), the ids read from them forgotten, the
// header's attr and name follow the evsel's, and the open starts again from
// ev's first CPU. perf prints msg only with -v.
// tools/perf/builtin-record.c: record__open()
func (ss *Session) reopenEvsel(t *sched.Task, ev int, opens []Open, done map[openKey]int, msg string) {
	for _, fd := range slices.Backward(takeOpened(opens, done, func(x Open) bool { return x.Evsel == ev })) {
		ss.K.Close(t, fd) // the last opened first, as out_close does
	}
	fa := &ss.Data.Attrs[ev]
	fa.Name, fa.Attr = ss.R.Evsels[ev].Name, ss.R.Evsels[ev].Attr
	fa.IDs, fa.IDSample = nil, nil
	ss.verbose("Warning: " + msg) // record__open(): "if (verbose > 0) ui__warning()"
}

// openKey is one open of recordOpen: an evsel on a CPU for a pid.
type openKey struct{ evsel, cpu, pid int }

// takeOpened removes from done the fds of the opens that match, and
// returns them in open order (a Go map has none of its own).
func takeOpened(opens []Open, done map[openKey]int, match func(Open) bool) []int {
	var fds []int
	for _, x := range opens {
		k := openKey{x.Evsel, x.CPU, x.PID}
		if fd, ok := done[k]; ok && match(x) {
			fds = append(fds, fd)
			delete(done, k)
		}
	}
	return fds
}

// ignoreMissingThread models evsel__ignore_missing_thread(): with -p
// (opts->ignore_missing_thread), a thread that exited after perf read the
// thread map fails its open with ESRCH; unless it is the only thread left,
// perf drops it from the map (thread_map__remove()), forgets the fds it
// opened on it (still open until perf exits) and goes on, with a warning.
// tools/perf/util/evsel.c: evsel__ignore_missing_thread()
func (ss *Session) ignoreMissingThread(o Open, err error) bool {
	if ss.R.Target.PID == nil || ss.R.Evsels[o.Evsel].SystemWide || !errors.Is(err, uapi.ESRCH) || len(ss.R.Threads) == 1 {
		return false
	}
	i := slices.Index(ss.R.Threads, o.PID)
	if i < 0 {
		return false
	}
	ss.R.Threads = slices.Delete(slices.Clone(ss.R.Threads), i, i+1)
	ss.ignoredThreads++
	ss.Warnings = append(ss.Warnings, fmt.Sprintf("WARNING: Ignored open failure for pid %d", o.PID))
	return true
}

// dropIDs forgets the ids read from the fds of a thread perf dropped.
func (ss *Session) dropIDs(tid int) {
	for i := range ss.Data.Attrs {
		fa := &ss.Data.Attrs[i]
		var ids []uint64
		var where []IDSample
		for j, s := range fa.IDSample {
			if s.TID != tid {
				ids, where = append(ids, fa.IDs[j]), append(where, s)
			}
		}
		fa.IDs, fa.IDSample = ids, where
	}
}

// recordMmap maps one ring per CPU (per thread with --per-thread): the first
// fd of each CPU is mapped with (pages+1)*4096 bytes, read-write (read-only
// for write_backward evsels, which get their own overwrite rings), and the
// other fds of that CPU are redirected into it with PERF_EVENT_IOC_SET_OUTPUT.
// Every fd of a non-system-wide evsel is polled (POLLIN only for forward rings).
// tools/lib/perf/evlist.c: mmap_per_cpu() / mmap_per_evsel()
func (ss *Session) recordMmap(t *sched.Task) error {
	opens := ss.R.Opens(len(ss.S.M.CPUs))
	var cpus []int
	seen := map[int]bool{}
	for _, o := range opens {
		if !seen[o.CPU] {
			seen[o.CPU] = true
			cpus = append(cpus, o.CPU)
		}
	}
	slices.Sort(cpus)
	length := uint64(ss.R.MmapBytes())
	for _, c := range cpus {
		var output, outputOvw *SessionMmap
		for i, o := range opens { // evsels in evlist order for this CPU
			if o.CPU != c {
				continue
			}
			e := &ss.R.Evsels[o.Evsel]
			fd := ss.FDs[i]
			overwrite := e.Attr.WriteBackward
			out := &output
			prot := pmu.ProtRead | pmu.ProtWrite
			if overwrite {
				out, prot = &outputOvw, pmu.ProtRead
				if ss.bkw == bkwNotReady {
					ss.toggleBkwMmap(t, bkwRunning)
				}
			}
			if *out == nil {
				m, err := ss.K.Mmap(t, fd, 0, length, prot)
				if err != nil {
					return mmapFailed(err, ss.R.MmapPages, ss.R.AuxPages) // fd and CPU: the timeline's note
				}
				reader, err := NewMmap(m.RB, overwrite)
				if err != nil {
					return fmt.Errorf("perf record: reader for fd %d: %w", fd, err)
				}
				reader.Tracer = ss.K.BufferTracer(m.RB) // the invariants' log, when on
				*out = &SessionMmap{CPU: c, FD: fd, Overwrite: overwrite, Map: m, Reader: reader}
				ss.Mmaps = append(ss.Mmaps, *out)
				if err := ss.auxtraceMmap(t, *out, o.Evsel, len(ss.Mmaps)-1); err != nil {
					return err
				}
			} else {
				if _, err := ss.K.Ioctl(t, fd, uapi.PERF_EVENT_IOC_SET_OUTPUT, uint64((*out).FD)); err != nil {
					return fmt.Errorf("perf record: PERF_EVENT_IOC_SET_OUTPUT fd %d -> %d: %w", fd, (*out).FD, err)
				}
				(*out).Outputs = append((*out).Outputs, fd)
			}
			if !e.SystemWide {
				ss.pollFDs = append(ss.pollFDs, fd) // perf_evlist__add_pollfd()
				ss.pollIn[fd] = !overwrite
			}
		}
	}
	return nil
}

// setupSideBand opens and maps the BPF side-band evlist (dummy with
// bpf_event, pid -1 on every CPU). perf reads it from a thread of its own
// only when BPF programs load, which the simulation never does. A failure
// is only a debug message in perf.
// tools/perf/builtin-record.c: record__setup_sb_evlist(); util/sideband_evlist.c: evlist__start_sb_thread()
func (ss *Session) setupSideBand(t *sched.Task) {
	if len(ss.R.SideBand) == 0 || ss.Opts.NoSideBand {
		return
	}
	length := uint64((ss.R.sideBandPages + 1) * pmu.PageSize)
	// evlist__create_maps(evlist, target): a -p/-t target's threads are
	// read again, so a thread gone since perf's own map was made is not
	// opened; a target gone entirely fails the side band
	threads := ss.R.threadPIDs()
	if ss.R.Target.HasTask() && ss.R.Threads != nil {
		var err error
		ss.unannotated(t, true, func() error { threads, err = ss.threadMap(); return nil }) // /proc read again: the scheduler's tasks, unannotated
		if err != nil {
			ss.sideBandFailed()
			return
		}
	}
	for i := range ss.R.SideBand {
		// one open per CPU (and per thread of a -p/-t target); each CPU's
		// first fd is mapped, the others redirected to it (mmap_per_cpu())
		first := map[int]int{}
		for _, o := range ss.R.sideBandOpensFor(len(ss.S.M.CPUs), threads) {
			attr := ss.R.SideBand[i].Attr
			fd, err := ss.K.PerfEventOpen(t, &attr, o.PID, o.CPU, -1, o.Flags)
			if err != nil {
				ss.sideBandFailed()
				return
			}
			ss.SideBandFDs = append(ss.SideBandFDs, fd)
			if out, ok := first[o.CPU]; ok {
				ss.K.Ioctl(t, fd, uapi.PERF_EVENT_IOC_SET_OUTPUT, uint64(out))
				continue
			}
			first[o.CPU] = fd
			m, err := ss.K.Mmap(t, fd, 0, length, pmu.ProtRead|pmu.ProtWrite)
			if err != nil {
				ss.Warnings = append(ss.Warnings, "side band mmap failed: "+err.Error())
				return
			}
			ss.sideBandMaps = append(ss.sideBandMaps, m)
		}
	}
}

// sideBandFailed is record__setup_sb_evlist()'s pr_debug when the side
// band does not start: printed only with -v (an unprivileged perf meets it
// on every run, its CPU-wide dummies refused by perf_event_paranoid).
// tools/perf/builtin-record.c: record__setup_sb_evlist()
func (ss *Session) sideBandFailed() {
	ss.verbose("Couldn't start the BPF side band thread: BPF programs starting from now on won't be annotatable")
}

// synthesize writes what perf learns from /proc before recording: for
// -a/-C every task of the machine (synthesizeThreads); for -p/-t the
// target's threads (synthesizeThreadMap); nothing for a forked command
// (__machine__synthesize_threads(): "command specified"), whose COMM the
// fork path writes. The kernel writes the COMM of an exec, its MMAP2s and
// the EXIT (pmu/sideband.go).
// tools/perf/builtin-record.c: record__synthesize() -> __machine__synthesize_threads()
func (ss *Session) synthesize(t *sched.Task) {
	ss.synthesizeHeaderRecords() // perfdata_synth.go
	if ss.R.Target.None() {
		return // "command specified": only the forked child's COMM, in __cmd_record()
	}
	if ss.R.Target.HasTask() {
		ss.synthesizeThreadMap(t) // session_target.go
		return
	}
	ss.synthesizeThreads(t) // session_target.go
}

// evlistIoctl issues cmd on every group leader's fd from where t runs (the
// scenario's enable/disable actions; perf's own enable and disable move to
// each CPU first: session_affinity.go).
func (ss *Session) evlistIoctl(t *sched.Task, cmd uint64) { ss.evlistIoctlArg(t, cmd, 0) }

// evlistIoctlArg issues cmd with arg on every group leader's fd.
func (ss *Session) evlistIoctlArg(t *sched.Task, cmd, arg uint64) {
	for i, o := range ss.R.Opens(len(ss.S.M.CPUs)) {
		if !ss.R.Evsels[o.Evsel].IsLeader(o.Evsel) || ss.FDs[i] < 0 {
			continue
		}
		ss.K.Ioctl(t, ss.FDs[i], cmd, arg)
	}
}

// toggleBkwMmap moves the overwrite rings through their states, pausing
// them (PERF_EVENT_IOC_PAUSE_OUTPUT 1) before they are read and resuming
// them after. Illegal transitions are ignored, as perf does ("state_err").
// tools/perf/util/evlist.c: evlist__toggle_bkw_mmap()
func (ss *Session) toggleBkwMmap(t *sched.Task, state bkwState) {
	old := ss.bkw
	pause, resume := false, false
	switch old {
	case bkwNotReady:
		if state != bkwRunning {
			return
		}
	case bkwRunning:
		if state != bkwDataPending {
			return
		}
		pause = true
	case bkwDataPending:
		if state != bkwEmpty {
			return
		}
	case bkwEmpty:
		if state != bkwRunning {
			return
		}
		resume = true
	}
	ss.bkw = state
	if pause || resume {
		// evlist__pause() / evlist__resume() -> perf_evlist__set_paused()
		v := uint64(0)
		if pause {
			v = 1
		}
		for _, m := range ss.Mmaps {
			if m.Overwrite {
				ss.K.Ioctl(t, m.FD, uapi.PERF_EVENT_IOC_PAUSE_OUTPUT, v)
			}
		}
	}
}

// mmapReadAll reads the forward rings, then the overwrite rings if they are
// pending, and ends the round with a FINISHED_ROUND when anything was written.
// tools/perf/builtin-record.c: record__mmap_read_all() -> record__mmap_read_evlist()
func (ss *Session) mmapReadAll(t *sched.Task, synch bool) error {
	before := ss.stats.bytes
	for _, overwrite := range []bool{false, true} {
		if overwrite && ss.bkw != bkwDataPending {
			continue
		}
		for i, m := range ss.Mmaps {
			if m.Overwrite != overwrite || m.Reader == nil {
				continue // unmapped by an action, or no data pages
			}
			r := m.Reader // an action may unmap the ring during the push
			flush := r.Flush
			if synch {
				r.Flush = 1
			}
			ss.adjustAffinity(t, m)
			ss.mmapPush(t, i, m)
			r.Flush = flush
			if err := ss.auxtraceMmapReadFull(t, m); err != nil {
				return err
			}
		}
		if overwrite {
			ss.toggleBkwMmap(t, bkwEmpty)
		}
	}
	if ss.stats.bytes != before {
		if d := ss.S.Cfg.Cost.ReaderRound; d > 0 {
			t.Spend(d) // the pass's pushes and write(2)s (cost.Profile.ReaderRound)
		}
		ss.writeSynth(t, headerOnly(RecordFinishedRound))
		ss.stats.rounds++
	}
	return nil
}

// adjustAffinity is --affinity=cpu: before perf reads a ring it moves
// itself onto the ring's CPU (sched_setaffinity() to that CPU alone) unless
// its last move was there, the first read always moving (the thread's mask
// starts empty). A per-thread ring (cpu -1) sets no CPU: no move. With
// node, the ring's mask is built only on a machine of several nodes
// (cpu__max_node() > 1), so it stays empty, as perf's own: no move.
// tools/perf/builtin-record.c: record__adjust_affinity(); tools/perf/util/mmap.c: perf_mmap__setup_affinity_mask()
func (ss *Session) adjustAffinity(t *sched.Task, m *SessionMmap) {
	if ss.R.Affinity != "cpu" || m.CPU < 0 || ss.affinityCPU == m.CPU+1 {
		return
	}
	ss.affinityCPU = m.CPU + 1
	ss.unannotated(t, true, func() error { ss.S.SetAffinity(t, sched.MaskOf(m.CPU)); return nil })
}

// mmapPush copies a ring's new bytes into perf.data: read the head, work
// out the range (read_init), write it out in one or two pieces (two when it
// wraps), then prev = the head read first and give the space back (consume).
// Because perf reads data_head twice, bytes that land between the two reads
// are written now and again on the next pass (counted in perf.dup_bytes).
// tools/perf/util/mmap.c: perf_mmap__push()
func (ss *Session) mmapPush(t *sched.Task, idx int, m *SessionMmap) {
	if m.Map == nil || m.Reader == nil {
		return // unmapped by an action, or mapped without data pages
	}
	// This pass holds on to the mapping and its reader: an action's thread
	// may unmap the ring meanwhile (m.Map = nil); the bytes stay readable.
	mp, r := m.Map, m.Reader
	t.Spend(ss.Opts.MmapVisit)
	head := r.ReadHead(t)
	warned := len(r.Warnings)
	if err := r.ReadInit(t); err != nil {
		for _, w := range r.Warnings[warned:] {
			if strings.HasPrefix(w, "failed to keep up") {
				ss.stats.keepup++
			}
		}
		return
	}
	ss.tracePushed(m, mp, r.Start, r.End) // before pushedEnd moves: first copies only
	if !m.Overwrite {
		if m.pushedAny && r.Start < m.pushedEnd {
			ss.stats.dupBytes += int64(min(m.pushedEnd, r.End) - r.Start)
		}
		m.pushedEnd, m.pushedAny = max(m.pushedEnd, r.End), true
	}
	mask := mp.RB.Mask()
	size := r.End - r.Start
	mp.RB.UserAccess(rb.FieldDataPages, rb.OpMarkedRead, "perf_mmap__push") // tools/perf/util/mmap.c: perf_mmap__push(): buf = &data[start & md->core.mask], handed to record__pushfn()
	if (r.Start&mask)+size != r.End&mask {
		n := mask + 1 - r.Start&mask
		ss.pushfn(t, idx, m, mp.RB.Bytes(int(r.Start&mask), int(n)))
		r.Start += n
	}
	n := r.End - r.Start
	ss.pushfn(t, idx, m, mp.RB.Bytes(int(r.Start&mask), int(n)))
	r.Start += n
	r.Prev = head
	r.Consume()
}

// pushfn writes one piece to perf.data: record__pushfn() -> record__write()
// -> perf_data__write(), a write(2) unless the piece is empty.
// tools/perf/builtin-record.c: record__pushfn()
func (ss *Session) pushfn(t *sched.Task, idx int, m *SessionMmap, b []byte) {
	ss.stats.pushes++
	if len(b) == 0 {
		return
	}
	ss.stats.bytes += int64(len(b))
	if ss.Opts.PerRecord > 0 {
		t.Spend(ss.Opts.PerRecord * sim.Duration(countRecords(b)))
	}
	var chunk []byte
	if ss.Data.Discard {
		ss.Data.write(b, idx, m.CPU, ss.S.M.Now(), m.Overwrite) // counted now, kept nowhere
	} else {
		m.pushBuf = append(m.pushBuf[:0], b...) // the bytes as they are now
		chunk = m.pushBuf
	}
	ss.S.SyscallAnnotated(t, "write", func(t *sched.Task) { // footprint_record.go
		t.Spend(ss.Opts.WriteSyscall + ss.Opts.WritePerKiB*sim.Duration(len(chunk))/1024)
		ss.accessKeep(t, len(chunk))
		ss.Data.write(chunk, idx, m.CPU, ss.S.M.Now(), m.Overwrite)
	})
}

// writeSynth writes a record perf makes itself.
func (ss *Session) writeSynth(t *sched.Task, b []byte) {
	if len(ss.headerSynth) > 0 { // perfdata_synth.go
		b, ss.headerSynth = append(ss.headerSynth, b...), nil
	}
	ss.S.SyscallAnnotated(t, "write", func(t *sched.Task) { // footprint_record.go
		t.Spend(ss.Opts.WriteSyscall)
		ss.accessKeep(t, len(b))
		ss.Data.write(b, -1, -1, ss.S.M.Now(), false)
	})
}

// countRecords counts the headers in a piece (a piece cut at the wrap may
// end inside a record: the walk stops there).
func countRecords(b []byte) int {
	n := 0
	for off := 0; off+rb.HeaderSize <= len(b); n++ {
		h, _ := rb.ParseHeader(b[off:])
		if h.Size < rb.HeaderSize {
			break
		}
		off += int(h.Size)
	}
	return n
}

// poll waits for the rings: fdarray__poll(), then fdarray__filter() drops
// the fds that hung up (their events died with the workload); none left
// means draining.
// tools/perf/builtin-record.c: __cmd_record() main loop
func (ss *Session) poll(t *sched.Task) {
	for {
		if len(ss.pollFDs) == 0 {
			ss.draining = true
			return
		}
		ready, hup := ss.K.Poll(t, ss.pollFDs)
		in := false
		for _, fd := range ready {
			in = in || ss.pollIn[fd] // overwrite fds poll for POLLERR|POLLHUP only
		}
		if !in && len(hup) == 0 && !ss.done && !ss.switchHit && !ss.snapStart && len(ready) > 0 {
			continue // only POLLIN on fds that did not ask for it: poll(2) would not return
		}
		ss.stats.wakeups++
		if len(hup) > 0 {
			gone := map[int]bool{}
			for _, fd := range hup {
				gone[fd] = true
			}
			kept := ss.pollFDs[:0]
			for _, fd := range ss.pollFDs {
				if !gone[fd] {
					kept = append(kept, fd)
				}
			}
			ss.pollFDs = kept
			if len(kept) == 0 {
				ss.draining = true
			}
		}
		return
	}
}

// process parses what was written since the last time (PerfData.Parsed).
func (ss *Session) process() { ss.Data.Parsed() }

// Script writes `perf script` output of what the session recorded.
func (ss *Session) Script(w io.Writer) error {
	if ss.Data.Dropped {
		return fmt.Errorf("perf script: the perf.data is %d bytes, over the %s the simulator keeps in memory for perf script; "+
			"write it with --perf-data DIR and read it with the real perf script", ss.Data.Written, ss.Data.keepLimit())
	}
	ss.process()
	sym := ss.Opts.Symbolize
	if sym == nil {
		sym = ss.K.Symbolize // the symbol tables of the kernel and the workloads
	}
	return ss.Data.Script(w, ScriptOptions{Symbolize: sym, NoMergeCallchains: ss.Opts.NoMergeCallchains || ss.KnobIs("merge-callchains", "off")})
}

// sessionObservables are the names Observe answers, with their meaning.
var sessionObservables = []struct{ name, help string }{
	{"perf.samples", "PERF_RECORD_SAMPLE records in perf.data"},
	{"perf.records", "records copied out of the rings (perf's own excluded)"},
	{"perf.lost", "sum of PERF_RECORD_LOST.lost: samples the kernel dropped"},
	{"perf.lost_records", "PERF_RECORD_LOST records"},
	{"perf.bytes", "bytes copied out of the rings"},
	{"perf.wakeups", "poll returns (perf's \"Woken up N times\")"},
	{"perf.pushes", "record__pushfn calls (perf's rec->samples)"},
	{"perf.torn", "records that do not parse (torn or overwritten), +1 if the reader stopped"},
	{"perf.comm", "PERF_RECORD_COMM records from the kernel"},
	{"perf.exit", "PERF_RECORD_EXIT records"},
	{"perf.unknown", "records of types the model does not decode"},
	{"perf.keepup", "\"failed to keep up with mmap data\": a forward reader lapped"},
	{"perf.dup_bytes", "bytes written twice (perf_mmap__push re-reads data_head)"},
	{"perf.snapshots", "SIGUSR2 AUX snapshots taken"},
	{"perf.mmaps", "rings mapped"},
	{"perf.error", "1 if perf gave up (open, mmap or ioctl failed)"},
	{"perf.done", "1 once perf wrote its perf.data and exited"},
}

// SessionObservableNames lists the observables of a session.
func SessionObservableNames() []string {
	out := make([]string, len(sessionObservables))
	for i, o := range sessionObservables {
		out[i] = o.name
	}
	return out
}

// SessionObservableHelp returns the one-line meaning of an observable.
func SessionObservableHelp(name string) string {
	for _, o := range sessionObservables {
		if o.name == name {
			return o.help
		}
	}
	for _, o := range extraObs {
		if o.name == name {
			return o.help
		}
	}
	return ""
}

// recordStat is a session observable counted over the parsed records, with
// stats called only for those.
func recordStat(name string, stats func() DataStats) (int64, bool) {
	switch name {
	case "perf.samples":
		return stats().Samples, true
	case "perf.records":
		return stats().Records, true
	case "perf.lost":
		return stats().Lost, true
	case "perf.lost_records":
		return stats().LostRecords, true
	case "perf.torn":
		return stats().Torn, true
	case "perf.comm":
		return stats().Comm, true
	case "perf.exit":
		return stats().Exit, true
	case "perf.unknown":
		return stats().Unknown, true
	}
	return 0, false
}

// Observe returns the value of a session observable.
func (ss *Session) Observe(name string) (int64, bool) {
	b := func(v bool) int64 {
		if v {
			return 1
		}
		return 0
	}
	// Only the counts of the records parse them (Stats), when an outcome asks.
	if v, ok := recordStat(name, ss.Data.Stats); ok {
		return v, true
	}
	if v, ok := ss.observeEvsel(name); ok {
		return v, true
	}
	switch name {
	case "perf.bytes":
		return ss.stats.bytes, true
	case "perf.wakeups":
		return ss.stats.wakeups, true
	case "perf.pushes":
		return ss.stats.pushes, true
	case "perf.keepup":
		return ss.stats.keepup, true
	case "perf.dup_bytes":
		return ss.stats.dupBytes, true
	case "perf.snapshots":
		return ss.stats.snapshots, true
	case "perf.mmaps":
		return int64(len(ss.Mmaps)), true
	case "perf.error":
		return b(ss.Err != nil), true
	case "perf.done":
		return b(ss.Finished), true
	}
	for _, o := range extraObs {
		if o.name == name {
			return o.get(ss), true
		}
	}
	return 0, false
}
