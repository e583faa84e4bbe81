package explore

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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
		Schedule, CorpusRuns int
		Corpus, Signature    string
		Saved                string
	}
	if again.Found == nil {
		t.Fatal("the second exploration found nothing")
	}
	if diff := cmp.Diff(got{1, 1, first.CorpusSaved, first.Found.Signature, ""},
		got{again.Found.Schedule, again.CorpusRuns, again.Found.Corpus, again.Found.Signature, again.CorpusSaved}); diff != "" {
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
