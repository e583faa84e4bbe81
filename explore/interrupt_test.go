package explore

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// cancelAt returns a context and a Progress that cancels it after schedule n.
func cancelAt(n int) (context.Context, func(done, total int)) {
	ctx, cancel := context.WithCancelCause(context.Background())
	return ctx, func(done, total int) {
		if done == n {
			cancel(errTestInterrupt)
		}
	}
}

type testInterrupt struct{}

func (testInterrupt) Error() string { return "test interrupt" }

var errTestInterrupt = testInterrupt{}

// TestExploreInterrupted: a cancelled Context stops a clean search where it
// is; the counts are of the schedules run, and nothing claims completeness.
func TestExploreInterrupted(t *testing.T) {
	f := loadBuiltin(t, "task-work-nmi-race")
	for _, tc := range []struct {
		strategy string
		jobs     int
		min, max int // schedules counted
	}{
		{"random", 1, 5, 5},
		{"random", 4, 5, 5 + 8}, // the results already computed are counted
		{"sparse", 1, 5, 5},
		{"rapid", 1, 5, 5},
		{"bounded", 1, 5, 5},
		{"bounded", 4, 5, 5 + 16},
	} {
		t.Run(tc.strategy, func(t *testing.T) {
			ctx, progress := cancelAt(5)
			ex, err := Explore(f, Options{Strategy: tc.strategy, Runs: 100000, Jobs: tc.jobs, Context: ctx, Progress: progress})
			if err != nil {
				t.Fatal(err)
			}
			if !ex.Interrupted || ex.Cause != "test interrupt" || ex.Schedules < tc.min || ex.Schedules > tc.max || ex.Found != nil || ex.CompleteUpTo != 0 || ex.Exhausted {
				t.Errorf("interrupted %v (%q), %d schedules (want %d..%d), found %v, complete up to %d, exhausted %v",
					ex.Interrupted, ex.Cause, ex.Schedules, tc.min, tc.max, ex.Found, ex.CompleteUpTo, ex.Exhausted)
			}
			var b bytes.Buffer
			ex.WriteText(&b)
			if want := "INTERRUPTED (test interrupt) after "; !strings.Contains(b.String(), want) {
				t.Errorf("text lacks %q:\n%s", want, b.String())
			}
			// The verdict line does not read as a pass.
			if !strings.HasSuffix(b.String(), "\nINTERRUPTED\n") {
				t.Errorf("text does not end in INTERRUPTED:\n%s", b.String())
			}
			b.Reset()
			if err := ex.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{`"interrupted": true,`, `"interrupted_by": "test interrupt",`, `"exhausted": false,`} {
				if !strings.Contains(b.String(), s) {
					t.Errorf("JSON lacks %s:\n%s", s, b.String())
				}
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ex, err := Explore(f, Options{Runs: 10, Context: ctx})
	if err != nil || !ex.Interrupted || ex.Schedules != 0 {
		t.Errorf("cancelled before: %v, interrupted %v, %d schedules", err, ex.Interrupted, ex.Schedules)
	}
}

// TestExploreShrinkInterrupted: interrupted while shrinking, explore keeps
// the violation as found (no replay finished), says so, and its replay file
// replays it.
func TestExploreShrinkInterrupted(t *testing.T) {
	f := loadBuiltin(t, "aux-pause-resume-nmi")
	knobs := map[string]string{"aux-pause-guard": "off"}
	ctx, progress := cancelAt(1) // the schedule that shows it (seed 1, as TestCLI's explore json)
	ex, err := Explore(f, Options{Runs: 1000, Seed: 1, Jobs: 1, Knobs: knobs, Context: ctx, Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	fd := ex.Found
	if fd == nil || !ex.Interrupted || !fd.ShrinkInterrupted || ex.Schedules != 1 || fd.Schedule != 1 {
		t.Fatalf("found %v, interrupted %v, %d schedules", fd, ex.Interrupted, ex.Schedules)
	}
	if fd.ShrinkRuns != 1 || countNonZero(fd.Decisions) != fd.OriginalDisturbing || fd.OriginalDisturbing != 16 || fd.Signature != "invariant pmu-pause-resume-exclusive" {
		t.Errorf("shrink runs %d, %d disturbing of %d found, signature %q", fd.ShrinkRuns, countNonZero(fd.Decisions), fd.OriginalDisturbing, fd.Signature)
	}
	var b bytes.Buffer
	ex.WriteText(&b)
	for _, s := range []string{"INTERRUPTED (test interrupt) while shrinking the violation of schedule 1\n",
		"shrinking interrupted after 1 replays: kept unshrunk, 16 disturbing decisions (of 71)\n", "FAIL\n"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, b.String())
		}
	}
	rf := roundTrip(t, ex.ReplayFile())
	rp, err := Replay(f, rf, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rp.Recurred || rp.Diverged != nil || len(rp.Notes) != 0 {
		t.Errorf("replay: recurred %v (%q), diverged %v, notes %q", rp.Recurred, rp.Signature, rp.Diverged, rp.Notes)
	}
}

// roundTrip writes a replay file and parses it back.
func roundTrip(t *testing.T, rf *ReplayFile) *ReplayFile {
	t.Helper()
	var b bytes.Buffer
	if _, err := rf.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	back, err := ParseReplayFile("x.replay", &b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	return back
}

// TestExploreSeeds: every seeded strategy is a function of its seed: the same
// seed gives the same search, and three seeds three different ones (their
// outcome counts or coverage differ). rapid draws every schedule from its
// seed: 1, 2 and 5; random and sparse run seeds seed..seed+99, so seeds 1 and 2 share 99
// schedules: 1, 1001 and 12345. bounded has no seed.
func TestExploreSeeds(t *testing.T) {
	// mmap-close-vs-close: whether the two closes race differs from
	// schedule to schedule (task-work-nmi-race's counts no longer do under
	// this machine's costs, nor munmap-ring-twice's since a munmap() of a
	// ring takes time: its second thread always meets the first inside).
	f := loadBuiltin(t, "mmap-close-vs-close")
	for _, tc := range []struct {
		strategy string
		seeds    []uint64
	}{
		{"random", []uint64{1, 1001, 12345, 1}},
		{"sparse", []uint64{1, 1001, 12345, 1}},
		{"rapid", []uint64{1, 2, 5, 1}}, // rapid collects no coverage: one sometimes-count tells its searches apart (1, 2 and 3 of 100), and some seed pairs may share it
	} {
		strategy := tc.strategy
		t.Run(strategy, func(t *testing.T) {
			// What a search did: its outcome counts and, where the strategy
			// collects coverage, how often it took each (step point,
			// interrupt) pair: two searches differ there far more often
			// than in one sometimes-count.
			type search struct {
				Outcomes []OutcomeCount
				Pairs    map[string]int
			}
			var counts []search
			for _, seed := range tc.seeds {
				ex, err := Explore(f, Options{Strategy: strategy, Runs: 100, Seed: seed, Jobs: 1})
				if err != nil {
					t.Fatal(err)
				}
				s := search{Outcomes: ex.Outcomes}
				if ex.Coverage != nil {
					s.Pairs = ex.Coverage.Pairs
				}
				counts = append(counts, s)
			}
			if d := cmp.Diff(counts[0], counts[3]); d != "" {
				t.Errorf("seed 1 twice (-first +second):\n%s", d)
			}
			for i, j := range [][2]int{{0, 1}, {0, 2}, {1, 2}} {
				if cmp.Equal(counts[j[0]], counts[j[1]]) {
					t.Errorf("pair %d: seeds %d and %d give the same counts: %+v", i, tc.seeds[j[0]], tc.seeds[j[1]], counts[j[0]])
				}
			}
		})
	}
}
