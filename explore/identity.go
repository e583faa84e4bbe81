package explore

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"perfsim/faultinject"
	"sort"
	"strings"
	"time"

	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// Version is the simulator's version as replay files record it. Bump it with
// a change that alters the questions a scenario asks (a step point added or
// moved, an engine decision) or what a schedule does, so that a replay of an
// older file says it was written by another version.
const Version = "0.2.0"

// ReplayFormat is the replay file format Version writes: 2 added the
// scenario's identity (its hash, the resolved knobs), the questions of every
// decision and the violation's signature, and later the limit's hash
// (limit-sha256) where a limit line was; 3 requires the limit and
// limit-sha256 lines, so that a file whose two limit lines were deleted (and
// would replay with the default limit) is refused, not replayed as if it had
// never had one. Files without a format line are format 1.
const ReplayFormat = 3

// ScenarioSHA256 is the hex SHA-256 of the scenario text f was parsed from
// (scenarios.File.Text): a replay refuses a file whose scenario changed.
func ScenarioSHA256(f *scenarios.File) string {
	s := sha256.Sum256([]byte(f.Text()))
	return hex.EncodeToString(s[:])
}

// KnobsSHA256 is the hex SHA-256 of resolved knob values (NAME=VALUE words),
// one a line, sorted.
func KnobsSHA256(knobs []string) string {
	k := append([]string(nil), knobs...)
	sort.Strings(k)
	s := sha256.Sum256([]byte(strings.Join(k, "\n") + "\n"))
	return hex.EncodeToString(s[:])
}

// LimitSHA256 is the hex SHA-256 of a replay file's limit line's value: the
// limit as scenarios.FormatDuration writes it, which spells each value one
// way (its largest whole unit), so the hash is of the limit and not of its
// spelling: 20ms and 20000us are one limit. (Format 2 files hash it so too.)
func LimitSHA256(limit sim.Time) string {
	s := sha256.Sum256([]byte(scenarios.FormatDuration(time.Duration(limit))))
	return hex.EncodeToString(s[:])
}

// resolvedKnobs is the value of every knob of a run of f with overrides, as
// sorted NAME=VALUE words.
func resolvedKnobs(f *scenarios.File, overrides map[string]string, perf runner.PerfBackend) ([]string, error) {
	k, err := runner.ResolveKnobs(f, overrides, perf)
	if err != nil {
		return nil, err
	}
	return runner.KnobList(k), nil
}

// knobChanges says which knobs differ between a recorded resolution and the
// current one.
func knobChanges(recorded, now []string) []string {
	split := func(list []string) (map[string]string, []string) {
		m := map[string]string{}
		var names []string
		for _, kv := range list {
			n, v, _ := strings.Cut(kv, "=")
			m[n] = v
			names = append(names, n)
		}
		return m, names
	}
	was, wasNames := split(recorded)
	is, isNames := split(now)
	var out []string
	for _, n := range wasNames {
		v, ok := is[n]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("knob %s (recorded %s) no longer exists", n, was[n]))
		case v != was[n]:
			out = append(out, fmt.Sprintf("knob %s was %s when the file was written, is %s now", n, was[n], v))
		}
	}
	for _, n := range isNames {
		if _, ok := was[n]; !ok {
			out = append(out, fmt.Sprintf("knob %s (now %s) is new since the file was written", n, is[n]))
		}
	}
	sort.Strings(out)
	return out
}

// The questions the engine and the scheduler ask besides the step points
// (grep Choose( for them): which of several CPUs due at once goes on, whether
// an NMI is held by its skid, where a task wakes (one question per task, its
// name after the colon), whether an idle CPU pulls a task, whether a user
// unwind faults.
var fixedQuestions = []string{"tie", "nmi-skid", "idle_balance", "unwind_user:fault"}

// dynamicQuestions are question prefixes whose rest names something of the
// run (a task work's name).
var dynamicQuestions = []string{"task_work_run:"}

// QuestionNames lists the questions a run of f may ask the Chooser under perf
// (nil: runner.DefaultPerf): the step point labels (simrun names steps), the
// engine's and scheduler's own questions, select_task_rq:TASK for each
// task of f, and should_fail:SITE for its fail lines with occurrence any. task_work_run:NAME stands for one per task work name.
func QuestionNames(f *scenarios.File, perf runner.PerfBackend) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, e := range runner.Describe(perf, scenarios.StepPoints) {
		add(e.Name)
	}
	for _, q := range fixedQuestions {
		add(q)
	}
	for _, t := range f.Tasks {
		add("select_task_rq:" + t.Name)
	}
	if len(f.Records) > 0 { // perf record itself, and its child before exec
		add("select_task_rq:perf")
		add("select_task_rq:perf-exec")
	}
	for _, fl := range f.Fails { // fail ... occurrence any: should_fail:SITE at each call
		if !fl.Any {
			continue
		}
		if fl.Site.Name != faultinject.AnySite {
			add("should_fail:" + fl.Site.Name)
			continue
		}
		for _, site := range faultinject.SiteNames() {
			add("should_fail:" + site)
		}
	}
	sort.Strings(out)
	return out
}

// CheckFocus reports a focus word that no question of f contains: a bounded
// search focused on it would disturb nothing and report the quiet schedule
// alone as a clean search.
func CheckFocus(f *scenarios.File, focus []string, perf runner.PerfBackend) error {
	qs := QuestionNames(f, perf)
	for _, w := range focus {
		if w == "" {
			return fmt.Errorf("focus: an empty word (between commas?) would match every question")
		}
		if matchesQuestion(w, qs) {
			continue
		}
		return fmt.Errorf("focus %q matches no question this scenario can ask: a step point label (simrun names steps), %s, or select_task_rq:TASK for its tasks", w, strings.Join(fixedQuestions, ", "))
	}
	return nil
}

func matchesQuestion(w string, qs []string) bool {
	for _, p := range dynamicQuestions {
		if strings.HasPrefix(w, p) || strings.Contains(p, w) {
			return true
		}
	}
	for _, q := range qs {
		if strings.Contains(q, w) {
			return true
		}
	}
	return false
}
