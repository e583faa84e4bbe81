package runner

import (
	"testing"

	"perfsim/scenarios"
)

// BenchmarkCoreSightSchedule runs one random schedule of each CoreSight
// built-in per iteration (the schedules explore --strategy random tries):
// ns, bytes and allocations per schedule.
//
//	go test ./runner -run '^$' -bench CoreSightSchedule -benchmem -benchtime 10x
func BenchmarkCoreSightSchedule(b *testing.B) {
	for _, name := range []string{"coresight-pause-percpu-sink", "coresight-sink-smaller-than-aux",
		"coresight-snapshot-sched-out", "coresight-snapshot-variance"} {
		b.Run(name, func(b *testing.B) {
			src, err := scenarios.Open(name)
			if err != nil {
				b.Fatal(err)
			}
			f, err := Load(src)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, _, err := RunOnce(f, Options{Chooser: ScheduleChooser(uint64(i), 0)}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
