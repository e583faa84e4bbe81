package pmu

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
)

// TestPerfSampleEventTook feeds PMI handler lengths to
// perf_sample_event_took() and checks when it lowers the sample rate and to
// what: the decaying average must pass perf_sample_allowed_ns (2500 ns: 25%
// of the 10 us period of the default 100000 Hz), then max_samples_per_tick
// becomes 25% of a 4 ms tick over 1.25 times the average.
func TestPerfSampleEventTook(t *testing.T) {
	type state struct {
		FirstLowered         int // the sample at which the rate was first lowered (0: never)
		Lowered              uint64
		MaxPerTick           uint64
		MaxSampleRate        int
		AllowedNs            uint64
		ThrottleAtMaxPerTick uint64 // maxSamplesPerTick() after
	}
	for _, tc := range []struct {
		name    string
		d       sim.Duration
		n       int
		percent int
		want    state
	}{
		// Below the allowance: nothing changes, ever.
		{"2us", 2000, 5000, 0, state{AllowedNs: 2500, MaxSampleRate: 100000, ThrottleAtMaxPerTick: 400}},
		// 5 us: the average (running/128, running decaying by 1/128) passes
		// 2500 at sample 89; each crossing sets the allowance to 1.25 times
		// the average (3125, 3906, 4882, then 6160 when the average reaches
		// 4928), and an average that tends to 5000 never passes 6160:
		// 1,000,000/6160 = 162 samples a tick, 40500 Hz.
		{"5us", 5000, 5000, 0, state{FirstLowered: 89, Lowered: 4, MaxPerTick: 162, MaxSampleRate: 40500, AllowedNs: 6160, ThrottleAtMaxPerTick: 162}},
		// perf_cpu_time_max_percent=100 turns the check off.
		{"5us-off", 5000, 5000, 100, state{AllowedNs: 10000, MaxSampleRate: 100000, ThrottleAtMaxPerTick: 400}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := cpu.NewMachine(cpu.Config{CPUs: 1}, nil)
			defer m.Close()
			o := DefaultOptions(1)
			o.Sysctl.CPUTimeMaxPercent = tc.percent
			k := NewKernel(sched.New(m, sched.DefaultConfig()), o)
			var got state
			for i := 1; i <= tc.n; i++ {
				before := k.took.lowered
				k.perfSampleEventTook(m.CPUs[0], tc.d)
				if got.FirstLowered == 0 && k.took.lowered > before {
					got.FirstLowered = i
				}
			}
			got.Lowered, got.MaxPerTick, got.AllowedNs = k.took.lowered, k.took.maxPerTick, k.took.allowedNs
			got.MaxSampleRate, got.ThrottleAtMaxPerTick = k.Opts.Sysctl.MaxSampleRate, k.maxSamplesPerTick()
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
