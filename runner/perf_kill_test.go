package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sched"
	"perfsim/sim"
)

// workloadEnd is what a test sees of how perf record's workload ended.
type workloadEnd struct {
	ExitSig    int  // the signal that killed it (Task.ExitSignal), 0 if it exited
	KilledBy   int  // the fatal signal the log (Sched.Killed) has for it
	Reaped     bool // perf's wait() reaped it
	PerfAfter  bool // perf exited after it
	Computed   bool // its program ran (it exec'd and finished a compute step)
	PerfParent bool // perf is its parent
	PerfSig    int  // the signal perf died of (record__sig_exit()), 0 if it exited
}

// endOfWorkload runs src and reports how its workload w ended.
func endOfWorkload(t *testing.T, name, src string) (workloadEnd, *sched.Task) {
	t.Helper()
	r, _ := runQuiet(t, name, src)
	w := r.Tasks["w"]
	perf := perfTask(t, r)
	sig, _ := w.ExitSignal()
	psig, _ := perf.ExitSignal()
	e := workloadEnd{ExitSig: sig, Reaped: w.Reaped(), PerfAfter: perf.Exited > w.Exited,
		Computed: w.Computed > 0, PerfParent: w.PPID == perf.PID, PerfSig: psig}
	for _, k := range r.S.Killed {
		if k.Task == w {
			e.KilledBy = k.Signal.Sig
		}
	}
	return e, w
}

// TestPerfSIGTERMsRunningWorkload: ^C to perf record (kill -INT) while its
// workload still runs ends the recording loop with the workload alive;
// __cmd_record() then sends it SIGTERM (kill(workload.pid, SIGTERM): perf
// has not had its SIGCHLD, !child_finished), whose default action kills
// it, and waits for it before it finishes (perf 6.1 on this machine: the
// workload's SIGTERM comes from perf's pid, si_code SI_USER; perf's
// wait4() returns it WIFSIGNALED, WTERMSIG SIGTERM). The model's perf
// neither killed nor waited: the workload computed its 100 ms to the end
// and exited after perf, to init (TestPerfWaitsForWorkload has the waited-for end of a workload that exits by itself).
func TestPerfSIGTERMsRunningWorkload(t *testing.T) {
	got, w := endOfWorkload(t, "perfint.sim", `scenario perfint
cpus 2
task w cpu0
  repeat 100
    compute 1ms
record p: -e cpu-clock -- w
at 2ms stop p                   # kill -INT $PERFPID
`)
	want := workloadEnd{ExitSig: sched.SIGTERM, KilledBy: sched.SIGTERM, Reaped: true, PerfAfter: true, Computed: true, PerfParent: true, PerfSig: sched.SIGTERM}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("workload's end (-want +got):\n%s", diff)
	}
	if w.Exited > sim.Time(10*sim.Millisecond) {
		t.Errorf("workload exited at %v: ^C at 2ms should end it soon after, not at the end of its 100ms", w.Exited)
	}
}

// TestPerfSIGTERMsCorkedWorkload: perf record whose perf_event_open()
// fails (record__open(): cpu-clock has no branch stack for --call-graph
// lbr) gives up after evlist__prepare_workload() forked the workload,
// which blocks in read() of the cork pipe; out_free_threads SIGTERMs it
// there and waits: it dies without ever exec'ing (perf 6.1 on this
// machine, under strace -f: kill(child, SIGTERM), the child "killed by
// SIGTERM" with no execve, wait4() returns it, perf exits 255). The
// model's perf uncorked it instead: it exec'd and ran its program with
// no events, perf gone.
func TestPerfSIGTERMsCorkedWorkload(t *testing.T) {
	got, _ := endOfWorkload(t, "perfopenfail.sim", `scenario perfopenfail
cpus 2
task w cpu1
  compute 1ms
record -e cpu-clock --call-graph lbr -- w
`)
	want := workloadEnd{ExitSig: sched.SIGTERM, KilledBy: sched.SIGTERM, Reaped: true, PerfAfter: true, Computed: false, PerfParent: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("workload's end (-want +got):\n%s", diff)
	}
}

// TestPerfWaitRestartsAfterSecondSIGINT: a second ^C while perf record
// waits for a workload that ignores SIGTERM interrupts the wait4(), and
// the kernel runs it again (do_wait() returns -ERESTARTSYS; perf's
// handler has SA_RESTART, glibc's signal(): handle_signal() restarts
// it): perf reaps the workload when it ends, then dies of SIGINT. Perf
// 6.1 on this machine, strace -f of perf record -e cpu-clock -- sh -c
// 'trap "" TERM; sleep 3', SIGINT twice: kill(sh, SIGTERM), wait4(-1, ...
// = ? ERESTARTSYS, --- SIGINT ---, wait4(-1, ... = sh's pid at its end,
// then tgkill(perf, perf, SIGINT). The model's wait4 ended at the
// second ^C: perf finished and exited while the workload still ran,
// which init reaped.
func TestPerfWaitRestartsAfterSecondSIGINT(t *testing.T) {
	got, w := endOfWorkload(t, "perfint2.sim", `scenario perfint2
cpus 2
task w cpu0
  sigaction SIGTERM SIG_IGN       # trap "" TERM
  repeat 20
    compute 1ms
record p: -e cpu-clock -- w
at 2ms stop p                     # kill -INT $PERFPID: perf SIGTERMs w, which ignores it, and waits
at 5ms stop p                     # again, in perf's wait4()
`)
	want := workloadEnd{Reaped: true, PerfAfter: true, Computed: true, PerfParent: true, PerfSig: sched.SIGINT}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("workload's end (-want +got):\n%s", diff)
	}
	if w.Exited < sim.Time(20*sim.Millisecond) {
		t.Errorf("workload exited at %v: it ignores SIGTERM and computes 20 ms", w.Exited)
	}
}
