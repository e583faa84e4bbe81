package explore

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"perfsim/scenarios"
	"perfsim/sim"
)

// The failure corpus keeps every shrunk violation an exploration found, as a
// replay file, so that the next exploration of the same scenario with the
// same knobs re-runs it first (Options.Corpus). Its layout:
//
//	DIR/SCENARIO-KEY/TOKENHASH.replay
//
// KEY is the first 16 hex digits of the SHA-256 of the scenario's text hash
// and the hash of every knob's resolved value (the identity a replay file
// records), so a changed scenario or another kernel starts a corpus of its
// own; TOKENHASH is the first 16 hex digits of the SHA-256 of the schedule's
// replay token, so a violation found twice is kept once. simrun's default
// DIR is DefaultCorpusDir: a per-user cache directory, never the source tree.

// DefaultCorpusDir is the corpus directory simrun uses when --corpus is not
// given: perfsim/corpus under os.UserCacheDir() ($XDG_CACHE_HOME or
// ~/.cache on Linux).
func DefaultCorpusDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "perfsim", "corpus"), nil
}

// CorpusKey is the directory name of the corpus entries of a scenario with
// its resolved knobs.
func CorpusKey(scenario, scenarioSHA256 string, resolvedKnobs []string) string {
	s := sha256.Sum256([]byte(scenarioSHA256 + "\n" + KnobsSHA256(resolvedKnobs) + "\n"))
	return safeName(scenario) + "-" + hex.EncodeToString(s[:8])
}

// safeName keeps a scenario name usable as a file name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, s)
}

// corpusDir is the directory of ex's corpus entries under dir.
func (ex *Result) corpusDir(dir string) string {
	return filepath.Join(dir, CorpusKey(ex.Scenario, ex.ScenarioSHA256, ex.ResolvedKnobs))
}

// LoadCorpus reads the replay files of a corpus directory of one key, in
// name order. A missing directory is an empty corpus, as is one that
// cannot exist (a file on its path: ENOTDIR; saving to it says why).
func LoadCorpus(dir string) ([]*ReplayFile, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*ReplayFile
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".replay") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		rf, err := ParseReplayFile(p, bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("corpus: %w", err)
		}
		out = append(out, rf)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// SaveCorpus writes rf into the corpus directory of its key under dir
// (made if missing) and returns its path; an entry of the same schedule is
// left as it is.
func SaveCorpus(dir string, rf *ReplayFile) (string, error) {
	sub := filepath.Join(dir, CorpusKey(rf.Scenario, rf.ScenarioSHA256, rf.Knobs))
	if err := os.MkdirAll(sub, 0o755); err != nil {
		return "", err
	}
	h := sha256.Sum256([]byte(sim.EncodeToken(rf.Decisions)))
	p := filepath.Join(sub, hex.EncodeToString(h[:8])+".replay")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	var b bytes.Buffer
	if _, err := rf.WriteTo(&b); err != nil {
		return "", err
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		return "", err
	}
	return p, os.Rename(tmp, p)
}

// replayCorpus runs the corpus entries of f's identity first, each one
// schedule: the first whose violation recurs is the exploration's Found
// (shrunk again, which for a shrunk entry costs a few replays; its Schedule
// is the entry's number among those re-run). It reports whether one did.
// The entries are not schedules of the search: they are counted apart
// (CorpusRuns), not among the Schedules or within Runs, and their outcomes,
// coverage and oracle reports are not counted (an entry may well be a
// schedule the search then runs, which would count it twice).
func replayCorpus(f *scenarios.File, o Options, ex *Result) (bool, error) {
	entries, err := LoadCorpus(ex.corpusDir(o.Corpus))
	if err != nil {
		return false, err
	}
	for _, rf := range entries {
		if o.stopped() {
			ex.Interrupted = true
			return false, nil
		}
		r, res, interrupted, err := o.run(f, sim.NewReplay(rf.Decisions))
		if err != nil {
			return false, err
		}
		if interrupted {
			ex.Interrupted = true
			return false, nil
		}
		ex.CorpusRuns++
		if o.corpusRan != nil {
			o.corpusRan()
		}
		if sig := signature(r, res); sig != "" {
			found, err := shrink(f, o, r.Decisions(), sig)
			if err != nil {
				return false, err
			}
			found.Schedule, found.Corpus = ex.CorpusRuns, rf.name
			ex.Found = found
			return true, nil
		}
	}
	return false, nil
}
