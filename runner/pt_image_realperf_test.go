package runner

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
)

// TestRealPerfFollowsPTImages: the real perf 6.1 decodes the Intel PT
// trace of full-trace built-ins through the synthetic images WritePerfData
// writes (perf script --symfs DIR): no instruction trace error but the
// "Lost trace data" of each truncated AUX record, and as many instructions
// (--itrace=i0ns) and taken branches (--itrace=b, jcc and jmp) as the
// model's decoder walks in the same file (pt.Follow: pmu.ImageLoopInsns and
// pmu.ImageLoopBranches per iteration); where no trace was lost, that is
// every iteration the simulated hardware wrote (pt.iterations). perf report
// --stdio --itrace=i0ns counts the same instructions, each in a function of
// the images (no [unknown]). Skipped without perf
// 6.1 on the PATH.
func TestRealPerfFollowsPTImages(t *testing.T) {
	perf := perf61(t, "the real perf's intel_pt decoder is the judge of the synthetic images")
	for _, name := range []string{"aux-munmap-split", "pt-full-buffer-zero-size", "pt-addr-filter-fork"} {
		t.Run(name, func(t *testing.T) {
			r, dir, path := recordBuiltin61(t, name)
			p := r.Perf.(*pmuRun)
			ss := p.sessions[0]
			bs, _ := ss.Data.ItraceBranches()
			var iters uint64
			for _, b := range bs {
				iters += b.Iterations
			}
			produced, _ := p.k.Observe("pt.iterations")
			c := readContent(t, path)
			run := func(args ...string) (stdout, stderr string) {
				cmd := exec.Command(perf, append(args, "-f", "-i", path, "--symfs", dir)...)
				var so, se strings.Builder
				cmd.Stdout, cmd.Stderr = &so, &se
				if err := cmd.Run(); err != nil {
					t.Fatalf("perf %s: %v\n%s", strings.Join(args, " "), err, se.String())
				}
				return so.String(), se.String()
			}
			type counts struct {
				Instructions, Branches, Errors uint64
			}
			var got counts
			out, _ := run("script", "--itrace=i0ns", "-F", "ip")
			got.Instructions = uint64(strings.Count(out, "\n"))
			out, _ = run("script", "--itrace=b", "-F", "flags,ip")
			for _, l := range strings.Split(out, "\n") {
				if f := strings.Fields(l); len(f) > 0 && (f[0] == "jcc" || f[0] == "jmp") {
					got.Branches++
				}
			}
			_, errOut := run("script", "--itrace=e")
			for _, l := range strings.Split(errOut, "\n") {
				if strings.Contains(l, "instruction trace error") && !strings.HasSuffix(l, "instruction trace errors") && !strings.Contains(l, "Lost trace data") {
					got.Errors++
					t.Log(l)
				}
			}
			want := counts{Instructions: iters * pmu.ImageLoopInsns, Branches: iters * pmu.ImageLoopBranches}
			if d := cmp.Diff(want, got); d != "" || iters == 0 {
				t.Errorf("perf 6.1 vs pt.Follow over %s, %d iterations (-model +perf):\n%s", filepath.Base(path), iters, d)
			}
			if c.auxTruncated == 0 && uint64(produced) != iters {
				t.Errorf("decoded %d iterations, the hardware wrote %d, and no AUX record was truncated", iters, produced)
			}
			// perf report of the instructions: their count, each under a
			// function of the images.
			report, _ := run("report", "--stdio", "--itrace=i0ns", "--sort", "sym")
			m := regexp.MustCompile(`(?m)^# Event count \(approx\.\): (\d+)$`).FindStringSubmatch(report)
			if m == nil || m[1] != strconv.FormatUint(want.Instructions, 10) {
				t.Errorf("perf report --itrace=i0ns: want an event count of %d instructions:\n%s", want.Instructions, report)
			}
			names := map[string]bool{}
			for _, fr := range append(p.k.ImageFrames(false), p.k.ImageFrames(true)...) {
				names[fr.Name] = true
			}
			for _, l := range strings.Split(report, "\n") {
				if f := strings.Fields(l); len(f) == 3 && strings.HasSuffix(f[0], "%") && !names[f[2]] {
					t.Errorf("perf report: %q is no function of the images", l)
				}
			}
		})
	}
}
