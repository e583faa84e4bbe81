package explore

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/runner"
	"perfsim/scenarios"
)

var updateCorpus = flag.Bool("update", false, "rewrite testdata/corpus: explore every failing old-kernel setting of the built-ins and save its violation")

// A saved failure is re-run first: the next exploration of the scenario with
// the same knobs finds it at schedule 1, from the corpus; another kernel (the
// guard on) has a corpus of its own and runs none of it.
func TestCorpusRerunFirst(t *testing.T) {
	dir := t.TempDir()
	f := loadBuiltin(t, "aux-pause-resume-nmi")
	off := map[string]string{"aux-pause-guard": "off"}
	first, err := Explore(f, Options{Strategy: "random", Knobs: off, Corpus: dir})
	if err != nil {
		t.Fatal(err)
	}
	if first.Found == nil || first.CorpusSaved == "" {
		t.Fatalf("first exploration: found %v, saved %q", first.Found != nil, first.CorpusSaved)
	}
	if rel, _ := filepath.Rel(dir, first.CorpusSaved); strings.HasPrefix(rel, "..") {
		t.Fatalf("saved outside the corpus: %s", first.CorpusSaved)
	}
	again, err := Explore(f, Options{Strategy: "random", Knobs: off, Corpus: dir})
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Schedule, CorpusRuns, Schedules int
		Corpus, Signature               string
		Saved                           string
	}
	if again.Found == nil {
		t.Fatal("the second exploration found nothing")
	}
	// Found.Schedule is the entry's number; no schedule of the search ran.
	if diff := cmp.Diff(got{1, 1, 0, first.CorpusSaved, first.Found.Signature, ""},
		got{again.Found.Schedule, again.CorpusRuns, again.Schedules, again.Found.Corpus, again.Found.Signature, again.CorpusSaved}); diff != "" {
		t.Errorf("second exploration (-want +got):\n%s", diff)
	}
	on, err := Explore(f, Options{Strategy: "random", Runs: 5, Corpus: dir})
	if err != nil {
		t.Fatal(err)
	}
	if on.CorpusRuns != 0 || on.Found != nil {
		t.Errorf("guard on: %d corpus runs, found %v", on.CorpusRuns, on.Found != nil)
	}
	// The default directory is the user's cache, never the source tree.
	def, err := DefaultCorpusDir()
	if err != nil {
		t.Skip(err)
	}
	wd, _ := os.Getwd()
	if rel, err := filepath.Rel(filepath.Dir(wd), def); err == nil && !strings.HasPrefix(rel, "..") {
		t.Errorf("default corpus %s inside the source tree %s", def, filepath.Dir(wd))
	}
}

// The corpus of the built-ins: testdata/corpus holds the shrunk violation of
// every old-kernel setting of a built-in that a search finds (written by
// go test ./explore -run TestBuiltinCorpus -update, which explores each with
// PCT, then random). Each must still replay and show its violation: a change
// to the model that loses one of the known old-kernel failures fails here.
// The files are replayed with Force: a knob added since they were written
// changes the resolved knobs (and so the key) without changing the schedule.
func TestBuiltinCorpus(t *testing.T) {
	root := filepath.Join("testdata", "corpus")
	if *updateCorpus {
		writeBuiltinCorpus(t, root)
	}
	files, err := filepath.Glob(filepath.Join(root, "*", "*.replay"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no corpus: go test ./explore -run TestBuiltinCorpus -update")
	}
	for _, p := range files {
		t.Run(filepath.Base(filepath.Dir(p)), func(t *testing.T) {
			fh, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			rf, err := ParseReplayFile(p, fh)
			fh.Close()
			if err != nil {
				t.Fatal(err)
			}
			b, ok := scenarios.LookupBuiltin(rf.Scenario)
			if !ok {
				t.Fatalf("%s: no built-in %s", p, rf.Scenario)
			}
			sc := loadBuiltin(t, b.Name)
			// explore re-runs the entries under the key of the scenario as it
			// is: an entry under an older text's key is never re-run there
			if key := CorpusKey(rf.Scenario, ScenarioSHA256(sc), rf.Knobs); filepath.Base(filepath.Dir(p)) != key {
				t.Errorf("%s: stale: %s changed since it was saved (its corpus key is %s now), so explore no longer re-runs it; go test ./explore -run TestBuiltinCorpus -update", p, b.Name, key)
			}
			got, err := Replay(sc, rf, ReplayOptions{Force: true})
			if err != nil {
				t.Fatal(err)
			}
			if !got.Recurred {
				t.Errorf("%s (%s): the violation %q did not recur (signature now %q, diverged %v); if the model changed on purpose: -update",
					p, strings.Join(rf.Kernel, " "), rf.Signature, got.Signature, got.Diverged)
			}
		})
	}
}

// corpusRuns is the schedules writeBuiltinCorpus gives each strategy on the
// built-ins whose one run costs 35 ms of CPU or more (one run, measured 2026-11-26:
// CoreSight's decoding, Intel PT's packets, the longest runs); the others get
// 300. A count in the source rather than a clock, so that the corpus does not
// depend on the machine's load.
var corpusRuns = map[string]int{
	"aux-munmap-split":                30,
	"coresight-sink-smaller-than-aux": 30,
	"coresight-snapshot-sched-out":    30,
	"coresight-snapshot-variance":     30,
	"pmi-took-too-long":               30,
	"pt-throttle-group":               30,
}

// writeBuiltinCorpus explores every old-kernel setting of the built-ins
// (PCT depth 3, then random) and saves what it finds under root, afresh.
func writeBuiltinCorpus(t *testing.T, root string) {
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	for _, c := range oldKernelCases(t) {
		f := loadBuiltin(t, c.Builtin)
		runs := 300
		if n, ok := corpusRuns[c.Builtin]; ok {
			runs = n
		}
		for _, strategy := range []string{"pct", "random"} {
			ex, err := Explore(f, Options{Strategy: strategy, Runs: runs, Knobs: c.Knobs, Corpus: root, Jobs: 2})
			if err != nil {
				t.Fatal(err)
			}
			if ex.Found != nil {
				t.Logf("%s %v: %s, schedule %d (%s)", c.Builtin, c.Knobs, ex.Found.Signature, ex.Found.Schedule, strategy)
				break
			}
		}
	}
}

// corpusWithStaleEntry returns a corpus directory whose entries for f (with
// no knob overrides) hold one schedule that shows no violation: a
// violation of aux-pause-resume-nmi with its guard off, filed under f's key.
func corpusWithStaleEntry(t *testing.T, f *scenarios.File) string {
	t.Helper()
	dir := t.TempDir()
	src, err := Explore(loadBuiltin(t, "aux-pause-resume-nmi"), Options{Strategy: "bounded", Runs: 1000, Jobs: 1,
		Knobs: map[string]string{"aux-pause-guard": "off"}})
	if err != nil || src.Found == nil {
		t.Fatalf("no violation to file: %v", err)
	}
	rf := *src.ReplayFile()
	resolved, err := resolvedKnobs(f, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rf.Scenario, rf.File, rf.ScenarioSHA256 = runner.ScenarioName(f), f.Name, ScenarioSHA256(f)
	rf.Kernel, rf.Knobs, rf.KnobsSHA256 = nil, resolved, KnobsSHA256(resolved)
	if _, err := SaveCorpus(dir, &rf); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCorpusReplaysNotCounted: failure corpus entries re-run before the
// search are not schedules of it: a search of a scenario with 7 schedules
// with one stale entry runs 7 (bounded: exhaustive, and exhaustive within
// --runs 7), random runs --runs schedules, the outcome counts are of those,
// and the re-runs are reported apart.
func TestCorpusReplaysNotCounted(t *testing.T) {
	f := loadBuiltin(t, "pmu-overflow-vs-sched-out")
	dir := corpusWithStaleEntry(t, f)
	for _, tc := range []struct {
		name      string
		o         Options
		schedules int
		exhausted bool
	}{
		{"bounded", Options{Strategy: "bounded"}, 7, true},
		{"bounded-runs-7", Options{Strategy: "bounded", Runs: 7}, 7, true},
		{"random", Options{Runs: 20, Seed: 1}, 20, true},
		{"random-shard-0", Options{Runs: 20, Seed: 1, Shard: 0, Shards: 2}, 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.Corpus, o.Jobs = dir, 1
			ex, err := Explore(f, o)
			if err != nil {
				t.Fatal(err)
			}
			if ex.Found != nil || ex.CorpusRuns != 1 || ex.Schedules != tc.schedules || ex.Exhausted != tc.exhausted || ex.Coverage.Schedules != tc.schedules {
				t.Errorf("found %v, %d corpus runs, %d schedules (coverage %d), exhausted %v; want none, 1, %d, %v",
					ex.Found != nil, ex.CorpusRuns, ex.Schedules, ex.Coverage.Schedules, ex.Exhausted, tc.schedules, tc.exhausted)
			}
			for _, c := range ex.Outcomes {
				if c.Positive+c.Negative > ex.Schedules {
					t.Errorf("outcome %q counted in %d schedules of %d", c.Outcome, c.Positive+c.Negative, ex.Schedules)
				}
			}
			if tc.o.Shards == 0 {
				off, err := Explore(f, tc.o)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(off.Outcomes, ex.Outcomes); diff != "" {
					t.Errorf("outcome counts with the corpus vs without (-without +with):\n%s", diff)
				}
			}
			if want := "failure corpus: 1 entry re-run before the search, none failed again (not among the schedules)\n"; !strings.Contains(text(ex), want) {
				t.Errorf("text lacks %q:\n%s", want, text(ex))
			}
		})
	}
}

// TestCorpusInterrupted: interrupted while re-running the corpus (here,
// while shrinking the violation an entry showed again, and before any
// entry ran) the search ends as any interrupted search does: interrupted,
// with its cause, in the text and the JSON.
func TestCorpusInterrupted(t *testing.T) {
	f := loadBuiltin(t, "aux-pause-resume-nmi")
	off := map[string]string{"aux-pause-guard": "off"}
	dir := t.TempDir()
	if first, err := Explore(f, Options{Strategy: "bounded", Runs: 1000, Jobs: 1, Knobs: off, Corpus: dir}); err != nil || first.CorpusSaved == "" {
		t.Fatalf("saving a violation: %v", err)
	}
	t.Run("shrinking", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		o := Options{Strategy: "bounded", Runs: 1000, Jobs: 1, Knobs: off, Corpus: dir, Context: ctx}
		o.corpusRan = func() { cancel(errTestInterrupt) }
		ex, err := Explore(f, o)
		if err != nil {
			t.Fatal(err)
		}
		if fd := ex.Found; fd == nil || fd.Corpus == "" || !fd.ShrinkInterrupted || !ex.Interrupted || ex.Cause != "test interrupt" || ex.Schedules != 0 {
			t.Fatalf("found %+v, interrupted %v (%q), %d schedules", fd, ex.Interrupted, ex.Cause, ex.Schedules)
		}
		out := text(ex)
		for _, s := range []string{"INTERRUPTED (test interrupt) while shrinking the violation of failure corpus entry 1 (re-run before any schedule of the search)\n",
			"VIOLATION in failure corpus entry 1", "FAIL\n"} {
			if !strings.Contains(out, s) {
				t.Errorf("text lacks %q:\n%s", s, out)
			}
		}
		js := jsonMap(t, ex)
		if js["interrupted"] != true || js["interrupted_by"] != "test interrupt" || js["found"].(map[string]any)["shrink_interrupted"] != true {
			t.Errorf("JSON: interrupted %v (%v), shrink_interrupted %v", js["interrupted"], js["interrupted_by"], js["found"].(map[string]any)["shrink_interrupted"])
		}
	})
	t.Run("before", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(errTestInterrupt)
		ex, err := Explore(f, Options{Strategy: "bounded", Runs: 1000, Jobs: 1, Knobs: off, Corpus: dir, Context: ctx})
		if err != nil {
			t.Fatal(err)
		}
		if ex.Found != nil || !ex.Interrupted || ex.Cause != "test interrupt" || ex.CorpusRuns != 0 || ex.Schedules != 0 {
			t.Fatalf("found %v, interrupted %v (%q), %d corpus runs, %d schedules", ex.Found != nil, ex.Interrupted, ex.Cause, ex.CorpusRuns, ex.Schedules)
		}
		out := text(ex)
		if !strings.Contains(out, "INTERRUPTED (test interrupt) after 0 schedules") || !strings.HasSuffix(out, "\nINTERRUPTED\n") {
			t.Errorf("text:\n%s", out)
		}
	})
}

// TestCorpusUnwritable: a corpus directory that cannot be made loses no
// verdict: the violation stands, and the result says why it was not saved.
func TestCorpusUnwritable(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f := loadBuiltin(t, "aux-pause-resume-nmi")
	ex, err := Explore(f, Options{Strategy: "random", Knobs: map[string]string{"aux-pause-guard": "off"}, Corpus: filepath.Join(blocker, "corpus")})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Found == nil || !ex.Failed || ex.CorpusSaved != "" || !strings.Contains(ex.CorpusError, "not a directory") {
		t.Errorf("found %v, failed %v, saved %q, corpus error %q: want the violation, unsaved, and why", ex.Found != nil, ex.Failed, ex.CorpusSaved, ex.CorpusError)
	}
}
