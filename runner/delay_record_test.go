package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
	"perfsim/uapi"
)

// TestRecordDelay: perf record -D, as perf 6.1 runs it (its attrs are
// perftool's delay goldens, its sample count the paired case delay): the
// events wait for perf, which sleeps the delay after it lets the workload
// go and then enables them (an ioctl per CPU, moving over the CPUs), saying
// "Events disabled" and "Events enabled" (pr_info: not with -q); the
// tracking dummy, enabled at the exec, has the exec's COMM meanwhile; -D -1
// never enables them; and the workload's SIGCHLD cuts perf's sleep short.
func TestRecordDelay(t *testing.T) {
	const body = `
cpus 2
task a cpu1
  repeat 40
    syscall getpid
    compute 100us
`
	for _, tc := range []struct {
		name, record string
		warnings     []string
		firstAfter   sim.Time // the first sample's time after the exec is about this (0: not checked)
		samples      bool
	}{
		{"no delay", "record -e cpu-clock -c 10000 -- a", nil, 0, true},
		{"2ms", "record -D 2 -e cpu-clock -c 10000 -- a", []string{"Events disabled", "Events enabled"}, 2 * sim.Millisecond, true},
		{"2ms -q", "record -q -D 2 -e cpu-clock -c 10000 -- a", nil, 2 * sim.Millisecond, true},
		{"never", "record -D -1 -e cpu-clock -c 10000 -- a", []string{"Events disabled"}, 0, false},
		{"past the workload", "record -D 1000 -e cpu-clock -c 10000 -- a", []string{"Events disabled", "Events enabled"}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, r := runSrc(t, "scenario d\n"+body+tc.record+"\n", "perf.samples", "perf.error")
			ss := r.Perf.(*pmuRun).sessions[0]
			if d := cmp.Diff(tc.warnings, ss.Warnings); d != "" || got["perf.error"] != 0 {
				t.Errorf("perf.error %d; messages (-want +got):\n%s", got["perf.error"], d)
			}
			if (got["perf.samples"] > 0) != tc.samples {
				t.Errorf("%d samples; want some: %v", got["perf.samples"], tc.samples)
			}
			var first, start sim.Time = -1, -1
			comm := false
			for _, rec := range ss.Data.Parsed() {
				switch {
				case rec.Dec == nil:
				case rec.Dec.Sample != nil && first < 0:
					first = sim.Time(rec.Time())
				case rec.Header.Type == uapi.PERF_RECORD_COMM && rec.Header.Misc&uapi.PERF_RECORD_MISC_COMM_EXEC != 0:
					comm, start = true, sim.Time(rec.Time())
				}
			}
			if !comm {
				t.Errorf("no COMM of the exec: the tracking dummy (enable_on_exec) should have it")
			}
			// perf's sleep starts when it releases the workload, a few tens
			// of us before the exec; the first sample is a period (10us)
			// after the enable
			if lo, hi := tc.firstAfter-50*sim.Microsecond, tc.firstAfter+100*sim.Microsecond; tc.firstAfter > 0 && (first-start < lo || first-start > hi) {
				t.Errorf("first sample %v after the exec (at %v): want %v to %v, the delay", first-start, start, lo, hi)
			}
			if tc.name == "past the workload" && r.M.Now() > 100*sim.Millisecond {
				t.Errorf("the run ended at %v: the workload's SIGCHLD should cut perf's 1s sleep short", r.M.Now())
			}
		})
	}
}
