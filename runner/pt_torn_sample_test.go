package runner

import (
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
