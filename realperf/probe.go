package realperf

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"perfsim/runner"
	"perfsim/scenarios"
)

// Probe is a paired case whose real side is not perf record but a workload
// that calls perf_event_open() itself and prints what read() returned
// (testdata/CASE/probe.txt; capture-probe.sh runs the real side). Each
// variant is one command line of the workload and one scenario; the key
// compared is folded%: the count the parent read, as a percentage of the
// child's CPU time (the real child's own clock; the simulated child's
// compute time, ChildCPU).
type Probe struct {
	Name, Dir string
	Build     string
	ChildCPU  time.Duration
	Variants  []ProbeVariant
	Tolerance float64 // percentage points between real and simulated folded%
	Why       string  // why they differ by up to Tolerance
}

// ProbeVariant is one `variant NAME SIM -- CMD` line.
type ProbeVariant struct {
	Name, Sim, Cmd string
}

// ProbeReal is one variant's real figures: the median count the parent read
// over the fork and the median CPU time of the child at its exec or exit.
type ProbeReal struct {
	Delta, ChildCPU int64
}

// LoadProbe reads dir/probe.txt. Its lines:
//
//	build CMD
//	child-cpu DURATION
//	variant NAME SIM -- ./workload ARGS
//	tolerance POINTS WHY
func LoadProbe(dir string) (*Probe, error) {
	path := filepath.Join(dir, "probe.txt")
	p := &Probe{Name: filepath.Base(dir), Dir: dir, Build: "cc -O2 -o workload workload.c"}
	if err := eachDirective(path, func(verb, rest, line string, bad func(want string) error) error {
		switch verb {
		case "build":
			p.Build = rest
		case "child-cpu":
			d, err := time.ParseDuration(rest)
			if err != nil || d <= 0 {
				return bad("child-cpu DURATION (2ms)")
			}
			p.ChildCPU = d
		case "variant":
			head, cmd, ok := strings.Cut(rest, " -- ")
			f := strings.Fields(head)
			if !ok || len(f) != 2 || strings.TrimSpace(cmd) == "" {
				return bad("variant NAME SIM -- CMD")
			}
			p.Variants = append(p.Variants, ProbeVariant{Name: f[0], Sim: f[1], Cmd: strings.TrimSpace(cmd)})
		case "tolerance":
			pts, why, _ := strings.Cut(rest, " ")
			v, err := strconv.ParseFloat(pts, 64)
			if err != nil || v < 0 || strings.TrimSpace(why) == "" {
				return bad("tolerance POINTS WHY")
			}
			p.Tolerance, p.Why = v, strings.TrimSpace(why)
		default:
			return bad("build, child-cpu, variant or tolerance")
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if len(p.Variants) == 0 || p.ChildCPU == 0 {
		return nil, fmt.Errorf("%s: needs child-cpu and at least one variant", path)
	}
	return p, nil
}

// Probes loads every probe under dir (the directories with a probe.txt).
func Probes(dir string) ([]*Probe, error) { return loadEach(dir, "probe.txt", LoadProbe) }

// loadEach loads, with load, every directory under dir that holds file.
func loadEach[T any](dir, file string, load func(string) (T, error)) ([]T, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []T
	for _, e := range ents {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), file)); err != nil {
			continue
		}
		p, err := load(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// Real reads real.txt: `variant NAME delta N child-cpu N` lines (comments
// give the kernel and the commands).
func (p *Probe) Real() (map[string]ProbeReal, error) {
	out := map[string]ProbeReal{}
	err := eachDirective(filepath.Join(p.Dir, "real.txt"), func(_, _, line string, bad func(string) error) error {
		f := strings.Fields(line)
		if len(f) != 6 || f[0] != "variant" || f[2] != "delta" || f[4] != "child-cpu" {
			return bad("variant NAME delta N child-cpu N")
		}
		d, err1 := strconv.ParseInt(f[3], 10, 64)
		c, err2 := strconv.ParseInt(f[5], 10, 64)
		if err1 != nil || err2 != nil || c <= 0 {
			return bad("variant NAME delta N child-cpu N (integers, child-cpu > 0)")
		}
		out[f[1]] = ProbeReal{Delta: d, ChildCPU: c}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Folded is the real variant's folded%.
func (r ProbeReal) Folded() float64 { return 100 * float64(r.Delta) / float64(r.ChildCPU) }

// SimFolded runs the variant's scenario (with knobs over its own) and
// returns its folded%: read.value (the last read() of the count) as a
// percentage of ChildCPU.
func (p *Probe) SimFolded(v ProbeVariant, knobs map[string]string) (float64, error) {
	path := filepath.Join(p.Dir, v.Sim)
	src, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	f, err := runner.Load(&scenarios.Source{Name: path, Src: src})
	if err != nil {
		return 0, err
	}
	r, err := runner.Build(f, runner.Options{Knobs: knobs, MaxWall: -1})
	if err != nil {
		return 0, err
	}
	if err := r.Execute(); err != nil {
		return 0, err
	}
	n, ok := r.Observe("read.value")
	if !ok {
		return 0, fmt.Errorf("%s: no read.value", path)
	}
	return 100 * float64(n) / float64(p.ChildCPU.Nanoseconds()), nil
}
