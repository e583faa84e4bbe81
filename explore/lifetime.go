package explore

import (
	"fmt"
	"regexp"
	"strings"

	"perfsim/runner"
)

// lifetimeTally gathers the object-lifetime oracle's reports across the
// schedules of an exploration. Each schedule's report is that schedule's
// invariant (it fails the search unless an outcome judges it, as a
// built-in that declares an upstream leak does); across the search the same
// report, its numbers and places left out, is counted once per schedule
// that showed it, with the first such schedule and its full report, so a
// summary says which lifetime bugs the search met and how often.
type lifetimeTally struct {
	byKey   map[string]*LifetimeReport
	Reports []*LifetimeReport // in the order first seen
}

// LifetimeReport is one kind of object-lifetime report across schedules.
type LifetimeReport struct {
	Key       string `json:"key"`            // the report, numbers and places left out
	Schedules int    `json:"schedules"`      // how many schedules showed it
	First     int    `json:"first_schedule"` // the first that did
	Example   string `json:"example"`        // its full report there
}

// lifetimeNumbers are the run-specific parts of a report: ids, counts, times.
var (
	lifetimeNumbers = regexp.MustCompile(`[0-9]+(\.[0-9]+)?(ns|us|ms|s)?`)
	lifetimeAlloc   = regexp.MustCompile(` \(allocated by [^)]*\)`)
)

// lifetimeKey is a report without its places and numbers: a leak up to
// where it says where its references went, any other report up to its first
// place (" on cpuN").
func lifetimeKey(msg string) string {
	if i := strings.Index(msg, "; last"); i >= 0 {
		msg = lifetimeAlloc.ReplaceAllString(msg[:i], "")
	} else if i := strings.Index(msg, " on cpu"); i >= 0 {
		msg = msg[:i]
	}
	return lifetimeNumbers.ReplaceAllString(msg, "N")
}

// add counts the object-lifetime reports of one schedule's run (number schedule).
func (t *lifetimeTally) add(r *runner.Run, schedule int) {
	t.addReports(schedReports(r, "object-lifetime", lifetimeKey), schedule)
}

// schedReport is one kind of report (its key) in one schedule, with the
// schedule's first full report of that kind.
type schedReport struct{ key, example string }

// schedReports are the reports of invariant in r, one per kind (key), in
// the order met; none for no run.
func schedReports(r *runner.Run, invariant string, key func(string) string) []schedReport {
	if r == nil {
		return nil
	}
	var reps []schedReport
next:
	for _, v := range r.Violations() {
		if v.Invariant != invariant {
			continue
		}
		k := key(v.Message)
		for _, rep := range reps {
			if rep.key == k {
				continue next
			}
		}
		reps = append(reps, schedReport{k, v.String()})
	}
	return reps
}

// addReports counts one schedule's reports (number schedule), each kind once.
func (t *lifetimeTally) addReports(reps []schedReport, schedule int) {
	for _, rep := range reps {
		t.count(&LifetimeReport{Key: rep.key, Schedules: 1, First: schedule, Example: rep.example})
	}
}

// count adds rep (a schedule's, or a shard's total) to the tally.
func (t *lifetimeTally) count(rep *LifetimeReport) {
	if t.byKey == nil {
		t.byKey = map[string]*LifetimeReport{}
	}
	if have := t.byKey[rep.Key]; have != nil {
		have.Schedules += rep.Schedules
		if rep.First < have.First {
			have.First, have.Example = rep.First, rep.Example
		}
		return
	}
	c := *rep
	t.byKey[rep.Key] = &c
	t.Reports = append(t.Reports, &c)
}

// lifetimeLines is the summary's lines, one per kind of report.
func lifetimeLines(reps []*LifetimeReport, schedules int) []string {
	var out []string
	for _, r := range reps {
		out = append(out, fmt.Sprintf("OBJECT-LIFETIME: in %d of %d schedules (first: schedule %d): %s", r.Schedules, schedules, r.First, r.Example))
	}
	return out
}

// tally adds one schedule's run (number schedule) to the summaries kept
// across schedules: lockdep's graph (lockdep.go), the object-lifetime
// reports and the data-race reports (datarace.go).
func (ex *Result) tally(r *runner.Run, schedule int) {
	ex.locks.add(r, schedule)
	ex.lifetime.add(r, schedule)
	ex.races.add(r, schedule)
}
