package sched

import (
	"testing"

	"pgregory.net/rapid"

	"perfsim/sim"
	"perfsim/simrapid"
)

const runLimit = 10 * sim.Second

func TestSchedulerProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := genWorkload(func(lo, hi int, what string) int { return rapid.IntRange(lo, hi).Draw(rt, what) })
		o := &observed{}
		m, s, want := w.build(&simrapid.Chooser{T: rt, Max: 24}, o, false)
		defer m.Close()
		if err := m.Run(runLimit); err != nil {
			rt.Fatalf("oops: %v", err)
		}
		for _, v := range o.violations {
			rt.Error(v)
		}
		var busy sim.Duration
		for i, task := range s.Tasks {
			if task.State != Dead {
				rt.Fatalf("%s did not finish by %s", task, runLimit)
			}
			// Compute time is conserved across preemption and migration: the
			// program got exactly what it asked for, no more, no less.
			if task.Computed != want[i] {
				rt.Errorf("%s computed %s, program asked %s", task, task.Computed, want[i])
			}
			if task.Ran < task.Computed {
				rt.Errorf("%s ran %s < computed %s", task, task.Ran, task.Computed)
			}
			busy += task.Ran
		}
		var cpuBusy sim.Duration
		for _, c := range m.CPUs {
			if c.Busy > m.Now() {
				rt.Errorf("cpu%d busy %s longer than the run %s", c.ID, c.Busy, m.Now())
			}
			cpuBusy += c.Busy
		}
		if busy > cpuBusy {
			rt.Errorf("tasks ran %s but CPUs were busy only %s", busy, cpuBusy)
		}
	})
}

// The oracle itself must catch what it claims to: feed it bad traces.
func TestOracleCatches(t *testing.T) {
	for _, tc := range []struct {
		name string
		recs []sim.Record
		crit bool
	}{
		{"nested nmi", []sim.Record{{Kind: sim.KEnter, Name: "nmi"}, {Kind: sim.KEnter, Name: "nmi"}}, false},
		{"irq with irqs off", []sim.Record{{Kind: sim.KEnter, Name: "irq"}}, true},
		{"switch in irq", []sim.Record{{Kind: sim.KEnter, Name: "irq"}, {Kind: sim.KSwitch, Name: "swapper/0", Detail: "a"}}, false},
		{"on two cpus", []sim.Record{{Kind: sim.KSwitch, Name: "swapper/0", Detail: "a"}, {CPU: 1, Kind: sim.KSwitch, Name: "swapper/1", Detail: "a"}}, false},
		{"time backwards", []sim.Record{{T: 5, Kind: sim.KNote}, {T: 4, Kind: sim.KNote}}, false},
		{"bad exit", []sim.Record{{Kind: sim.KExit, Name: "nmi"}}, false},
	} {
		o := &observed{critical: []bool{tc.crit, false}}
		ob := newOracle(o, 2)
		for i := range tc.recs {
			ob.Observe(&tc.recs[i])
		}
		if len(o.violations) == 0 {
			t.Errorf("%s: not caught", tc.name)
		}
	}
}

func TestDeterminism1000Seeds(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 100
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		gen := sim.NewRandom(seed)
		w := genWorkload(func(lo, hi int, what string) int { return lo + gen.Choose(hi-lo+1, what) })
		run := func(ch sim.Chooser) (string, []int) {
			rec := &sim.Recorder{Inner: ch}
			m, _, _ := w.build(rec, nil, true)
			defer m.Close()
			if err := m.Run(runLimit); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			return m.Trace().Text(), rec.Decisions
		}
		a, da := run(sim.NewRandom(seed * 7919))
		b, _ := run(sim.NewRandom(seed * 7919))
		if a != b {
			t.Fatalf("seed %d: two runs gave different traces", seed)
		}
		// The decision list replays the run exactly.
		r := sim.NewReplay(da)
		c, _ := run(r)
		if c != a || r.Mismatches != 0 {
			t.Fatalf("seed %d: replay differs (mismatches %d)", seed, r.Mismatches)
		}
	}
}

// TestReplayTokenReproducesRun: a run replayed from its token (what a replay
// file carries) gives the same trace.
func TestReplayTokenReproducesRun(t *testing.T) {
	gen := sim.NewRandom(99)
	w := genWorkload(func(lo, hi int, what string) int { return lo + gen.Choose(hi-lo+1, what) })
	rec := &sim.Recorder{Inner: sim.NewRandom(5)}
	m, _, _ := w.build(rec, nil, true)
	if err := m.Run(runLimit); err != nil {
		t.Fatal(err)
	}
	want := m.Trace().Text()
	m.Close()
	decisions, err := sim.DecodeToken(sim.EncodeToken(rec.Decisions))
	if err != nil {
		t.Fatal(err)
	}
	m2, _, _ := w.build(sim.NewReplay(decisions), nil, true)
	defer m2.Close()
	if err := m2.Run(runLimit); err != nil {
		t.Fatal(err)
	}
	if got := m2.Trace().Text(); got != want {
		t.Fatalf("the run replayed from its token differs from the recorded run")
	}
}
