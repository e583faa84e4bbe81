package explore

import (
	"strings"
	"testing"

	"perfsim/runner"
	"perfsim/scenarios"
)

// TestOopsExpectedIsNoViolation: mmap-map-range-fail states today's oops as
// its expected result ("always kernel.oops"), so exploring it finds no
// violation and the outcome is Always; the same file saying "never
// kernel.oops" instead finds the oops at once, named as an oops.
func TestOopsExpectedIsNoViolation(t *testing.T) {
	f := loadBuiltin(t, "mmap-map-range-fail")
	ex, err := Explore(f, Options{Strategy: "random", Runs: 20, Seed: 1, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Found != nil {
		t.Fatalf("found %q at schedule %d; want no violation", ex.Found.Violation, ex.Found.Schedule)
	}
	var verdict string
	for _, o := range ex.Outcomes {
		if strings.HasSuffix(o.Outcome, "always kernel.oops") {
			verdict = o.Verdict
		}
	}
	if verdict != "Always" {
		t.Errorf("always kernel.oops: verdict %q; want Always (every schedule oopses)", verdict)
	}

	src, err := scenarios.Open("mmap-map-range-fail")
	if err != nil {
		t.Fatal(err)
	}
	src.Src = []byte(strings.Replace(string(src.Src), "  always kernel.oops ", "  never kernel.oops ", 1))
	f, err = runner.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	ex, err = Explore(f, Options{Strategy: "random", Runs: 20, Seed: 1, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Found == nil || ex.Found.Schedule != 1 || !strings.HasPrefix(ex.Found.Violation, "kernel oops on cpu0 at ") ||
		!strings.HasSuffix(ex.Found.Violation, ": possible recursive locking detected: perf/102 already holds event->mmap_mutex") {
		t.Fatalf("never kernel.oops: found %+v; want the oops at schedule 1", ex.Found)
	}
}
