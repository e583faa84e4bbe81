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
	got := c.Diff(RealRuns{real}, sim)
	want := []Row{
		{Key: "records FORK", Sim: 2, Unexplained: true},
		{Key: "records LOST", Real: 1, RealMin: 1, RealMax: 1, Unexplained: true},
		{Key: "records SAMPLE", Real: 5, RealMin: 5, RealMax: 5, Sim: 5, OK: true},
		{Key: "samples x", Real: 100, RealMin: 100, RealMax: 100, Sim: 109, Within: 10, OK: true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Diff (-want +got):\n%s", d)
	}
	for _, r := range c.Diff(RealRuns{{"samples x": 100}}, Summary{"samples x": 111}) {
		if r.Key == "samples x" && r.OK {
			t.Errorf("111 against 100 passed a 10%% bound: %+v", r)
		}
	}
}

// TestDiffRangeAndRuns: over several real runs a compared key must be
// equal in every run, a within key is judged against the median, a range
// key against min/F..max*F.
func TestDiffRangeAndRuns(t *testing.T) {
	c := &Case{Compare: []string{"a"}, Within: map[string]float64{"b": 10}, Range: map[string]float64{"t": 2}}
	real := RealRuns{{"a": 1, "b": 100, "t": 3}, {"a": 1, "b": 90, "t": 76}, {"a": 2, "b": 200, "t": 20}}
	ok := map[string]bool{}
	for _, r := range c.Diff(real, Summary{"a": 1, "b": 105, "t": 152}) {
		ok[r.Key] = r.OK
	}
	if d := cmp.Diff(map[string]bool{"a": false, "b": true, "t": true}, ok); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, r := range c.Diff(real, Summary{"t": 153}) {
		if r.Key == "t" && r.OK {
			t.Errorf("153 passed the range 3/2..76*2")
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
