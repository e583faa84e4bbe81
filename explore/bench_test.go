package explore

import (
	"testing"

	"perfsim/scenarios"
)

// BenchmarkExploreSchedule is the cost of one schedule of random exploration
// (what `simrun explore NAME --jobs 1 --corpus off --max-wall 0` spends per
// schedule) on small built-ins: run with -benchmem for B/schedule and
// allocs/schedule (each op is one schedule).
func BenchmarkExploreSchedule(b *testing.B) {
	for _, name := range []string{"aux-pause-resume-nmi", "munmap-ring-twice", "rb-data-head-backwards", "pmu-overflow-vs-sched-out"} {
		b.Run(name, func(b *testing.B) {
			benchExplore(b, loadBuiltin(b, name), nil)
		})
	}
}

// benchExplore runs b.N schedules of random exploration of f (seed 1, one
// job) under knobs, which must find nothing, and reports schedules/s. Every
// schedule runs (noMemo): the figure is the cost of running one, not of
// judging a repeat from the tree of those run before (memo.go), which on a
// scenario with few schedules (pmu-overflow-vs-sched-out has 7) would be
// most of them.
func benchExplore(b *testing.B, f *scenarios.File, knobs map[string]string) {
	b.ReportAllocs()
	b.ResetTimer()
	ex, err := Explore(f, Options{Runs: b.N, Jobs: 1, Seed: 1, MaxWall: -1, Knobs: knobs, noMemo: true})
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
}
