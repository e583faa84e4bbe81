package runner

import (
	"testing"

	"perfsim/sched"
)

// TestPerfSIGCHLDAtNotifyParent: perf record -a hears its workload's
// death by SIGCHLD from do_notify_parent(), which exit_notify() calls
// after the exit's exit_mm() and exit_files(), and only then stops
// recording (its CPU-wide events never hang up): perf takes it after the
// workload's exit is over (its Exited time, set just before
// exit_notify()). The model sent it at perf_event_exit_task(), ~31 us
// before (ExitMMap, ExitFiles), so perf, on the other CPU, stopped while
// the workload still tore its address space down.
func TestPerfSIGCHLDAtNotifyParent(t *testing.T) {
	r, _ := runQuiet(t, "sigchld.sim", `scenario sigchld
cpus 2
task w cpu0
  compute 50us
record -a -e cpu-clock -- w
`)
	w := r.Tasks["w"]
	var took []int64
	for _, d := range r.S.Delivered {
		if d.Signal.Sig == 17 && d.Task != w {
			took = append(took, int64(d.At))
		}
	}
	if len(took) != 1 {
		t.Fatalf("perf took %d SIGCHLDs (%v), want 1", len(took), took)
	}
	if took[0] < int64(w.Exited) {
		t.Errorf("perf took SIGCHLD at %d ns, before its workload's exit_notify() at %d ns", took[0], w.Exited)
	}
}

// TestPerfWaitsForWorkload: perf record waits for its workload
// (__cmd_record()'s wait(&exit_status)) before it finishes the output and
// closes its events: it reaps the workload, so its munmaps and closes come
// after the workload's exit is over, as the real perf's do. The model's
// perf closed everything while the workload's exit was still in
// exit_mm(), and left the workload to init.
func TestPerfWaitsForWorkload(t *testing.T) {
	r, _ := runQuiet(t, "perfwait.sim", `scenario perfwait
cpus 2
task w cpu0
  compute 50us
record -e cpu-clock -- w
`)
	w := r.Tasks["w"]
	perf := perfTask(t, r)
	if w.PPID != perf.PID || !w.Reaped() {
		t.Errorf("workload's parent %d (perf %d), reaped %v: want perf's child, reaped", w.PPID, perf.PID, w.Reaped())
	}
	if perf.Exited <= w.Exited {
		t.Errorf("perf exited at %d ns, its workload at %d ns: perf must outlive it", perf.Exited, w.Exited)
	}
}

// perfTask is the run's perf process (its last task named perf).
func perfTask(t *testing.T, r *Run) *sched.Task {
	t.Helper()
	var perf *sched.Task
	for _, tk := range r.S.Tasks {
		if tk.Comm == "perf" {
			perf = tk
		}
	}
	if perf == nil {
		t.Fatal("no perf task")
	}
	return perf
}
