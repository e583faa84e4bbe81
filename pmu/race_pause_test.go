package pmu_test

import (
	"errors"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/simrapid"
	"perfsim/uapi"
)

// pauseRace runs PERF_EVENT_IOC_PAUSE_OUTPUT on cpu0 against a munmap and a
// new mmap of the event's buffer on cpu1, both threads of one process
// entering the kernel at the same virtual time, the Chooser interleaving
// their step points. It returns the oops (if any) and the ioctl's results.
func pauseRace(ch sim.Chooser, knob string) (oops *sim.Oops, results []error) {
	mc := newMachine(nil, 2, ch, pmu.Knobs{PauseOutputRBCheck: knob})
	defer mc.m.Close()
	var fd int
	var m *pmu.Mapping
	owner := mc.s.Spawn("perf", sched.MaskOf(1),
		sched.Call(func(t *sched.Task) {
			a := swAttr(uapi.PERF_COUNT_SW_DUMMY)
			var err error
			if fd, err = mc.k.PerfEventOpen(t, &a, -1, 0, -1, 0); err != nil {
				panic(err)
			}
			if m, err = mc.k.Mmap(t, fd, 0, 3*4096, pmu.ProtRead|pmu.ProtWrite); err != nil {
				panic(err)
			}
		}),
		sched.Call(func(t *sched.Task) { sleepUntil(mc, t, 10*sim.Microsecond) }),
		sched.Call(func(t *sched.Task) {
			for i := 0; i < 4; i++ {
				if err := mc.k.Munmap(t, m); err != nil {
					panic(err)
				}
				var err error
				if m, err = mc.k.Mmap(t, fd, 0, 3*4096, pmu.ProtRead|pmu.ProtWrite); err != nil {
					panic(err)
				}
			}
		}))
	pauser := mc.s.Spawn("pauser", sched.MaskOf(0), sched.Call(func(t *sched.Task) { sleepUntil(mc, t, 10*sim.Microsecond) }), sched.Call(func(t *sched.Task) {
		for i := 0; i < 8; i++ {
			_, err := mc.k.Ioctl(t, fd, uapi.PERF_EVENT_IOC_PAUSE_OUTPUT, uint64(1-i%2))
			results = append(results, err)
		}
	}))
	mc.k.ShareFiles(pauser, owner)
	err := mc.m.Run(sim.Second)
	if err != nil {
		var o *sim.Oops
		if errors.As(err, &o) {
			return o, results
		}
		panic(err)
	}
	return nil, results
}

// TestPauseOutputRacePosted: with the patch as first posted, some schedule of
// PAUSE_OUTPUT against munmap+mmap dereferences NULL (the local rb read NULL
// between munmap's detach and mmap's attach, the re-read of event->rb saw the
// new buffer). Found by seeded random exploration and replayed exactly.
func TestPauseOutputRacePosted(t *testing.T) {
	var found []int
	var oops *sim.Oops
	seed := 0
	for s := 1; s <= 2000 && found == nil; s++ {
		rec := &sim.Recorder{Inner: sim.NewRandom(uint64(s))}
		if o, _ := pauseRace(rec, "posted"); o != nil {
			found, oops, seed = rec.Decisions, o, s
		}
	}
	if found == nil {
		t.Fatal("no schedule of 2000 seeds oopsed with pause-output-rb-check=posted")
	}
	if !strings.Contains(oops.Msg, "NULL pointer dereference in rb_toggle_paused") {
		t.Fatalf("seed %d: unexpected oops %q", seed, oops.Msg)
	}
	t.Logf("seed %d oopses after %d decisions: %s", seed, len(found), oops.Msg)
	// The decision list is the replay token: same schedule, same oops.
	o2, _ := pauseRace(sim.NewReplay(found), "posted")
	if o2 == nil || o2.Msg != oops.Msg || o2.Time != oops.Time || o2.Lane != oops.Lane {
		t.Fatalf("replay of seed %d: got %v, want %v", seed, o2, oops)
	}
	// Today's code under the very same schedule: no oops.
	if o3, res := pauseRace(sim.NewReplay(found), "today"); o3 != nil {
		t.Fatalf("today oopses under seed %d's schedule: %v (results %v)", seed, o3, res)
	}
}

// TestPauseOutputRaceToday: every explored schedule of today's code ends
// without an oops, each ioctl returning nil (toggled) or -EINVAL (no buffer).
func TestPauseOutputRaceToday(t *testing.T) {
	outcomes := map[string]int{}
	for s := 1; s <= 500; s++ {
		o, res := pauseRace(sim.NewRandom(uint64(s)), "today")
		if o != nil {
			t.Fatalf("seed %d: oops %v", s, o)
		}
		key := ""
		for _, e := range res {
			switch e {
			case nil:
				key += "ok "
			case uapi.EINVAL:
				key += "EINVAL "
			default:
				t.Fatalf("seed %d: ioctl returned %v", s, e)
			}
		}
		outcomes[key]++
	}
	if len(outcomes) < 2 {
		t.Errorf("exploration saw only %v: the race window was never hit", outcomes)
	}
	t.Log(outcomes)
}

// TestPauseOutputRaceRapid: rapid finds (and shrinks) the posted oops; today
// is clean under rapid's schedules.
func TestPauseOutputRaceRapid(t *testing.T) {
	var last []int
	// Two well-placed disturbances among ~60 decisions: give rapid more tries
	// than its default 100 (each run is a fraction of a millisecond).
	report, findErr := simrapid.Find("pause-output-posted", simrapid.Options{Checks: 3000}, func(rt *rapid.T) {
		rec := &sim.Recorder{Inner: &simrapid.Chooser{T: rt, Max: 64}}
		if o, _ := pauseRace(rec, "posted"); o != nil {
			last = append([]int(nil), rec.Decisions...)
			rt.Fatalf("oops: %s", o.Msg)
		}
	})
	if findErr != nil {
		t.Fatal(findErr)
	}
	if report == "" {
		t.Fatal("rapid found no oops with pause-output-rb-check=posted")
	}
	if o, _ := pauseRace(sim.NewReplay(last), "posted"); o == nil {
		t.Fatalf("rapid's shrunk schedule %v does not oops on replay", last)
	}
	t.Logf("rapid's shrunk schedule: %d decisions, %d non-zero", len(last), nonZero(last))
	rapid.Check(t, func(rt *rapid.T) {
		if o, _ := pauseRace(&simrapid.Chooser{T: rt}, "today"); o != nil {
			rt.Fatalf("today oopses: %v", o)
		}
	})
}

func nonZero(ds []int) int {
	n := 0
	for _, d := range ds {
		if d != 0 {
			n++
		}
	}
	return n
}
