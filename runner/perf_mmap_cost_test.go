package runner

import (
	"fmt"
	"math"
	"os"
	"testing"

	"perfsim/cost"
	"perfsim/scenarios"
	"perfsim/sim"
)

// TestPerfMmapCostMatchesThisMachine: a task's mmap() of a new perf ring
// and its munmap(), and a second mmap() of a mapped ring, take the virtual
// time this machine's kernel took (cost/testdata/perfmmap.txt, measured by
// cost/calibrate/perfmmap.sh: CPU time per call, the median of 9 runs of
// 50 rings): the run with the calls ends that much later than the run
// without them, within 10% (the fit is a line through five sizes).
func TestPerfMmapCostMatchesThisMachine(t *testing.T) {
	b, err := os.ReadFile("../cost/testdata/perfmmap.txt")
	if err != nil {
		t.Fatal(err)
	}
	m, err := cost.ParseMeasurements(string(b))
	if err != nil {
		t.Fatal(err)
	}
	end := func(ops string) sim.Duration {
		src := "scenario mmap-cost\ncpus 1\ntask a cpu0\n  open ev -e dummy pid self\n  open ev2 -e dummy pid self\n" + ops + "  exit\n"
		f, err := Load(&scenarios.Source{Name: "mmap-cost.sim", Src: []byte(src)})
		if err != nil {
			t.Fatal(err)
		}
		_, res, err := RunOnce(f, Options{Chooser: sim.NewRandom(1)})
		if err != nil {
			t.Fatal(err)
		}
		return res.End
	}
	base := end("")
	for _, pages := range []int{4, 16, 64, 128} {
		for _, tc := range []struct {
			what, ops string
			want      float64
		}{
			{"a new ring's mmap() and its munmap()", fmt.Sprintf("  mmap ev %d\n  munmap ev\n", pages),
				m[fmt.Sprintf("perfmmap.new.%d", pages)] + m[fmt.Sprintf("perfmmap.last.%d", pages)]},
			{"... and a second mmap() of it and its munmap()", fmt.Sprintf("  mmap ev %d\n  mmap ev %d\n  munmap ev\n  munmap ev\n", pages, pages),
				m[fmt.Sprintf("perfmmap.new.%d", pages)] + m[fmt.Sprintf("perfmmap.shared.%d", pages)] +
					m[fmt.Sprintf("perfmmap.unmap.%d", pages)] + m[fmt.Sprintf("perfmmap.last.%d", pages)]},
		} {
			got := float64(end(tc.ops) - base)
			if tc.want == 0 || math.Abs(got-tc.want) > tc.want/10 {
				t.Errorf("1 + %d pages, %s: %.0f ns in the model, %.0f ns on this machine", pages, tc.what, got, tc.want)
			}
			t.Logf("1 + %d pages, %s: %.0f ns in the model, %.0f ns on this machine", pages, tc.what, got, tc.want)
		}
	}
}
