package runner

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"perfsim/scenarios"
	"perfsim/sim"
)

// Outcome statuses in a Result.
const (
	Held          = "held"           // always/never: it held in this run
	Failed        = "failed"         // always/never: it did not
	Seen          = "seen"           // sometimes: true in this run
	NotSeen       = "not-seen"       // sometimes: false in this run (not a failure)
	NotApplicable = "not-applicable" // its when does not match the run's knobs
	NotReached    = "not-reached"    // at TIME, but the run ended before TIME
	EvalError     = "error"          // it could not be evaluated (a failure)
)

// OutcomeResult is one outcome in one run.
type OutcomeResult struct {
	Outcome string           `json:"outcome"` // as written, with its when
	Line    int              `json:"line"`
	Status  string           `json:"status"`
	Values  map[string]int64 `json:"values,omitempty"` // the names it uses, when it failed
	Error   string           `json:"error,omitempty"`

	Truth   bool `json:"-"` // the condition was true (for explore's counts)
	Counted bool `json:"-"` // applicable and evaluated
}

// Failure reports whether the status makes the run fail.
func (o OutcomeResult) Failure() bool { return o.Status == Failed || o.Status == EvalError }

// OopsResult is a model crash, reported as a kernel oops with its schedule.
type OopsResult struct {
	Message string   `json:"message"`
	CPU     int      `json:"cpu"`
	T       sim.Time `json:"time_ns"`
	Token   string   `json:"token"`
}

// Result is what one run showed.
type Result struct {
	Scenario string   `json:"scenario"`
	File     string   `json:"file"`
	Knobs    []string `json:"knobs"`
	// Messages are what perf record printed and carried on after (its
	// warnings, in its words; why a session gave up) and the simulator's
	// notes, each as FILE:LINE:COL: TEXT.
	Messages    []string         `json:"messages,omitempty"`
	Limit       sim.Time         `json:"limit_ns"`
	End         sim.Time         `json:"end_ns"`
	AllExited   bool             `json:"all_exited"`
	Stopped     bool             `json:"stopped_at_violation,omitempty"`
	Outcomes    []OutcomeResult  `json:"outcomes"`
	Violations  []Violation      `json:"violations"`
	Oops        *OopsResult      `json:"oops,omitempty"`
	Observables map[string]int64 `json:"observables"`
	Decisions   int              `json:"decisions"`
	Token       string           `json:"token"`
	TraceHash   string           `json:"trace_hash,omitempty"` // FNV-1a of the text trace, when kept
	Failed      bool             `json:"failed"`
}

// Result evaluates the outcomes at the end of the executed run and collects
// everything it showed.
func (r *Run) Result() *Result {
	res := &Result{Scenario: ScenarioName(r.File), File: r.File.Name, Knobs: slices.Clone(r.knobSet.list),
		Limit: r.limit, End: r.end, AllExited: r.S.AllExited(), Stopped: r.stopped(), Violations: r.violations,
		Decisions: r.log.n}
	if !r.opts.OutcomesOnly {
		res.Observables, res.Token = r.Observables(), r.log.token()
	}
	if res.Violations == nil {
		res.Violations = []Violation{}
	}
	res.Messages = r.Messages()
	if r.M.Trace().Keep {
		res.TraceHash = strconv.FormatUint(r.M.Trace().Hash(), 16)
	}
	for _, o := range r.File.Outcomes {
		res.Outcomes = append(res.Outcomes, r.judge(o))
	}
	for _, o := range res.Outcomes {
		if o.Failure() {
			res.Failed = true
		}
	}
	if r.failedInv {
		res.Failed = true
	}
	if r.oops != nil {
		res.Failed = res.Failed || !r.OopsExpected()
		res.Oops = &OopsResult{Message: r.oops.Msg, CPU: r.oops.Lane, T: r.oops.Time, Token: r.log.token()}
	}
	return res
}

// Messages returns what perf printed at the start of the run and carried on
// after (the record lines' warnings and the simulator's notes) and, once the
// run executed, what the sessions printed while they ran and why one gave up.
func (r *Run) Messages() []string {
	out := append([]string(nil), r.messages...)
	if m, ok := r.Perf.(interface{ Messages() []string }); ok && r.ran {
		out = append(out, m.Messages()...)
	}
	return out
}

// ScenarioName is the name a scenario goes by: its scenario line, else its file name.
func ScenarioName(f *scenarios.File) string {
	if f.Scenario != nil {
		return f.Scenario.Name
	}
	return strings.TrimSuffix(f.Name, ".sim")
}

func (r *Run) judge(o *scenarios.Outcome) OutcomeResult {
	res := OutcomeResult{Outcome: r.File.OutcomeText(o), Line: o.Pos.Line}
	if !r.applies(o) {
		res.Status = NotApplicable
		return res
	}
	var v int64
	var err error
	if o.At != nil {
		s, ok := r.samples[o]
		if !ok {
			res.Status = NotReached
			return res
		}
		v, err = b2i(s.ok), s.err
	} else {
		if _, isName := o.Cond.(*scenarios.Name); r.stopped() && !(isName && r.isInvariant(o.Cond.String())) {
			res.Status = NotReached // the run stopped at a violation before its end
			return res
		}
		v, err = r.Eval(o.Cond)
	}
	if err != nil {
		res.Status, res.Error = EvalError, err.Error()
		return res
	}
	res.Truth, res.Counted = v != 0, true
	switch o.Quant {
	case scenarios.Always:
		res.Status = pick(res.Truth, Held, Failed)
	case scenarios.Never:
		res.Status = pick(!res.Truth, Held, Failed)
	default:
		res.Status = pick(res.Truth, Seen, NotSeen)
	}
	if res.Status == Failed && o.At == nil {
		res.Values = map[string]int64{}
		scenarios.Names(o.Cond, func(n *scenarios.Name) {
			if v, err := r.Eval(n); err == nil {
				res.Values[n.Name] = v
			}
		})
	}
	return res
}

func pick(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

// WriteJSON writes res as indented JSON. The same scenario, knobs and schedule
// give byte-identical output: nothing in it depends on the wall clock or on map
// order (encoding/json sorts map keys).
func (res *Result) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteText writes res for people: the outcomes, the violations, the oops and
// the observables the outcomes use.
func (res *Result) WriteText(w io.Writer, f *scenarios.File) {
	fmt.Fprintf(w, "scenario %s (%s)\n", res.Scenario, res.File)
	if len(res.Knobs) > 0 {
		fmt.Fprintf(w, "knobs: %s\n", strings.Join(res.Knobs, " "))
	}
	for _, m := range res.Messages {
		fmt.Fprintln(w, m)
	}
	switch {
	case res.Oops != nil:
		fmt.Fprintf(w, "run ended at %s by a kernel oops\n", res.End)
	case res.Stopped:
		// An invariant may see a violation only after the event that shows it
		// (a reader reading a torn record): say both times.
		first := res.End
		for _, v := range res.Violations {
			first = min(first, v.T)
		}
		if first < res.End {
			fmt.Fprintf(w, "run stopped at %s, when the first violation was detected (it shows at %s)\n", res.End, first)
		} else {
			fmt.Fprintf(w, "run stopped at %s, at the first violation\n", res.End)
		}
	case res.AllExited:
		fmt.Fprintf(w, "run ended at %s: every task exited\n", res.End)
	default:
		fmt.Fprintf(w, "run ended at %s (limit %s)\n", res.End, res.Limit)
	}
	if len(res.Outcomes) > 0 {
		fmt.Fprintln(w, "outcomes:")
	}
	for _, o := range res.Outcomes {
		fmt.Fprintf(w, "  %-14s %s\n", o.Status, o.Outcome)
		if o.Error != "" {
			fmt.Fprintf(w, "  %-14s %s\n", "", o.Error)
		}
		if len(o.Values) > 0 {
			fmt.Fprintf(w, "  %-14s where %s\n", "", formatValues(o.Values))
		}
	}
	if len(res.Violations) == 0 {
		fmt.Fprintln(w, "invariants: no violation")
	} else {
		fmt.Fprintln(w, "invariant violations:")
		for _, v := range res.Violations {
			fmt.Fprintf(w, "  %s\n", v)
		}
	}
	if res.Oops != nil {
		fmt.Fprintf(w, "BUG: kernel oops on cpu%d at %s: %s\n", res.Oops.CPU, res.Oops.T, res.Oops.Message)
		fmt.Fprintf(w, "  schedule: %s\n", res.Oops.Token)
	}
	var na []bool
	for _, o := range res.Outcomes {
		na = append(na, o.Status == NotApplicable)
	}
	if h := NotJudgedHint(f, na, "run"); h != "" {
		fmt.Fprintln(w, h)
	}
	if used := usedObservables(f, res.Observables); len(used) > 0 {
		fmt.Fprintf(w, "observables: %s\n", formatValues(used))
	}
	fmt.Fprintf(w, "replay token: %s (%d decisions)\n", res.Token, res.Decisions)
	if res.Failed {
		fmt.Fprintln(w, "FAIL")
	} else {
		fmt.Fprintln(w, "ok")
	}
}

// NotJudgedHint is the line that says which of f's outcomes the knobs of
// a run (or an exploration) left unjudged, notApplicable[i] for its i-th
// outcome (its when names other knob values), and the simrun VERB that
// judges each set of them; "" when there are none.
func NotJudgedHint(f *scenarios.File, notApplicable []bool, verb string) string {
	var sets []string
	n := 0
	for i, o := range f.Outcomes {
		if i >= len(notApplicable) || !notApplicable[i] || len(o.When) == 0 {
			continue
		}
		n++
		var flags []string
		for _, s := range o.When {
			flags = append(flags, "--kernel "+s.Name+"="+s.Value)
		}
		if set := strings.Join(flags, " "); !slices.Contains(sets, set) {
			sets = append(sets, set)
		}
	}
	if n == 0 {
		return ""
	}
	name := f.Name
	if strings.HasPrefix(name, "builtin/") {
		name = ScenarioName(f)
	}
	var cmds []string
	for _, set := range sets {
		cmds = append(cmds, "simrun "+verb+" "+name+" "+set)
	}
	what := "1 outcome is"
	if n > 1 {
		what = strconv.Itoa(n) + " outcomes are"
	}
	return fmt.Sprintf("not judged: %s for other knob values; to judge: %s", what, strings.Join(cmds, "; "))
}

func formatValues(m map[string]int64) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sortStrings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s=%d", n, m[n])
	}
	return strings.Join(parts, " ")
}

// usedObservables returns the observables f's outcomes name.
func usedObservables(f *scenarios.File, all map[string]int64) map[string]int64 {
	out := map[string]int64{}
	if f == nil {
		return out
	}
	for _, o := range f.Outcomes {
		scenarios.Names(o.Cond, func(n *scenarios.Name) {
			if v, ok := all[n.Name]; ok {
				out[n.Name] = v
			}
		})
	}
	return out
}
