package explore

import (
	"testing"
)

// oracleKnobsOff turns every generic oracle off: lockdep, the
// object-lifetime oracle, the data-race oracle and the hung-task detector.
var oracleKnobsOff = map[string]string{"lockdep": "off", "object-lifetime": "off", "data-race": "off", "hung-task": "off"}

// BenchmarkExploreOracles is the oracles' share of exploration: one schedule
// of random exploration (as BenchmarkExploreSchedule) with every oracle on
// (the default) and with every one off, on the built-ins the issue measures.
// Compare ns/op, B/op and allocs/op of NAME/on with NAME/off (each op is one
// schedule): go test ./explore -run '^$' -bench ExploreOracles -benchmem -count 3
func BenchmarkExploreOracles(b *testing.B) {
	for _, name := range []string{"aux-pause-resume-nmi", "rb-data-head-backwards", "pmu-overflow-vs-sched-out"} {
		f := loadBuiltin(b, name)
		for _, mode := range []struct {
			name  string
			knobs map[string]string
		}{{"on", nil}, {"off", oracleKnobsOff}} {
			b.Run(name+"/"+mode.name, func(b *testing.B) { benchExplore(b, f, mode.knobs) })
		}
	}
}
