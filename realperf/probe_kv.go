package realperf

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"perfsim/runner"
	"perfsim/scenarios"
)

// KVProbe is a probe whose workload prints "KEY VALUE" lines
// (testdata/CASE/probe-kv.txt): each key is modelled by a scenario and one
// of its observables. Compare keys must be equal; Differs keys are known to
// differ, each with why.
type KVProbe struct {
	Name, Dir string
	Build     string
	Runs      []string // the workload's command lines (capture-probe.sh)
	Keys      []KVKey
}

// KVKey is one `compare KEY SIM OBSERVABLE` or `differs KEY SIM OBSERVABLE: WHY` line.
type KVKey struct {
	Key, Sim, Observable string
	Why                  string // set for a differs key
}

// LoadKVProbe reads dir/probe-kv.txt. Its lines:
//
//	build CMD
//	run ./workload ARGS
//	compare KEY SIM OBSERVABLE
//	differs KEY SIM OBSERVABLE: WHY
func LoadKVProbe(dir string) (*KVProbe, error) {
	path := filepath.Join(dir, "probe-kv.txt")
	p := &KVProbe{Name: filepath.Base(dir), Dir: dir, Build: "cc -O2 -o workload workload.c"}
	if err := eachDirective(path, func(verb, rest, line string, bad func(want string) error) error {
		switch verb {
		case "build":
			p.Build = rest
		case "run":
			if rest == "" {
				return bad("run CMD")
			}
			p.Runs = append(p.Runs, rest)
		case "compare", "differs":
			head, why, _ := strings.Cut(rest, ": ")
			f := strings.Fields(head)
			if len(f) != 3 || (verb == "differs") != (strings.TrimSpace(why) != "") {
				return bad("compare KEY SIM OBSERVABLE or differs KEY SIM OBSERVABLE: WHY")
			}
			p.Keys = append(p.Keys, KVKey{Key: f[0], Sim: f[1], Observable: f[2], Why: strings.TrimSpace(why)})
		default:
			return bad("build, run, compare or differs")
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if len(p.Runs) == 0 || len(p.Keys) == 0 {
		return nil, fmt.Errorf("%s: needs a run and a key", path)
	}
	return p, nil
}

// KVProbes loads every probe under dir with a probe-kv.txt.
func KVProbes(dir string) ([]*KVProbe, error) { return loadEach(dir, "probe-kv.txt", LoadKVProbe) }

// Real reads real.txt's "KEY VALUE" lines.
func (p *KVProbe) Real() (map[string]int64, error) {
	out := map[string]int64{}
	err := eachDirective(filepath.Join(p.Dir, "real.txt"), func(_, _, line string, bad func(string) error) error {
		f := strings.Fields(line)
		v, err := strconv.ParseInt(f[len(f)-1], 10, 64)
		if len(f) != 2 || err != nil {
			return bad("KEY VALUE")
		}
		out[f[0]] = v
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Sim runs the key's scenario and returns its observable.
func (p *KVProbe) Sim(k KVKey) (int64, error) {
	path := filepath.Join(p.Dir, k.Sim)
	src, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	f, err := runner.Load(&scenarios.Source{Name: path, Src: src})
	if err != nil {
		return 0, err
	}
	r, err := runner.Build(f, runner.Options{MaxWall: -1})
	if err != nil {
		return 0, err
	}
	if err := r.Execute(); err != nil {
		return 0, err
	}
	v, ok := r.Observe(k.Observable)
	if !ok {
		return 0, fmt.Errorf("%s: no observable %s", path, k.Observable)
	}
	return v, nil
}
