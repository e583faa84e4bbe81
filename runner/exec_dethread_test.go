package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/rb"
)

// TestExecDeThread: a thread that execs kills the process's other threads
// (each writes its PERF_RECORD_EXIT) and, not being the leader, takes the
// leader's pid as its tid: the exec COMM and everything after carry
// pid/tid = the process's pid.
func TestExecDeThread(t *testing.T) {
	r, _, recs := runRecords(t, `scenario exec-dethread
cpus 2
task w cpu0
  thread t1
    compute 50us
    syscall execve "/usr/local/bin/next" 0 0
    syscall getppid
  thread t2
    futex wait never
  futex wait never
record -e syscalls:sys_enter_getppid -- w
`)
	w := r.Tasks["w"]
	type rec struct {
		Type     string
		PID, TID uint32
	}
	var got []rec
	for _, x := range recs {
		if x.Dec == nil {
			continue
		}
		switch sb := x.Dec.Sideband.(type) {
		case *rb.Comm:
			if sb.Exec && sb.Comm == "next" {
				got = append(got, rec{"COMM_EXEC", sb.Pid, sb.Tid})
			}
		case *rb.Task:
			if !sb.Fork {
				got = append(got, rec{"EXIT", sb.Pid, sb.Tid})
			}
		}
		if x.Dec.Sample != nil {
			got = append(got, rec{"SAMPLE", x.Dec.Sample.Pid, x.Dec.Sample.Tid})
		}
	}
	pid := uint32(w.PID)
	// the leader and t2 exit (killed), then t1 (now tid = pid) execs and
	// calls getppid, then exits
	var t2 uint32
	for _, x := range r.S.Tasks {
		if x.ProgName() == "t2" {
			t2 = uint32(x.TID)
		}
	}
	want := []rec{{"EXIT", pid, pid}, {"EXIT", pid, t2}, {"COMM_EXEC", pid, pid}, {"SAMPLE", pid, pid}, {"EXIT", pid, pid}}
	if len(got) >= 2 && got[0].TID > got[1].TID { // the two killed threads exit in whichever order their CPUs take them
		got[0], got[1] = got[1], got[0]
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	if w.TID != w.PID {
		t.Errorf("the leader task w: tid %d, pid %d", w.TID, w.PID)
	}
}
