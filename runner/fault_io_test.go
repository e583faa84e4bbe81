package runner

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cost"
)

// TestMajorFaultSleeps: a major fault sleeps through its disk read
// (sched_switch prev_state D, the I/O completion wakes it) and the other
// task on the CPU runs meanwhile; a minor fault does not switch. With no
// readahead (read_ahead_kb 0) each page of the file is a major fault of
// its own.
func TestMajorFaultSleeps(t *testing.T) {
	r, ss, _ := runRecords(t, `scenario major-sleeps
cpus 1
kernel read-ahead-kb=0
task w cpu0
  syscall openat AT_FDCWD "/usr/lib/libfoo.so" O_RDONLY 0 as fd
  syscall mmap 0 8192 PROT_READ MAP_PRIVATE fd 0 as lib
  syscall mmap 0 4096 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as buf
  touch buf 1 write
  touch lib 2
task other cpu0
  repeat 30
    compute 10us
    yield
record -e sched:sched_switch -- w
`)
	var b strings.Builder
	if err := ss.Script(&b); err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, l := range strings.Split(b.String(), "\n") {
		if i := strings.Index(l, "prev_state="); i >= 0 && strings.Contains(l, "prev_comm=w ") {
			f := strings.Fields(l[i:])
			states = append(states, f[0]+" "+f[2]) // prev_state=X next_comm=Y
		}
	}
	// two major faults sleep (D) and other runs meanwhile; the last switch is w's exit
	if d := cmp.Diff([]string{"prev_state=D next_comm=other", "prev_state=D next_comm=other"}, states[:min(2, len(states))]); d != "" {
		t.Errorf("w's switches (-want +got):\n%s\n%s", d, b.String())
	}
	w := r.Tasks["w"]
	if w.MajFlt != 2 || w.MinFlt != 1+cost.ExecPadzeroFaults { // and the exec's padzero() faults
		t.Errorf("w: maj_flt %d, min_flt %d; want 2, %d", w.MajFlt, w.MinFlt, 1+cost.ExecPadzeroFaults)
	}
}
