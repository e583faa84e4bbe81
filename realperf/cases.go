package realperf

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"perfsim/runner"
)

// Case is one paired case as its case.txt states it.
type Case struct {
	Name string
	Dir  string
	// Perf is the real command (`perf record ... -- ./workload ARGS`), run
	// by capture.sh in the case's directory after Build.
	Perf  string
	Build string // how capture.sh builds the workload (default: cc -O2 -o workload workload.c)
	// Compare lists the keys that must be equal on both sides; Within the
	// keys that must agree within a percentage (and why they vary).
	Compare []string
	Within  map[string]float64
	// Explain says, per key prefix, why that key is not compared (one line
	// each: the hardware, the loader, perf's own threads...).
	Explain map[string]string
	// Baseline names a case whose counts are subtracted from this one's on
	// both sides before comparing (the same workload doing none of the
	// work: what the loader and libc do on their own).
	Baseline string
}

// LoadCase reads dir/case.txt. Its lines:
//
//	perf record ARGS -- ./workload ARGS
//	build CMD
//	compare KEY
//	within KEY PCT% WHY
//	explain KEY-PREFIX: WHY
//	baseline CASE
func LoadCase(dir string) (*Case, error) {
	path := filepath.Join(dir, "case.txt")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c := &Case{Name: filepath.Base(dir), Dir: dir, Within: map[string]float64{}, Explain: map[string]string{},
		Build: "cc -O2 -o workload workload.c"}
	for n, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		verb, rest, _ := strings.Cut(line, " ")
		bad := func(want string) error { return fmt.Errorf("%s:%d: %s: want %s", path, n+1, line, want) }
		switch verb {
		case "perf":
			c.Perf = line
		case "build":
			c.Build = rest
		case "baseline":
			if rest == "" {
				return nil, bad("baseline CASE")
			}
			c.Baseline = rest
		case "compare":
			if rest == "" {
				return nil, bad("compare KEY")
			}
			c.Compare = append(c.Compare, rest)
		case "within":
			f := strings.Fields(rest)
			i := -1
			for j, w := range f {
				if strings.HasSuffix(w, "%") {
					i = j
					break
				}
			}
			if i < 1 {
				return nil, bad("within KEY PCT% WHY")
			}
			pct, err := strconv.ParseFloat(strings.TrimSuffix(f[i], "%"), 64)
			if err != nil || i == len(f)-1 {
				return nil, bad("within KEY PCT% WHY")
			}
			c.Within[strings.Join(f[:i], " ")] = pct
		case "explain":
			k, why, ok := strings.Cut(rest, ":")
			if !ok || strings.TrimSpace(why) == "" {
				return nil, bad("explain KEY-PREFIX: WHY")
			}
			c.Explain[strings.TrimSpace(k)] = strings.TrimSpace(why)
		default:
			return nil, bad("perf, build, compare, within, explain or baseline")
		}
	}
	if c.Perf == "" {
		return nil, fmt.Errorf("%s: no perf line", path)
	}
	if len(c.Compare)+len(c.Within) == 0 {
		return nil, fmt.Errorf("%s: compares nothing", path)
	}
	return c, nil
}

// Cases loads every case under dir (testdata), in name order.
func Cases(dir string) ([]*Case, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []*Case
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		c, err := LoadCase(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Real is the committed summary of the real side (real.txt).
func (c *Case) Real() (Summary, error) {
	b, err := os.ReadFile(filepath.Join(c.Dir, "real.txt"))
	if err != nil {
		return nil, err
	}
	return ParseSummary(string(b))
}

// Simulate runs case.sim once on its default knobs (the quiet schedule) and
// summarizes the perf.data its one perf record session wrote.
func (c *Case) Simulate() (Summary, error) {
	f, err := runner.Open(filepath.Join(c.Dir, "case.sim"))
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "perfsim-paired-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	r, _, err := runner.RunOnce(f, runner.Options{PerfDataDir: tmp})
	if err != nil {
		return nil, err
	}
	paths, err := r.WritePerfData(filepath.Join(tmp, "out"))
	if err != nil {
		return nil, err
	}
	if len(paths) != 1 {
		return nil, fmt.Errorf("%s: %d perf.data files, want 1", c.Name, len(paths))
	}
	b, err := os.ReadFile(paths[0])
	if err != nil {
		return nil, err
	}
	return Summarize(b)
}

// Summaries are the real and simulated summaries the case compares: with a
// Baseline, each less the baseline case's (counts only: a sample-size is
// kept as it is).
func (c *Case) Summaries() (real, sim Summary, err error) {
	if real, err = c.Real(); err != nil {
		return nil, nil, err
	}
	if sim, err = c.Simulate(); err != nil {
		return nil, nil, err
	}
	if c.Baseline == "" {
		return real, sim, nil
	}
	base, err := LoadCase(filepath.Join(filepath.Dir(c.Dir), c.Baseline))
	if err != nil {
		return nil, nil, err
	}
	baseReal, baseSim, err := base.Summaries()
	if err != nil {
		return nil, nil, err
	}
	sub := func(s, b Summary) {
		for k, v := range b {
			if !strings.HasPrefix(k, "sample-size ") {
				s[k] -= v
				if s[k] == 0 {
					delete(s, k)
				}
			}
		}
	}
	sub(real, baseReal)
	sub(sim, baseSim)
	return real, sim, nil
}

// Row is one compared key: the real and simulated values and whether they
// agree as the case says they must.
type Row struct {
	Key         string
	Real, Sim   int64
	Within      float64 // 0: exact
	OK          bool
	Unexplained bool // a key that is neither compared nor explained
}

// Diff compares real and sim as the case says: its compared keys, and every
// other key present on either side must have an explanation.
func (c *Case) Diff(real, sim Summary) []Row {
	var rows []Row
	seen := map[string]bool{}
	for _, k := range c.Compare {
		seen[k] = true
		rows = append(rows, Row{Key: k, Real: real[k], Sim: sim[k], OK: real[k] == sim[k]})
	}
	for k, pct := range c.Within {
		seen[k] = true
		r, s := float64(real[k]), float64(sim[k])
		ok := r == s || (r != 0 && (s-r)/r*100 <= pct && (r-s)/r*100 <= pct)
		rows = append(rows, Row{Key: k, Real: real[k], Sim: sim[k], Within: pct, OK: ok})
	}
	keys := map[string]bool{}
	for k := range real {
		keys[k] = true
	}
	for k := range sim {
		keys[k] = true
	}
	for k := range keys {
		if seen[k] || c.explained(k) {
			continue
		}
		rows = append(rows, Row{Key: k, Real: real[k], Sim: sim[k], Unexplained: true})
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Key < rows[j].Key })
	return rows
}

// explained: some explain prefix covers k at a word boundary.
func (c *Case) explained(k string) bool {
	for p := range c.Explain {
		if k == p || strings.HasPrefix(k, p+" ") {
			return true
		}
	}
	return false
}
