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

// TestRecordAffinityCPU: --affinity=cpu moves perf onto each ring's CPU
// before it reads it (record__adjust_affinity()), so perf migrates twice a
// read pass on 2 CPUs (to cpu0's ring, then cpu1's), where by default it
// stays put. perf 6.1 here made 7 to 13 such moves (strace -f -e
// sched_setaffinity, less the 6 of its evlist__close() passes, which the
// model does not make) in 4 to 7 rounds for the same 16 ms loop.
func TestRecordAffinityCPU(t *testing.T) {
	const body = `
cpus 2
task workload cpu1
  compute 16ms
`
	moves := func(record string) (migrations int64, rounds int) {
		_, r := runSrc(t, "scenario af\n"+body+record+"\n")
		ss := r.Perf.(*pmuRun).sessions[0]
		for _, rec := range ss.Data.Parsed() {
			if rec.Header.Type == perftool.RecordFinishedRound {
				rounds++
			}
		}
		return r.obs.migrations[ss.Perf.Thread.Name], rounds
	}
	base, _ := moves("record -e cpu-clock -c 100000 -- workload")
	m, n := moves("record --affinity=cpu -e cpu-clock -c 100000 -- workload")
	// two moves a read pass but the first, which starts on cpu0's ring
	// where perf already is; a pass that reads nothing writes no round,
	// so there are a few more passes than rounds (the drain at the end)
	if d := m - base; d%2 != 1 || d < int64(2*n-1) || d > int64(2*(n+3)-1) {
		t.Errorf("--affinity=cpu: %d migrations (%d without it) in %d rounds: want two a read pass, less one", m, base, n)
	}
	if node, _ := moves("record --affinity=node -e cpu-clock -c 100000 -- workload"); node != base {
		t.Errorf("--affinity=node: %d migrations, %d without: one NUMA node, no move", node, base)
	}
}
