package realperf

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDiffNamesUnexplainedKeys: a key on either side that case.txt neither
// compares nor explains fails the case, so nothing differs silently.
func TestDiffNamesUnexplainedKeys(t *testing.T) {
	c := &Case{Compare: []string{"records SAMPLE"}, Within: map[string]float64{"samples x": 10},
		Explain: map[string]string{"records MMAP2": "loader"}}
	real := Summary{"records SAMPLE": 5, "records MMAP2": 4, "samples x": 100, "records LOST": 1}
	sim := Summary{"records SAMPLE": 5, "samples x": 109, "records FORK": 2}
	got := c.Diff(real, sim)
	want := []Row{
		{Key: "records FORK", Sim: 2, Unexplained: true},
		{Key: "records LOST", Real: 1, Unexplained: true},
		{Key: "records SAMPLE", Real: 5, Sim: 5, OK: true},
		{Key: "samples x", Real: 100, Sim: 109, Within: 10, OK: true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Diff (-want +got):\n%s", d)
	}
	for _, r := range c.Diff(Summary{"samples x": 100}, Summary{"samples x": 111}) {
		if r.Key == "samples x" && r.OK {
			t.Errorf("111 against 100 passed a 10%% bound: %+v", r)
		}
	}
}

// TestSummaryLinesRoundTrip: Lines and ParseSummary are inverses.
func TestSummaryLinesRoundTrip(t *testing.T) {
	s := Summary{"records COMM": 2, "samples sched:sched_switch": 20, "sample-size a b": -1}
	text := "# header\n"
	for _, l := range s.Lines() {
		text += l + "\n"
	}
	got, err := ParseSummary(text)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(s, got); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}

// FuzzSummarize: any bytes give a summary or an error, never a panic.
func FuzzSummarize(f *testing.F) {
	f.Add([]byte("PERFILE2"))
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = Summarize(b) })
}
