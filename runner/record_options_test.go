package runner

import (
	"testing"

	"perfsim/perftool"
)

// TestRecordNoBuffering: --no-buffering (watermark 0, wakeup_events 1)
// wakes perf for every sample, so it reads (a FINISHED_ROUND) about once
// a sample, as perf 6.1 here did (--no-buffering -e cpu-clock -c 100000 on
// a 16 ms loop: 214 samples, 215 rounds, "Woken up 215 times"); by
// default it is woken at the watermark, half the ring, and reads a few
// times in all.
func TestRecordNoBuffering(t *testing.T) {
	const body = `
cpus 2
task workload cpu1
  compute 16ms
`
	rounds := func(record string) (samples, rounds int) {
		_, r := runSrc(t, "scenario nb\n"+body+record+"\n")
		for _, rec := range r.Perf.(*pmuRun).sessions[0].Data.Parsed() {
			switch {
			case rec.Header.Type == perftool.RecordFinishedRound:
				rounds++
			case rec.Dec != nil && rec.Dec.Sample != nil:
				samples++
			}
		}
		return samples, rounds
	}
	s, n := rounds("record --no-buffering -e cpu-clock -c 100000 -- workload")
	if s < 150 || n < s || n > s+2 {
		t.Errorf("--no-buffering: %d samples, %d rounds: want one round a sample", s, n)
	}
	s, n = rounds("record -e cpu-clock -c 100000 -- workload")
	if s < 150 || n > 3 {
		t.Errorf("default: %d samples, %d rounds: want a few (the watermark is half the ring)", s, n)
	}
}
