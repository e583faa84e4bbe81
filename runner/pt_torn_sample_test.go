package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/perftool"
	"perfsim/pmu"
	"perfsim/pmu/pt"
	"perfsim/sim"
)

// TestPTTornAuxSampleFollow: pt-sample-vs-stop's AUX samples walked through
// the images' code (pt.Follow, each sample a stream of its own): on today's
// kernel every sample walks clean and ends on a packet; before d92792a4b26e
// the sample copied while the hardware still wrote (the aux-sample-is-newest
// violation) is the hardware's output during the copy (pt.racingCopy), cut at
// the sample's end inside a packet (Trace.Cut; perf 6.1's "Bad packet":
// TestRealPerfTornAuxSample).
func TestPTTornAuxSampleFollow(t *testing.T) {
	f, err := Open("pt-sample-vs-stop")
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Violations bool
		Errors     bool
	}
	run := func(knob string) got {
		// As perf 6.1 records it (the file the real perf reads; its start-up
		// puts the forced NMI where the copy races the hardware).
		r, res, err := RunOnce(f, Options{Knobs: map[string]string{"pt-snapshot-stop": knob, perftool.PerfVersionKnob.Name: "6.1"}, Chooser: sim.NewRandom(1)}) // simrun run's seed 1
		if err != nil {
			t.Fatal(err)
		}
		var g got
		for _, v := range res.Violations {
			g.Violations = g.Violations || v.Invariant == "aux-sample-is-newest"
		}
		ss := r.Perf.(*pmuRun).sessions[0]
		ss.Data.Process()
		samples := 0
		for i := range ss.Data.Parsed() {
			d := ss.Data.Records[i].Dec
			if d == nil || d.Sample == nil || len(d.Sample.Aux) == 0 {
				continue
			}
			samples++
			if tr := pt.Follow(d.Sample.Aux, pmu.ImageLoopAt); tr.Errors > 0 || tr.Cut {
				g.Errors = true
			}
		}
		if samples == 0 {
			t.Fatalf("pt-snapshot-stop=%s: no AUX sample", knob)
		}
		return g
	}
	if d := cmp.Diff(got{}, run("today")); d != "" {
		t.Errorf("today (-want +got):\n%s", d)
	}
	if d := cmp.Diff(got{Violations: true, Errors: true}, run("pre-d92792a4b26e")); d != "" {
		t.Errorf("pre-d92792a4b26e (-want +got):\n%s", d)
	}
}

// TestPTRacingCopyRate: whether the copy pt-snapshot-stop=pre-d92792a4b26e
// lets race the hardware tears the sample depends on which is faster. The
// copy reads the oldest bytes first at 2 bytes/ns, the hardware overwrites
// them from the same slot on (pt.racingCopy): at a trace rate up to the
// copy's the copy stays ahead and the sample is the trace before it (no
// aux-sample-is-newest violation, every sample ends on a packet); faster, the
// hardware overtakes it and the sample is the hardware's output during the
// copy, cut inside a packet at the sample's end (a sample smaller than the
// AUX area gives the hardware that much more to write first).
func TestPTRacingCopyRate(t *testing.T) {
	src, err := os.ReadFile("../scenarios/builtin/pt-sample-vs-stop.sim")
	if err != nil {
		t.Fatal(err)
	}
	// Seam: the first byte of the sample that differs from the trace before
	// the copy (the aux-sample-is-newest message), -1 for none.
	type got struct {
		Violations, Cut bool
		Seam            int
	}
	for _, tc := range []struct {
		rate, auxSample string
		want            got
	}{
		{"1000", "4096", got{Seam: -1}},
		{"2000", "4096", got{Seam: -1}},
		{"3000", "4096", got{true, true, 2}},
		{"4000", "4096", got{true, true, 1}},
		{"8000", "4096", got{true, true, 2}},
		// A sample smaller than the area: the hardware must first write
		// the rest of the lap (4096-aux-sample bytes) before it reaches the
		// copied bytes; at 8 bytes/ns it overtakes the copy of 2048 bytes
		// at byte 683 ((k+2049)*2 <= 8k, less the bytes the hardware is
		// into its packet when the copy starts: a byte or two either way,
		// as the first seams at 8 bytes/ns), not that of 1024.
		{"4000", "2048", got{Seam: -1}},
		{"8000", "2048", got{true, true, 683}},
		{"8000", "1024", got{Seam: -1}},
	} {
		t.Run("rate="+tc.rate+",aux-sample="+tc.auxSample, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pt-sample-vs-stop-rate.sim")
			text := strings.Replace(string(src), "pmu intel_pt rate=4000", "pmu intel_pt rate="+tc.rate, 1)
			text = strings.Replace(text, "record --aux-sample=4096", "record --aux-sample="+tc.auxSample, 1)
			if !strings.Contains(text, "pmu intel_pt rate="+tc.rate+" region=4K") || !strings.Contains(text, "record --aux-sample="+tc.auxSample+" ") {
				t.Fatal("pt-sample-vs-stop.sim has no line `pmu intel_pt rate=4000` or `record --aux-sample=4096`")
			}
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			r, res, err := RunOnce(f, Options{Knobs: map[string]string{"pt-snapshot-stop": "pre-d92792a4b26e", perftool.PerfVersionKnob.Name: "6.1"}, Chooser: sim.NewRandom(1)})
			if err != nil {
				t.Fatal(err)
			}
			g := got{Seam: -1}
			for _, v := range res.Violations {
				if v.Invariant == "aux-sample-is-newest" {
					g.Violations = true
					if _, err := fmt.Sscanf(v.Message[strings.Index(v.Message, "at byte ")+len("at byte "):], "%d", &g.Seam); err != nil {
						t.Fatalf("%s: %v", v.Message, err)
					}
				}
			}
			ss := r.Perf.(*pmuRun).sessions[0]
			ss.Data.Process()
			for i := range ss.Data.Parsed() {
				if d := ss.Data.Records[i].Dec; d != nil && d.Sample != nil && len(d.Sample.Aux) > 0 {
					g.Cut = g.Cut || pt.Follow(d.Sample.Aux, pmu.ImageLoopAt).Cut
				}
			}
			if d := cmp.Diff(tc.want, g); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
