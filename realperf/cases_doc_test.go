package realperf

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/paired-cases.md")

// docPath is the table of every paired case's compared figures.
const docPath = "../docs/paired-cases.md"

// TestPairedCasesDoc: docs/paired-cases.md is the table of every compared
// key of every case as TestPairedCases sees it now (go test -update
// rewrites it), so the document cannot drift from the cases and the model.
func TestPairedCasesDoc(t *testing.T) {
	cases, err := Cases("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	keys, unequal := 0, 0
	for _, c := range cases {
		real, sim, err := c.Summaries()
		if err != nil {
			t.Fatal(err)
		}
		var cr []string
		for _, r := range c.Diff(real, sim) {
			if r.Unexplained {
				continue
			}
			why := "equal"
			switch {
			case !r.OK:
				why = "DIFFERS"
			case r.Sim == r.Real && r.RealMin == r.RealMax:
			case r.Within > 0:
				why = fmt.Sprintf("within %g%%: %s", r.Within, c.Why[r.Key])
			case r.Factor > 0:
				why = fmt.Sprintf("range x%g: %s", r.Factor, c.Why[r.Key])
			}
			if r.Sim != r.Real {
				unequal++
			}
			keys++
			cr = append(cr, fmt.Sprintf("| %s | %s | %d [%d..%d] | %d | %s |", c.Name, r.Key, r.Real, r.RealMin, r.RealMax, r.Sim, strings.ReplaceAll(why, "|", `\|`)))
		}
		sort.Strings(cr)
		rows = append(rows, cr...)
	}
	var b strings.Builder
	b.WriteString("# The paired cases\n\n")
	b.WriteString("`go test ./realperf -run TestPairedCases -v` (real: realperf/testdata/CASE/real.txt, each with its kernel, perf version and command; " +
		"simulated: the default knobs, cost-model=this-machine). Every compared key of every case; keys a case only explains (case.txt `explain`) are not listed. ")
	fmt.Fprintf(&b, "%d cases, %d keys; %d not equal to the real median, each within the tolerance its case.txt states, with the reason quoted. "+
		"TestPairedCasesDoc keeps this file current (`go test ./realperf -run TestPairedCasesDoc -update` rewrites it).\n\n", len(cases), keys, unequal)
	b.WriteString("| case | key | real (median [min..max]) | simulated | equal, or why not |\n|---|---|---|---|---|\n")
	b.WriteString(strings.Join(rows, "\n") + "\n")
	if *update {
		if err := os.WriteFile(docPath, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(old) != b.String() {
		t.Errorf("%s is not the table of today's cases: go test ./realperf -run TestPairedCasesDoc -update", docPath)
	}
}
