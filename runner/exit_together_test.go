package runner

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestThreadsExitSideBySide: a process's leader and its thread end on two
// CPUs at nearly the same time, and the parent's wait4 reaps the process
// whichever order their exits overlap in. The model decided "last thread"
// from the other threads' being dead: an exit that began while the other
// was still inside its own found it alive, both did, nobody notified the
// parent, and the run stopped as a hang ("parent/101 (wait4)") for a
// leader compute of 8 to 14 us. The kernel decides group_dead by
// signal->live, which each exit decrements as it starts (exactly one finds
// 0), and who notifies by thread_group_empty() at exit_notify() and
// release_task().
func TestThreadsExitSideBySide(t *testing.T) {
	var hung []string
	for us := 0; us <= 30; us++ {
		_, res := runQuiet(t, "exit-side-by-side.sim", fmt.Sprintf(`scenario exit-side-by-side
cpus 3
task parent
  fork child
    thread t2
      compute 10us
    compute %dus
  wait
`, us))
		if !res.AllExited || res.Oops != nil || len(res.Violations) > 0 {
			hung = append(hung, fmt.Sprintf("%dus: all exited %v, end %v, oops %v, violations %v", us, res.AllExited, res.End, res.Oops, res.Violations))
		}
	}
	if d := cmp.Diff([]string(nil), hung); d != "" {
		t.Errorf("leader computes whose run did not reap the child (-want +got):\n%s", d)
	}
}
