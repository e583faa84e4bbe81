package runner

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/perftool"
	"perfsim/sim"
)

// TestRealPerfTornAuxSample: the real perf 6.1 decodes pt-sample-vs-stop's
// AUX samples (perf script --itrace=b and --itrace=i0ns, errors synthesized
// with e). On today's kernel every sample is trace the hardware stopped
// before the copy: no instruction trace error. Before d92792a4b26e the sample
// taken by the NMI inside pt_event_stop() (handle_nmi cleared, TraceEn still
// set) is copied while the hardware writes round the ring from where the copy
// started (pt.racingCopy): with the scenario's rate (4 bytes/ns) ahead of the
// copy (2 bytes/ns), the sample holds the hardware's output of the copy's
// first microsecond, cut at the sample's end inside a packet. perf 6.1's
// intel_pt_find_overlap() starts that sample's decode at its first PSB (its
// TSC is past the previous sample's last one) and, at its end,
// intel_pt_get_split_packet() finds nothing to complete the cut TIP: "Bad
// packet", once, in both views. Skipped without perf 6.1 on the PATH.
func TestRealPerfTornAuxSample(t *testing.T) {
	perf := perf61(t, "the real perf's intel_pt decoder shows the torn AUX sample")
	f, err := Open("pt-sample-vs-stop")
	if err != nil {
		t.Fatal(err)
	}
	errorsOf := func(knob, itrace string) []string {
		dir := t.TempDir()
		// simrun run's seed 1, as perf 6.1 records it.
		r, _, err := RunOnce(f, Options{Knobs: map[string]string{"pt-snapshot-stop": knob, perftool.PerfVersionKnob.Name: "6.1"}, Chooser: sim.NewRandom(1), PerfDataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		paths, err := r.WritePerfData(dir)
		if err != nil || len(paths) != 1 {
			t.Fatalf("perf.data: %v %v", paths, err)
		}
		cmd := exec.Command(perf, "script", "-f", "-i", paths[0], "--symfs", dir, "--itrace="+itrace, "-F", "ip")
		var so, se strings.Builder
		cmd.Stdout, cmd.Stderr = &so, &se
		if err := cmd.Run(); err != nil {
			t.Fatalf("perf script --itrace=%s: %v\n%s", itrace, err, se.String())
		}
		var errs []string
		for _, l := range strings.Split(so.String()+se.String(), "\n") {
			if i := strings.Index(l, " code "); strings.Contains(l, "instruction trace error") && i >= 0 {
				errs = append(errs, l[i+1:]) // the code and perf's message (time and ip vary with the cost model)
			}
		}
		return errs
	}
	for _, itrace := range []string{"be", "i0nse"} {
		got := map[string][]string{}
		for _, knob := range []string{"today", "pre-d92792a4b26e"} {
			got[knob] = errorsOf(knob, itrace)
		}
		want := map[string][]string{"today": nil, "pre-d92792a4b26e": {"code 3: Bad packet"}}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("perf script --itrace=%s: instruction trace errors by pt-snapshot-stop (-want +got):\n%s", itrace, d)
		}
	}
}
