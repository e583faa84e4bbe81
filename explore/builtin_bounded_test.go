package explore

import (
	"strings"
	"testing"

	"perfsim/scenarios"
)

// TestBuiltinsBoundedOneClean: every built-in meets its outcomes, with
// today's knobs, in every schedule with at most one disturbing decision
// (the bounded strategy, exhaustively). At bound two this search found a
// missing ctx->lock in the model and a torn read behind PAUSE_OUTPUT; bound
// one is the part that fits in go test. The CoreSight built-ins (tens of
// milliseconds a run with their 4 MiB buffers) and the 3M-call benchmark
// are left to their own tests.
func TestBuiltinsBoundedOneClean(t *testing.T) {
	// aux-pause-resume-nmi's dropped pause: the cycles PMI held by its skid to
	// the end of the tracepoint's work (this machine's cost model), then taken
	// inside aux_resume.
	twoToSee := map[string]bool{"aux-pause-resume-nmi": true}
	if testing.Short() {
		t.Skip("explores every built-in")
	}
	for _, b := range scenarios.Builtins() {
		name := b.Name
		if strings.HasPrefix(name, "coresight-") || name == "seed-close-benchmark" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := loadBuiltinForTest(t, name)
			ex, err := Explore(f, Options{Strategy: "bounded", Budget: 1, Runs: 5000})
			if err != nil {
				t.Fatal(err)
			}
			// A sometimes outcome that takes a PMI held by its skid and then
			// taken at a step point needs two disturbances: at bound one only
			// the violations count.
			if twoToSee[name] && ex.Found == nil && ex.CompleteUpTo == 1 {
				return
			}
			if ex.Failed || ex.CompleteUpTo != 1 {
				var b strings.Builder
				ex.WriteText(&b)
				t.Errorf("want every schedule with at most one disturbance clean:\n%s", b.String())
			}
		})
	}
}
