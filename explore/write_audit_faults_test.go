package explore

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"perfsim/faultinject"
	"perfsim/runner"
	"perfsim/scenarios"
)

// TestWriteAuditFaultPaths: with PERFSIM_AUDIT_ALL=1, the write audit of
// the error paths a fail line takes: built-ins whose perf sessions and
// tasks reach every kind of site (perf record's setup, a task's own opens
// and mmaps, inherited events at fork, an AUX area), each site failed at
// its first three calls by each session's perf and each task. No fragment
// declared complete writes what it does not annotate on the way out.
func TestWriteAuditFaultPaths(t *testing.T) {
	if os.Getenv("PERFSIM_AUDIT_ALL") == "" {
		t.Skip("PERFSIM_AUDIT_ALL=1: the write audit of the fault paths")
	}
	for _, tc := range []struct{ builtin, who string }{
		{"mmap-map-range-fail", "pr"},
		{"munmap-vs-mmap-same-fd", "app"},
		{"inherit-group-fork-exit", "parent"},
		{"aux-munmap-split", "pt"},
	} {
		src, err := scenarios.Open(tc.builtin)
		if err != nil {
			t.Fatal(err)
		}
		for _, site := range faultinject.SiteNames() {
			for n := 1; n <= 3; n++ {
				name := fmt.Sprintf("%s/%s-in-%s-%d", tc.builtin, site, tc.who, n)
				t.Run(name, func(t *testing.T) {
					// The built-in's outcomes go (perf may give up); its
					// fail line, if any, is replaced by this one.
					var lines []string
					for _, l := range strings.Split(string(src.Src), "\n") {
						tl := strings.TrimSpace(l)
						if strings.HasPrefix(tl, "fail ") || strings.HasPrefix(tl, "kernel map-range-fail=") || strings.HasPrefix(tl, "always") || strings.HasPrefix(tl, "never") ||
							strings.HasPrefix(tl, "sometimes") || strings.HasPrefix(tl, "when") {
							continue
						}
						lines = append(lines, l)
					}
					text := strings.Join(lines, "\n") + fmt.Sprintf("\nkernel map-range-fail=pre-77de62ad3de3\nfail %s in %s occurrence %d\n", site, tc.who, n)
					f, err := runner.Load(&scenarios.Source{Name: tc.builtin + ".sim", Src: []byte(text)})
					if err != nil {
						t.Fatalf("%v\n%s", err, text)
					}
					a := auditRunFile(t, f, 3)
					if len(a.Violations) > 0 {
						t.Errorf("declared fragments that write what they do not annotate:\n%s", strings.Join(a.Violations, "\n"))
					}
				})
			}
		}
	}
}
