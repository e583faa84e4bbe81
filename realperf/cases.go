package realperf

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	// Target is the process a -p/-t case attaches to (`target ./workload
	// ARGS`): capture.sh starts it, reads its pid and tid into the perf
	// line's $PID and $TID, and lets it go once perf has attached.
	Target string
	// Compare lists the keys that must be equal on both sides (in every
	// real run); Within the keys that must agree within a percentage of the
	// real runs' median (and why they vary); Range the keys that must lie
	// within a factor of the real runs' spread (min/F to max*F), for figures
	// that vary from run to run more than any percentage would allow.
	Compare []string
	Within  map[string]float64
	Range   map[string]float64
	// Runs is how many times capture.sh runs the real side (default 1).
	Runs int
	// Explain says, per key prefix, why that key is not compared (one line
	// each: the hardware, the loader, perf's own threads...).
	Explain map[string]string
	// Baseline names a case whose counts are subtracted from this one's on
	// both sides before comparing (the same workload doing none of the
	// work: what the loader and libc do on their own).
	Baseline string
	// Pin is the CPU capture.sh runs perf on (`pin N`: taskset -c N, which
	// its forked workload inherits), for a case whose figures depend on
	// perf sharing the workload's CPU; -1: wherever the scheduler puts it.
	Pin int
	// Stop is how long after the workload's exec capture.sh sends perf
	// record SIGINT (`stop SECONDS`: kill -INT of the pid it started, ^C),
	// as the case.sim's `at TIME stop` action does; "" lets perf end with
	// its workload. perf's exit status is then a figure (PerfStatus).
	Stop string
	// User is the uid capture.sh runs perf as (`user UID`: setpriv, no
	// capabilities, so perf_event_paranoid binds); "" for root. Its
	// case.sim must say `user unprivileged`.
	User string
	// Why is the reason a within or range line gives for its tolerance.
	Why map[string]string
	// Violates lists the invariants the simulated run is known to break
	// (`violates INVARIANT: WHY`: the upstream bug the case pairs); any
	// other violation fails the case, whose figures are then not the model's.
	Violates map[string]string
}

// PerfStatus is the summary key of perf record's exit status as the shell
// gives it ($?: 128+N when perf died of signal N, else its exit code),
// present when it is not 0.
const PerfStatus = "perf-status"

// LoadCase reads dir/case.txt. Its lines:
//
//	perf record ARGS -- ./workload ARGS
//	build CMD
//	target CMD
//	compare KEY
//	within KEY PCT% WHY
//	range KEY xF WHY
//	runs N
//	explain KEY-PREFIX: WHY
//	baseline CASE
//	pin N
//	stop SECONDS
//	violates INVARIANT: WHY
//	user UID
func LoadCase(dir string) (*Case, error) {
	path := filepath.Join(dir, "case.txt")
	c := &Case{Name: filepath.Base(dir), Dir: dir, Within: map[string]float64{}, Range: map[string]float64{},
		Explain: map[string]string{}, Why: map[string]string{}, Violates: map[string]string{}, Build: "cc -O2 -o workload workload.c", Runs: 1, Pin: -1}
	if err := eachDirective(path, func(verb, rest, line string, bad func(want string) error) error {
		switch verb {
		case "perf":
			c.Perf = line
		case "build":
			c.Build = rest
		case "target":
			c.Target = rest
		case "baseline":
			if rest == "" {
				return bad("baseline CASE")
			}
			c.Baseline = rest
		case "compare":
			if rest == "" {
				return bad("compare KEY")
			}
			c.Compare = append(c.Compare, rest)
		case "within":
			key, pct, why, ok := tolerance(rest, func(w string) (float64, bool) {
				v, err := strconv.ParseFloat(strings.TrimSuffix(w, "%"), 64)
				return v, strings.HasSuffix(w, "%") && err == nil
			})
			if !ok {
				return bad("within KEY PCT% WHY")
			}
			c.Within[key], c.Why[key] = pct, why
		case "range":
			key, fac, why, ok := tolerance(rest, func(w string) (float64, bool) {
				v, err := strconv.ParseFloat(strings.TrimPrefix(w, "x"), 64)
				return v, strings.HasPrefix(w, "x") && err == nil
			})
			if !ok {
				return bad("range KEY xFACTOR WHY")
			}
			if fac < 1 {
				return bad("range KEY xFACTOR WHY with FACTOR >= 1")
			}
			c.Range[key], c.Why[key] = fac, why
		case "pin":
			n, err := strconv.Atoi(rest)
			if err != nil || n < 0 {
				return bad("pin CPU (CPU >= 0)")
			}
			c.Pin = n
		case "stop":
			if v, err := strconv.ParseFloat(rest, 64); err != nil || v <= 0 {
				return bad("stop SECONDS (SECONDS > 0)")
			}
			c.Stop = rest
		case "violates":
			inv, why, ok := strings.Cut(rest, ": ")
			if !ok || strings.TrimSpace(why) == "" {
				return bad("violates INVARIANT: WHY")
			}
			c.Violates[strings.TrimSpace(inv)] = strings.TrimSpace(why)
		case "user":
			if n, err := strconv.Atoi(rest); err != nil || n <= 0 {
				return bad("user UID (UID > 0: not root)")
			}
			c.User = rest
		case "runs":
			n, err := strconv.Atoi(rest)
			if err != nil || n < 1 {
				return bad("runs N (N >= 1)")
			}
			c.Runs = n
		case "explain":
			// ": " ends the key: keys hold tracepoint names (sched:sched_switch)
			k, why, ok := strings.Cut(rest, ": ")
			if !ok || strings.TrimSpace(why) == "" {
				return bad("explain KEY-PREFIX: WHY")
			}
			c.Explain[strings.TrimSpace(k)] = strings.TrimSpace(why)
		default:
			return bad("perf, build, target, compare, within, range, runs, explain, baseline, pin, stop, violates or user")
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if c.Perf == "" {
		return nil, fmt.Errorf("%s: no perf line", path)
	}
	if len(c.Compare)+len(c.Within)+len(c.Range) == 0 {
		return nil, fmt.Errorf("%s: compares nothing", path)
	}
	return c, nil
}

// hasCaseFile: dir holds a perf record case (case.txt), not only a probe.
func hasCaseFile(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "case.txt"))
	return err == nil
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
		if !hasCaseFile(filepath.Join(dir, e.Name())) {
			continue // a probe (probe.go, probe_kv.go), not a perf record case
		}
		c, err := LoadCase(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// RealRuns are the summaries of the real side, one per run capture.sh made.
type RealRuns []Summary

// Real reads the committed real side (real.txt: one summary per run, each
// after a "# run N" line when there are several).
func (c *Case) Real() (RealRuns, error) {
	b, err := os.ReadFile(filepath.Join(c.Dir, "real.txt"))
	if err != nil {
		return nil, err
	}
	var runs RealRuns
	for i, block := range strings.Split("\n"+string(b), "\n# run ") {
		if i > 0 { // the run's number ends the "# run N" line
			_, block, _ = strings.Cut(block, "\n")
		}
		s, err := ParseSummary(block)
		if err != nil {
			return nil, fmt.Errorf("%s/real.txt: %w", c.Name, err)
		}
		if len(s) > 0 {
			runs = append(runs, s)
		}
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s/real.txt: no figures", c.Name)
	}
	return runs, nil
}

// stats are a key's median, minimum and maximum over the runs (a key a run
// lacks counts 0 there).
func (r RealRuns) stats(k string) (med, lo, hi int64) {
	v := make([]int64, len(r))
	for i, s := range r {
		v[i] = s[k]
	}
	slices.Sort(v)
	return v[(len(v)-1)/2], v[0], v[len(v)-1]
}

// Simulate runs case.sim once on its default knobs (the quiet schedule) and
// summarizes the perf.data its one perf record session wrote, with perf's
// exit status (PerfStatus) when it died of a signal (record__sig_exit()
// raising signr; the model keeps no exit code: a perf that exited is 0).
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
	if (c.User != "") != f.Unprivileged() {
		// the two sides would not be the same perf: one root, one not
		return nil, fmt.Errorf("%s: case.txt's user %q and case.sim's user line disagree (user UID pairs with user unprivileged)", c.Name, c.User)
	}
	r, res, err := runner.RunOnce(f, runner.Options{PerfDataDir: tmp})
	if err != nil {
		return nil, err
	}
	// The scenario's own outcomes say what the simulated side does (the
	// counts the comparison rests on): a run that breaks one, or the model,
	// is no side to compare; so are the figures of a run that broke an
	// invariant the case does not expect (a record counted twice, one
	// missed).
	var failed []string
	for _, o := range res.Outcomes {
		if o.Failure() {
			failed = append(failed, fmt.Sprintf("line %d: %s: %s %v%s", o.Line, o.Outcome, o.Status, o.Values, o.Error))
		}
	}
	if res.Oops != nil {
		failed = append(failed, "a kernel oops: "+res.Oops.Message)
	}
	for _, v := range r.Violations() {
		if _, ok := c.Violates[v.Invariant]; !ok {
			failed = append(failed, fmt.Sprintf("it broke an invariant: %v", v))
		}
	}
	if len(failed) > 0 {
		return nil, fmt.Errorf("%s: case.sim failed: %s", c.Name, strings.Join(failed, "; "))
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
	s, err := Summarize(b)
	if err != nil {
		return nil, err
	}
	if err := scriptEvents(s, r); err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	for _, t := range r.S.Tasks {
		if t.Comm == "perf" && t.Leader() == t {
			if sig, _ := t.ExitSignal(); sig != 0 {
				s[PerfStatus] = 128 + int64(sig) // the shell's status of a process a signal killed
			}
		}
	}
	return s, nil
}

// ScriptEvent is the summary key prefix of the samples `perf script -F
// event` prints for an event: "script-event syscalls:sys_enter_close 102".
// capture.sh counts the real perf script's lines; the simulated side is the
// session's perf.samples[EVENT] observable.
const ScriptEvent = "script-event "

// scriptEvents adds to s, the summary of the simulated perf.data, the
// script-event figures of run r: each event's perf.samples[EVENT], as
// perf script prints a line for each sample it delivers (none for an event
// without samples). perf script -F event prints the PERF_RECORD_SAMPLEs
// each evsel's id names, which Summarize counts from the file as "samples
// EVENT": the observable must say the same of the perf.data it wrote. (A
// PERF_SAMPLE_READ group's samples, which perf script splits per member,
// deliver_sample_group(), would differ: no case records one yet.)
func scriptEvents(s Summary, r *runner.Run) error {
	l, ok := r.Perf.(runner.EventLister)
	if !ok {
		return nil
	}
	names, _ := l.EventNames("")
	for _, e := range names {
		v, ok := r.Observe("perf.samples[" + e + "]")
		if !ok {
			return fmt.Errorf("no observable perf.samples[%s] for the session's event %s", e, e)
		}
		if v != s["samples "+e] {
			return fmt.Errorf("perf.samples[%s] is %d, but the perf.data the run wrote has %d samples of %s", e, v, s["samples "+e], e)
		}
		if v > 0 {
			s[ScriptEvent+e] = v
		}
	}
	return nil
}

// Summaries are the real runs and the simulated summary the case compares:
// with a Baseline, each less the baseline case's (the median of its real
// runs; counts only: a sample-size is kept as it is).
func (c *Case) Summaries() (real RealRuns, sim Summary, err error) {
	if real, err = c.Real(); err != nil {
		return nil, nil, err
	}
	if sim, err = c.Simulate(); err != nil {
		return nil, nil, err
	}
	if !real.hasKey(ScriptEvent) {
		// captured before capture.sh ran perf script -F event: nothing to
		// compare the simulated counts with
		for k := range sim {
			if strings.HasPrefix(k, ScriptEvent) {
				delete(sim, k)
			}
		}
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
	for _, r := range real {
		sub(r, baseReal.Median())
	}
	sub(sim, baseSim)
	return real, sim, nil
}

// hasKey reports whether a run has a key starting with prefix.
func (r RealRuns) hasKey(prefix string) bool {
	for _, s := range r {
		for k := range s {
			if strings.HasPrefix(k, prefix) {
				return true
			}
		}
	}
	return false
}

// Median is the summary of each key's median over the runs.
func (r RealRuns) Median() Summary {
	m := Summary{}
	for _, s := range r {
		for k := range s {
			m[k], _, _ = r.stats(k)
		}
	}
	return m
}

// Row is one compared key: the real value (the median of the real runs,
// with their minimum and maximum), the simulated one, and whether they
// agree as the case says they must.
type Row struct {
	Key                    string
	Real, RealMin, RealMax int64
	Sim                    int64
	Within                 float64 // a percentage of Real; 0: exact
	Factor                 float64 // a range: RealMin/Factor to RealMax*Factor
	OK                     bool
	Unexplained            bool // a key that is neither compared nor explained
}

// Diff compares real and sim as the case says: its compared keys, and every
// other key present on either side must have an explanation.
func (c *Case) Diff(real RealRuns, sim Summary) []Row {
	var rows []Row
	seen := map[string]bool{}
	row := func(k string) Row {
		seen[k] = true
		med, lo, hi := real.stats(k)
		return Row{Key: k, Real: med, RealMin: lo, RealMax: hi, Sim: sim[k]}
	}
	for _, k := range c.Compare {
		r := row(k)
		r.OK = r.RealMin == r.Sim && r.RealMax == r.Sim
		rows = append(rows, r)
	}
	for k, pct := range c.Within {
		r := row(k)
		re, s := float64(r.Real), float64(r.Sim)
		r.Within, r.OK = pct, re == s || (re != 0 && (s-re)/re*100 <= pct && (re-s)/re*100 <= pct)
		rows = append(rows, r)
	}
	for k, f := range c.Range {
		r := row(k)
		r.Factor, r.OK = f, float64(r.Sim) >= float64(r.RealMin)/f && float64(r.Sim) <= float64(r.RealMax)*f
		rows = append(rows, r)
	}
	keys := map[string]bool{}
	for _, s := range real {
		for k := range s {
			keys[k] = true
		}
	}
	for k := range sim {
		keys[k] = true
	}
	for k := range keys {
		if seen[k] || c.explained(k) {
			continue
		}
		r := row(k)
		r.Unexplained = true
		rows = append(rows, r)
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

// tolerance splits a within or range line, KEY VALUE WHY: the first word
// after the key's first that value takes is the tolerance; the key is
// what comes before it, the reason what comes after (not empty).
func tolerance(rest string, value func(w string) (float64, bool)) (key string, v float64, why string, ok bool) {
	f := strings.Fields(rest)
	for i := 1; i < len(f)-1; i++ {
		if v, ok := value(f[i]); ok {
			return strings.Join(f[:i], " "), v, strings.Join(f[i+1:], " "), true
		}
	}
	return "", 0, "", false
}

// eachDirective calls fn with each line of the directive file path that is
// not blank or a # comment: its first word, the rest, the whole line, and
// bad, which makes the error naming path:line and what was wanted.
func eachDirective(path string, fn func(verb, rest, line string, bad func(want string) error) error) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	for n, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		verb, rest, _ := strings.Cut(line, " ")
		bad := func(want string) error { return fmt.Errorf("%s:%d: %s: want %s", path, n+1, line, want) }
		if err := fn(verb, rest, line, bad); err != nil {
			return err
		}
	}
	return nil
}
