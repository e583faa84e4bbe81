package explore

import (
	"testing"

	"perfsim/runner"
	"perfsim/scenarios"
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
		src, err := scenarios.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		f, err := runner.Load(src)
		if err != nil {
			b.Fatal(err)
		}
		for _, mode := range []struct {
			name  string
			knobs map[string]string
		}{{"on", nil}, {"off", oracleKnobsOff}} {
			b.Run(name+"/"+mode.name, func(b *testing.B) {
				b.ReportAllocs()
				b.ResetTimer()
				ex, err := Explore(f, Options{Runs: b.N, Jobs: 1, Seed: 1, MaxWall: -1, Knobs: mode.knobs})
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				if ex.Found != nil || ex.Interrupted {
					b.Fatalf("found %v, interrupted %v", ex.Found, ex.Interrupted)
				}
				if ex.Schedules != b.N {
					b.Fatalf("%d schedules for b.N %d", ex.Schedules, b.N)
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "schedules/s")
			})
		}
	}
}
