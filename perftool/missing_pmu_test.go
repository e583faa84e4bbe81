package perftool

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMissingPMU: an event of an AUX PMU the machine does not have is
// refused at parse, exit 129, with perf's text: perf 6.1's as this machine
// printed it (Debian perf 6.1.187, kernel 6.18, no intel_pt: perf record
// -e intel_pt// -- true, and -e '{cycles,intel_pt//}'), today's "Bad event
// or PMU"; with the PMU present it parses.
func TestMissingPMU(t *testing.T) {
	for _, tc := range []struct {
		tool  Tool
		event string
		want  string
	}{
		{ToolPerf61, "intel_pt//", "event syntax error: 'intel_pt//'\n" +
			"                     \\___ Cannot find PMU `intel_pt'. Missing kernel support?\n" +
			"Run 'perf list' for a list of valid events\n"},
		{ToolPerf61, "{cycles,intel_pt//}", "event syntax error: '{cycles,intel_pt//}'\n" +
			"                     \\___ Cannot find PMU `intel_pt'. Missing kernel support?\n" +
			"Run 'perf list' for a list of valid events\n"},
		{ToolToday, "cs_etm//", "event syntax error: 'cs_etm//'\n" +
			"                     \\___ Bad event or PMU\n\n" +
			"Unable to find PMU or event on a PMU of 'cs_etm'\n" +
			"Run 'perf list' for a list of valid events\n"},
	} {
		opts := DefaultOptions()
		opts.Tool, opts.PMUs = tc.tool, map[string]bool{}
		r, err := Parse([]string{"-e", tc.event, "--", "true"}, opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.event, err)
		}
		if d := cmp.Diff(&ExitError{Status: 129, Text: tc.want}, r.Exit); d != "" {
			t.Errorf("perf record -e %s (-want +got):\n%s", tc.event, d)
		}
		opts.PMUs = map[string]bool{"intel_pt": true, "cs_etm": true}
		if r, err := Parse([]string{"-e", tc.event, "--", "true"}, opts); err != nil || r.Exit != nil {
			t.Errorf("%s with the PMU: %v, %v", tc.event, err, r.Exit)
		}
	}
}
