package explore

import (
	"fmt"
	"strings"

	"perfsim/runner"
)

// raceTally gathers the data-race oracle's reports across the schedules of
// an exploration, as lifetimeTally does the object-lifetime oracle's: each
// kind of race (its title and field: "BUG: KCSAN: data-race in A / B" on
// ctx->pin_count) counted once per schedule that showed it, with the first
// such schedule and its full report.
type raceTally struct{ lifetimeTally }

// DataRaceReport is one kind of data race across schedules.
type DataRaceReport = LifetimeReport

// raceKey is a report's title and the field raced on: "BUG: KCSAN:
// data-race in A / B: <op> to FIELD".
func raceKey(msg string) string {
	if i := strings.Index(msg, "BUG: KCSAN:"); i > 0 {
		msg = msg[i:]
	}
	if i := strings.Index(msg, " of "); i >= 0 {
		return msg[:i]
	}
	return msg
}

// add counts the data-race reports of one schedule's run (number schedule).
func (t *raceTally) add(r *runner.Run, schedule int) {
	t.addReports(schedReports(r, "data-race", raceKey), schedule)
}

// raceLines is the summary's lines, one per kind of race.
func raceLines(reps []*DataRaceReport, schedules int) []string {
	var out []string
	for _, r := range reps {
		out = append(out, fmt.Sprintf("DATA-RACE: in %d of %d schedules (first: schedule %d): %s", r.Schedules, schedules, r.First, r.Example))
	}
	return out
}
