package runner

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cost"
	"perfsim/sim"
)

// TestFaultCosts: a page fault costs its task what the cost model says
// the handler it ran costs (cost/testdata/faults.txt): N more faults of a
// kind lengthen a lone task's run by N times that cost, for a zeroed anon
// page, the zero page, a cached file's fault-around and a private file
// page copied; under cost-model=free they cost nothing.
func TestFaultCosts(t *testing.T) {
	tm := cost.ThisMachine()
	// a run of a task that maps a 64-page cached file (MAP_POPULATE reads
	// it) and 64 anon pages, then makes n touches of one kind
	run := func(model, touch string, n int) sim.Time {
		src := fmt.Sprintf(`scenario fault-cost
cpus 1
kernel cost-model=%s timer-slack=0
task w cpu0
  syscall openat AT_FDCWD "/var/data/f" O_RDONLY 0 as fd
  syscall mmap 0 262144 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_POPULATE fd 0 as pop
  syscall munmap pop 262144
  syscall mmap 0 262144 PROT_READ|PROT_WRITE MAP_PRIVATE fd 0 as file
  syscall mmap 0 262144 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as anon
`, model)
		if n > 0 {
			src += "  touch " + fmt.Sprintf(touch, n) + "\n"
		}
		_, res := runQuiet(t, "fault-cost.sim", src)
		return res.End
	}
	type row struct {
		Model, Touch string
		Faults       int
		Cost         sim.Duration
	}
	var got, want []row
	for _, tc := range []struct {
		model, touch string
		faults       int // the faults 64 touches make
		each         sim.Duration
	}{
		{"this-machine", "anon %d write", 64, tm.AnonFault},
		{"this-machine", "anon %d", 64, tm.ZeroPageFault},
		{"this-machine", "file %d", 5, tm.FileMapFault}, // 64 KB a fault: 5 windows, as the mapping starts mid-window
		{"this-machine", "file %d write", 64, tm.CopyFault},
		{"free", "anon %d write", 64, 0},
	} {
		d := sim.Duration(run(tc.model, tc.touch, 64) - run(tc.model, tc.touch, 0))
		got = append(got, row{tc.model, tc.touch, tc.faults, d})
		want = append(want, row{tc.model, tc.touch, tc.faults, sim.Duration(tc.faults) * tc.each})
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the time 64 touches add (-want +got):\n%s", d)
	}
}
