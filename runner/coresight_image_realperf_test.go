package runner

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu/coresight"
)

// TestRealPerfFollowsCoreSightImages: the real perf 6.1 (OpenCSD 1.3.3)
// walks the simulated ETMv4 trace of cs_etm built-ins through the AArch64
// images WritePerfData writes (perf script --symfs DIR) as the model's
// decoder does (PerfData.CSETMFollow: coresight.Trace.Follow over the same
// bytes). Per CPU (trace ID 0x10 + 2*cpu): a "tr strt" per walk begun, and
// the taken-branch samples of --itrace=b ("jcc", and "tr end jcc" before a
// discontinuity) and instruction samples of --itrace=i1000 of every atom
// the model walks, but for two things perf does: of the atoms after the
// last timestamp of a stretch (up to a decoder reset or the end of the
// data: Trace.Tail) it decodes only the first (measured: replacing the
// last unit's atoms by I_IGNORE packets takes one range away, replacing
// the unit before it eighteen), and it synthesizes no branch sample for
// the very last range (cs_etm__end_block()). Every sample resolves to a
// function of the images (perf report --sort sym: no [unknown]); nothing
// but the file's own warnings reaches stderr; the walk met no packet
// error, N atom or address without memory. Skipped without perf 6.1 on the
// PATH; -realperf.all adds coresight-snapshot-sched-out (seed 004's four
// per-CPU buffers).
func TestRealPerfFollowsCoreSightImages(t *testing.T) {
	perf := perf61(t, "the real perf's cs-etm decoder (OpenCSD) is the judge of the synthetic AArch64 images")
	names := []string{"coresight-sink-smaller-than-aux"} // 4 MiB of trace: about 10 s
	if *realPerfAll {
		names = append(names, "coresight-snapshot-sched-out")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			r, dir, path := recordBuiltin61(t, name)
			p := r.Perf.(*pmuRun)
			ss := p.sessions[0]
			traces := ss.Data.CSETMFollow()
			want := map[int]*coresight.Trace{}
			for id, tr := range traces {
				if tr.Errors != 0 || tr.NACC != 0 {
					t.Errorf("trace ID %#x: the model's walk met %d errors and %d addresses without memory", id, tr.Errors, tr.NACC)
				}
				if tr.Instructions > 0 {
					want[(id-0x10)/2] = tr
				}
				t.Logf("%s\ttrace ID %#x\tinstructions %d\tbranches %d\tstarts %d\ttail %d\tskipped atoms %d", name, id, tr.Instructions, tr.Branches, tr.Starts, tr.Tail, tr.Skipped)
			}
			if len(want) == 0 {
				t.Fatal("the model's walk found no instruction")
			}
			run := func(args ...string) string {
				cmd := exec.Command(perf, append(args, "-f", "-i", path, "--symfs", dir)...)
				var so, se strings.Builder
				cmd.Stdout, cmd.Stderr = &so, &se
				if err := cmd.Run(); err != nil {
					t.Fatalf("perf %s: %v\n%s", strings.Join(args, " "), err, se.String())
				}
				for _, l := range strings.Split(strings.TrimSpace(se.String()), "\n") {
					if l != "" && !strings.HasPrefix(l, "CS ETM: Couldn't find auxtrace buffer for aux_offset") &&
						l != "unwind: target platform=arm64 is not supported" {
						t.Errorf("perf %s: %q", strings.Join(args, " "), l)
					}
				}
				return so.String()
			}
			type counts struct{ Branches, Starts, Samples1000 uint64 }
			got := map[int]*counts{}
			at := func(f string) *counts {
				n, err := strconv.Atoi(strings.Trim(f, "[]"))
				if err != nil {
					t.Fatalf("cpu field %q", f)
				}
				if got[n] == nil {
					got[n] = &counts{}
				}
				return got[n]
			}
			for _, l := range strings.Split(run("script", "--itrace=b", "-F", "cpu,flags"), "\n") {
				f := strings.Fields(l)
				switch {
				case len(f) < 2:
				case f[len(f)-1] == "jcc":
					at(f[0]).Branches++
				case strings.Join(f[1:], " ") == "tr strt":
					at(f[0]).Starts++
				default:
					t.Errorf("--itrace=b: unexpected sample %q", l)
				}
			}
			for _, l := range strings.Split(run("script", "--itrace=i1000", "-F", "cpu"), "\n") {
				if f := strings.Fields(l); len(f) == 1 {
					at(f[0]).Samples1000++
				}
			}
			for cpu, tr := range want {
				g := got[cpu]
				if g == nil {
					t.Errorf("CPU %d: perf decoded nothing; the model walked %d instructions", cpu, tr.Instructions)
					continue
				}
				undecoded := tr.Tail - uint64(tr.TailStretches) // atoms perf leaves
				w := counts{Branches: tr.Branches - undecoded*coresight.LoopBranches, Starts: uint64(tr.Starts),
					Samples1000: (tr.Instructions - undecoded*coresight.LoopInsns) / 1000}
				if tr.LastRange {
					w.Branches--
				}
				if d := cmp.Diff(w, *g); d != "" {
					t.Errorf("CPU %d: coresight.Trace.Follow (-) vs perf 6.1 (+):\n%s", cpu, d)
				}
				t.Logf("%s\tCPU %d\tperf: branches %d, tr strt %d, i1000 samples %d\tmodel: branches %d (tail %d in %d stretches), starts %d, instructions %d",
					name, cpu, g.Branches, g.Starts, g.Samples1000, tr.Branches, tr.Tail, tr.TailStretches, tr.Starts, tr.Instructions)
			}
			for cpu := range got {
				if want[cpu] == nil {
					t.Errorf("CPU %d: perf decoded trace the model's walk did not find", cpu)
				}
			}
			names := map[string]bool{}
			for _, fr := range append(p.k.ImageFrames(false), p.k.ImageFrames(true)...) {
				names[fr.Name] = true
			}
			report := run("report", "--stdio", "--itrace=i1000", "--sort", "sym")
			syms := 0
			for _, l := range strings.Split(report, "\n") {
				if f := strings.Fields(l); len(f) == 3 && strings.HasSuffix(f[0], "%") {
					syms++
					if !names[f[2]] {
						t.Errorf("perf report: %q is no function of the images", l)
					}
				}
			}
			if syms == 0 {
				t.Errorf("perf report --itrace=i1000: no symbol:\n%s", report)
			}
		})
	}
}
