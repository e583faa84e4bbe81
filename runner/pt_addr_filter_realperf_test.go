package runner

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
)

// TestRealPerfDecodesFilteredPT: the real perf 6.1 reads the trace of
// pt-addr-filter-fork (perf record --filter 'filter worker @
// /usr/local/bin/app', parent and child) through the images: the auxtrace
// info carries the filter string perf wrote to the events, every decoded
// instruction is in worker (perf script -F ip,sym), as many as the simulated
// hardware traced (pt.iterations x pmu.ImageLoopInsns), and none of main,
// which ran as long in user mode but outside the filter. Skipped without
// perf 6.1 on the PATH.
func TestRealPerfDecodesFilteredPT(t *testing.T) {
	perf := perf61(t, "the real perf's intel_pt decoder reads the filtered trace")
	r, dir, path := recordBuiltin61(t, "pt-addr-filter-fork")
	p := r.Perf.(*pmuRun)
	iters, _ := p.k.Observe("pt.iterations")
	run := func(args ...string) string {
		out, err := exec.Command(perf, append(args, "-f", "-i", path, "--symfs", dir)...).CombinedOutput()
		if err != nil {
			t.Fatalf("perf %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	syms := map[string]int64{}
	for _, l := range strings.Split(run("script", "--itrace=i0ns", "-F", "ip,sym"), "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			syms[f[1]]++
		} else if len(f) > 0 {
			t.Errorf("perf script: %q", l)
		}
	}
	if d := cmp.Diff(map[string]int64{"worker": iters * pmu.ImageLoopInsns}, syms); d != "" || iters == 0 {
		t.Errorf("instructions per function (-want +perf 6.1):\n%s", d)
	}
	if dump := run("script", "-D"); !strings.Contains(dump, "Filter string       filter 0x") || !strings.Contains(dump, "@/usr/local/bin/app") {
		t.Errorf("perf script -D shows no filter string in the auxtrace info")
	}
}
