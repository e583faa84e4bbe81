package pmu

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cost"
	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
)

// TestHZKnob checks what knob hz sets: TICK_NSEC ((NSEC_PER_SEC + HZ/2) /
// HZ), max_samples_per_tick (DIV_ROUND_UP(100000, HZ)) and the default mux
// interval PERF_CPU_HRTIMER (1000 / HZ ms, an integer division); "profile"
// takes the cost model's kernel's CONFIG_HZ (this machine: 250, from
// cost/testdata/this-machine.txt) and, with no profile, the 4 ms default.
func TestHZKnob(t *testing.T) {
	type got struct {
		HZ         int
		Tick       sim.Duration
		PerTick    uint64
		MuxDefault sim.Duration
	}
	for _, tc := range []struct {
		hz, model string
		want      got
	}{
		{"100", "free", got{100, 10 * sim.Millisecond, 1000, 10 * sim.Millisecond}},
		{"250", "free", got{250, 4 * sim.Millisecond, 400, 4 * sim.Millisecond}},
		{"300", "free", got{300, 3333333, 334, 3 * sim.Millisecond}},
		{"1000", "this-machine", got{1000, sim.Millisecond, 100, sim.Millisecond}},
		{"profile", "this-machine", got{250, 4 * sim.Millisecond, 400, 4 * sim.Millisecond}},
		{"profile", "free", got{250, 4 * sim.Millisecond, 400, 4 * sim.Millisecond}},
	} {
		t.Run(tc.hz+"/"+tc.model, func(t *testing.T) {
			cfg := sched.DefaultConfig()
			for _, kv := range [][2]string{{"cost-model", tc.model}, {"hz", tc.hz}} {
				if ok, err := sched.ApplyKnob(&cfg, kv[0], kv[1]); !ok || err != nil {
					t.Fatalf("ApplyKnob(%s=%s) = %v, %v", kv[0], kv[1], ok, err)
				}
			}
			m := cpu.NewMachine(cpu.Config{CPUs: 1}, nil)
			defer m.Close()
			k := NewKernel(sched.New(m, cfg), DefaultOptions(1))
			g := got{k.S.Cfg.HZ, k.tickNsec(), k.maxSamplesPerTick(), k.muxInterval()}
			if d := cmp.Diff(tc.want, g); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	if p, _ := cost.Lookup("this-machine"); p.HZ != 250 {
		t.Errorf("this-machine profile HZ = %d, want 250 (config.hz in cost/testdata/this-machine.txt)", p.HZ)
	}
}
