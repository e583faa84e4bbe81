package cpu

import (
	"testing"

	"pgregory.net/rapid"

	"perfsim/sim"
	"perfsim/simrapid"
)

// rmwModel is a deliberately planted bug: task context increments a shared counter
// with a read, a step point, and a write, while a periodic NMI increments it too.
// An NMI taken between the read and the write loses an increment.
type rmwModel struct {
	counter, nmis, iters int
}

func runRMW(ch sim.Chooser, iters int) (*rmwModel, error) {
	r := &rmwModel{iters: iters}
	m := NewMachine(Config{CPUs: 1}, ch)
	defer m.Close()
	th := m.NewThread("rmw", func(th *Thread) {
		c := th.CPU()
		done := false
		tm := c.NewTimer(true, Interrupt{Name: "pmi"})
		tm.it.Fn = func(c *CPU) {
			r.nmis++
			r.counter++ // the NMI's increment is atomic
			if !done {
				tm.Arm(c.Now() + 3*sim.Microsecond)
			}
		}
		tm.Arm(3 * sim.Microsecond)
		for i := 0; i < iters; i++ {
			c.Step("rmw:before-read")
			v := r.counter
			c.Step("rmw:read") // the planted window
			r.counter = v + 1
			c.Step("rmw:written")
			th.Spend(sim.Microsecond)
		}
		done = true
		tm.Cancel()
		for {
			th.Idle()
		}
	})
	m.CPUs[0].Start(th)
	return r, m.Run(sim.Never)
}

func (r *rmwModel) lost() bool { return r.counter != r.iters+r.nmis }

func TestPlantedBugQuietScheduleIsClean(t *testing.T) {
	r, err := runRMW(sim.NewReplay(nil), 30)
	if err != nil {
		t.Fatal(err)
	}
	if r.lost() || r.nmis == 0 {
		t.Fatalf("all-zero schedule: counter %d, iters %d, nmis %d", r.counter, r.iters, r.nmis)
	}
}

func TestPlantedBugFoundByRandom(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		rec := &sim.Recorder{Inner: sim.NewRandom(seed)}
		r, err := runRMW(rec, 30)
		if err != nil {
			t.Fatal(err)
		}
		if r.lost() {
			// The recorded schedule replays to the same lost update.
			r2, _ := runRMW(sim.NewReplay(rec.Decisions), 30)
			if r2.counter != r.counter || r2.nmis != r.nmis {
				t.Fatalf("replay gave counter %d nmis %d, run gave %d %d", r2.counter, r2.nmis, r.counter, r.nmis)
			}
			t.Logf("seed %d finds the lost update in %d decisions", seed, len(rec.Decisions))
			return
		}
	}
	t.Fatal("random strategy did not find the lost update in 50 seeds")
}

func TestPlantedBugFoundAndShrunkByRapid(t *testing.T) {
	var last []int
	msg, findErr := simrapid.Find(t.Name(), simrapid.Options{}, func(rt *rapid.T) {
		rec := &sim.Recorder{Inner: &simrapid.Chooser{T: rt}}
		r, err := runRMW(rec, 30)
		if err != nil {
			rt.Fatal(err)
		}
		if r.lost() {
			last = append([]int(nil), rec.Decisions...)
			rt.Fatalf("lost update: counter %d, want %d", r.counter, r.iters+r.nmis)
		}
	})
	if findErr != nil {
		t.Fatal(findErr)
	}
	if msg == "" {
		t.Fatal("rapid did not find the lost update")
	}
	nonzero := 0
	for _, d := range last {
		if d != 0 {
			nonzero++
		}
	}
	// One decision matters: take the pending NMI at rmw:read. Everything before it
	// shrinks to 0 and everything after it is cut off.
	if nonzero != 1 {
		t.Errorf("shrunk schedule has %d disturbing decisions (%v), want 1", nonzero, last)
	}
	r, _ := runRMW(sim.NewReplay(last), 30)
	if !r.lost() {
		t.Errorf("shrunk schedule %v does not replay the bug", last)
	}
	t.Logf("shrunk schedule: %d decisions, token %s", len(last), sim.EncodeToken(last))
}
