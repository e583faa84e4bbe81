package perftool

import (
	"os"
	"strings"
	"testing"
)

// TestOptionMessagesMatchRealPerf: for each perf record option perf 6.1
// adjusts or refuses, the model prints what the real perf printed on this
// machine, line for line (testdata/perf61-options.txt, captured by
// testdata/perf61-options.sh with perf 6.1.187 on kernel 6.18).
func TestOptionMessagesMatchRealPerf(t *testing.T) {
	b, err := os.ReadFile("testdata/perf61-options.txt")
	if err != nil {
		t.Fatal(err)
	}
	cases := 0
	for _, block := range strings.Split(string(b), "\n### ")[1:] {
		opts, real, _ := strings.Cut(block, "\n")
		want := strings.TrimRight(real, "\n")
		cases++
		t.Run(opts, func(t *testing.T) {
			o := DefaultOptions()
			o.Tool = ToolPerf61
			r, err := Parse(append(strings.Fields(opts), "-e", "cpu-clock", "--", "true"), o)
			var lines []string
			if e, ok := err.(*Error); ok {
				lines = append(lines, e.Reason)
			} else if err != nil {
				t.Fatalf("Parse: %v", err)
			} else if r.Exit != nil { // perf gave up: what it printed before its usage
				lines = append(lines, strings.TrimRight(r.Exit.Text, "\n"))
			} else {
				for _, m := range r.Messages { // the Warnings among them too
					lines = append(lines, m.Text)
				}
			}
			// perf's parse-options errors start " Error: "; the model's Reason is the rest.
			got := strings.Join(lines, "\n")
			if strings.HasPrefix(want, " Error: ") {
				got = " Error: " + got
			}
			if got != want {
				t.Errorf("the model prints\n%s\nthe real perf printed\n%s", got, want)
			}
		})
	}
	if cases < 10 {
		t.Fatalf("only %d cases in testdata/perf61-options.txt", cases)
	}
}
