package unwind

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/simrapid"
)

type call struct {
	Tid    int
	Cookie Cookie
	Trace  []uint64
}

// rig is a machine with the infrastructure and one recording callback.
type rig struct {
	m     *cpu.Machine
	s     *sched.Sched
	d     *Deferred
	w     *Work
	calls []call
}

func newRig(t *testing.T, cpus int, ch sim.Chooser, cfg Config) *rig {
	t.Helper()
	m := cpu.NewMachine(cpu.Config{CPUs: cpus}, ch)
	t.Cleanup(m.Close)
	r := &rig{m: m, s: sched.New(m, sched.DefaultConfig())}
	cfg.UserIP = func(f string) uint64 { return uint64(len(f)) + 0x1000 }
	r.d = New(r.s, cfg)
	w, err := r.d.Init("test", func(c *cpu.CPU, tk *sched.Task, trace []uint64, cookie uint64) {
		r.calls = append(r.calls, call{tk.TID, Cookie(cookie), append([]uint64(nil), trace...)})
	})
	if err != nil {
		t.Fatal(err)
	}
	r.w = w
	return r
}

type req struct {
	Cookie Cookie
	Ret    int
	Err    string
}

// TestRequestCookieRules: one cookie per entry with the first CPU's id and the
// per-CPU counter (+2, LSB set); 0 for the first request, 1 after; one
// callback per entry; a new cookie after the return to user; -EINVAL once
// the task is exiting.
func TestRequestCookieRules(t *testing.T) {
	r := newRig(t, 2, sim.NewReplay(nil), Config{})
	var got []req
	do := func(tk *sched.Task) {
		c := tk.CPU()
		ck, ret, err := r.d.Request(c, tk, r.w)
		e := ""
		if err != nil {
			e = err.Error()
		}
		got = append(got, req{ck, ret, e})
	}
	task := r.s.Spawn("app", sched.MaskOf(1),
		sched.UserStack("main", "f"),
		sched.Call(func(tk *sched.Task) {
			r.s.Syscall(tk, "read", func(tk *sched.Task) { do(tk); do(tk) })
			r.s.Syscall(tk, "read", func(tk *sched.Task) { do(tk) })
		}),
		sched.Call(func(tk *sched.Task) { r.d.SetExiting(tk); do(tk) }),
	)
	if err := r.m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	first := makeCookie(1, 3) // cpu1, cnt = (0+2)|1
	second := makeCookie(1, 5)
	want := []req{{first, 0, ""}, {first, 1, ""}, {second, 0, ""}, {0, 0, "EINVAL"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	wantCalls := []call{{task.TID, first, []uint64{0x1001, 0x1004}}, {task.TID, second, []uint64{0x1001, 0x1004}}}
	if diff := cmp.Diff(wantCalls, r.calls); diff != "" {
		t.Errorf("callbacks (-want +got):\n%s", diff)
	}
	if first.CPU() != 1 || first.Cnt() != 3 {
		t.Errorf("cookie %#x: cpu %d cnt %d", uint64(first), first.CPU(), first.Cnt())
	}
	if r.d.Stats.Unwinds != 2 || r.d.Stats.Resets != 2 {
		t.Errorf("stats %+v", r.d.Stats)
	}
}

// TestInitErrors: the bits run out with -EBUSY; a cancelled work is refused.
func TestInitErrors(t *testing.T) {
	r := newRig(t, 1, sim.NewReplay(nil), Config{})
	n := 0
	for {
		if _, err := r.d.Init("x", nil); err != nil {
			if err != ErrBusy {
				t.Fatalf("err %v, want EBUSY", err)
			}
			break
		}
		n++
	}
	if n != 64-3 { // two reserved bits and the rig's work
		t.Errorf("%d works registered, want 61", n)
	}
	r.d.Cancel(r.w)
	if _, _, err := r.d.Request(r.m.CPUs[0], nil, r.w); err != ErrInval {
		t.Errorf("request on a cancelled work: %v", err)
	}
}

// TestUnwindPerTaskNeverMixes is a rapid property: whatever the schedule
// (faults, two tasks on one CPU), with today's per-task cache every callback
// gets exactly its own task's frames; with the RFC's per-CPU buffer some
// schedule mixes them (checked separately in the scenarios).
func TestUnwindPerTaskNeverMixes(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		cfg := DefaultConfig()
		cfg.FaultLatency = sim.Duration(rapid.IntRange(1, 50).Draw(rt, "fault_us")) * sim.Microsecond
		r := newRig(t, 1, &simrapid.Chooser{T: rt}, cfg)
		stacks := map[int][]uint64{}
		for i, name := range []string{"a", "bb"} {
			frames := []string{"main", name + "_loop", name + "_innermost_frame"}
			n := rapid.IntRange(1, 4).Draw(rt, "loops")
			var prog []sched.Op
			prog = append(prog, sched.UserStack(frames...))
			for j := 0; j < n; j++ {
				prog = append(prog, sched.Call(func(tk *sched.Task) {
					r.s.Syscall(tk, "read", func(tk *sched.Task) { r.d.Request(tk.CPU(), tk, r.w) })
				}), sched.Compute(sim.Duration(rapid.IntRange(1, 20).Draw(rt, "compute"))*sim.Microsecond))
			}
			tk := r.s.Spawn(name, sched.CPUMask{}, prog...)
			want := make([]uint64, len(frames))
			for k := range frames {
				want[k] = cfg0IP(frames[len(frames)-1-k])
			}
			stacks[tk.TID] = want
			_ = i
		}
		if err := r.m.Run(sim.Second); err != nil {
			rt.Fatal(err)
		}
		if len(r.calls) == 0 {
			rt.Fatal("no callback")
		}
		for _, c := range r.calls {
			if diff := cmp.Diff(stacks[c.Tid], c.Trace); diff != "" {
				rt.Fatalf("task %d got frames of another (-want +got):\n%s", c.Tid, diff)
			}
		}
	})
}

func cfg0IP(f string) uint64 { return uint64(len(f)) + 0x1000 }
