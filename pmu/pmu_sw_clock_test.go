package pmu_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/perftool"
	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestCPUClockPeriod: cpu-clock -c 5000. The samples report the period asked
// for, 5000; the hrtimer runs out the first period_left (perf_event_alloc()
// sets it to the period) and then fires every 10us at least
// (perf_swevent_start_hrtimer(), hrtimer_forward_now()).
func TestCPUClockPeriod(t *testing.T) {
	mc := newMachine(t, 1, nil, pmu.Knobs{})
	type sample struct{ At, Period uint64 }
	var got []sample
	mc.runIn(t, 0, func(tk *sched.Task) {
		a := pmu.Attr{Type: uapi.PERF_TYPE_SOFTWARE, Size: uapi.AttrSize, Config: uapi.PERF_COUNT_SW_CPU_CLOCK,
			SamplePeriod: 5000, SampleType: uapi.PERF_SAMPLE_TIME | uapi.PERF_SAMPLE_PERIOD}
		fd, err := mc.k.PerfEventOpen(tk, &a, 0, -1, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		m, err := mc.k.Mmap(tk, fd, 0, 9*4096, pmu.ProtRead|pmu.ProtWrite)
		if err != nil {
			t.Fatal(err)
		}
		start := uint64(tk.CPU().Now())
		mc.s.RunOps(tk, []sched.Op{sched.Compute(36 * sim.Microsecond)})
		mm, _ := perftool.NewMmap(m.RB, false)
		drain(mm, tk, func(rec []byte) {
			d, err := rb.Decode(rec, a.SampleType, false)
			if err != nil || d.Sample == nil {
				return
			}
			got = append(got, sample{At: d.Sample.Time - start, Period: d.Sample.Period})
		})
	})
	want := []sample{{5000, 5000}, {15000, 5000}, {25000, 5000}, {35000, 5000}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("samples (-want +got):\n%s", d)
	}
}
