package pmu

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// cgTree makes root/a, root/a/x, root/b on a 2-CPU machine with perf.
func cgTree(t *testing.T, knobs Knobs) (*cpu.Machine, *sched.Sched, *Kernel, map[string]*sched.Cgroup) {
	t.Helper()
	m := cpu.NewMachine(cpu.Config{CPUs: 2}, nil)
	t.Cleanup(m.Close)
	s := sched.New(m, sched.DefaultConfig())
	o := DefaultOptions(2)
	o.Knobs = knobs
	k := NewKernel(s, o)
	cg := map[string]*sched.Cgroup{"/": s.CgroupRoot()}
	for _, p := range []struct{ name, parent string }{{"a", "/"}, {"x", "a"}, {"b", "/"}} {
		c, err := s.CgroupMkdir(p.name, cg[p.parent])
		if err != nil {
			t.Fatal(err)
		}
		cg[p.name] = c
	}
	return m, s, k, cg
}

// TestCgroupMatch is perf_cgroup_match() across the hierarchy: an event of
// a cgroup matches while cpuctx->cgrp is that cgroup or below it, never
// without a cpuctx->cgrp; an event without a cgroup always matches.
// kernel/events/core.c: perf_cgroup_match()
func TestCgroupMatch(t *testing.T) {
	m, _, k, cg := cgTree(t, Knobs{})
	type key struct{ Event, Current string }
	got := map[key]bool{}
	for _, ev := range []string{"", "/", "a", "x", "b"} {
		for _, cur := range []string{"none", "/", "a", "x", "b"} {
			e := &Event{k: k}
			if ev != "" {
				e.cgrp = perfCgroupOf(cg[ev])
			}
			k.cpuCtx[1].cg.cgrp = nil
			if cur != "none" {
				k.cpuCtx[1].cg.cgrp = perfCgroupOf(cg[cur])
			}
			got[key{ev, cur}] = k.cgroupMatch(e, m.CPUs[1])
		}
	}
	want := map[key]bool{}
	for _, cur := range []string{"none", "/", "a", "x", "b"} {
		want[key{"", cur}] = true // "@event doesn't care about cgroup"
	}
	for _, p := range []key{{"/", "/"}, {"/", "a"}, {"/", "x"}, {"/", "b"}, {"a", "a"}, {"a", "x"}, {"x", "x"}, {"b", "b"}} {
		want[p] = true
	}
	for _, ev := range []string{"/", "a", "x", "b"} {
		for _, cur := range []string{"none", "/", "a", "x", "b"} {
			if _, ok := want[key{ev, cur}]; !ok {
				want[key{ev, cur}] = false
			}
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("perf_cgroup_match (-want +got):\n%s", d)
	}
}

// cgTimes is what TestCgroupTime looks at.
type cgTimes struct {
	Enabled, Running map[string]sim.Duration // per cgroup event
	Counted          map[string]bool         // cpu-clock moved
	NrCgroups        int                     // cpuctx->ctx.nr_cgroups of cpu1 at the end
	CpuctxSet        bool                    // cpuctx->cgrp set at the end
	Violations       []string                // cgroup-time-adds-up
}

// runCgroupTime runs w (in a/x, then moved to b at 60us) and v (in the
// root) on cpu1 under cgroup cpu-clock events of /, a, a/x and b on cpu1,
// read and closed at 150us, and returns the times read.
func runCgroupTime(t *testing.T, knobs Knobs) cgTimes {
	m, s, k, cg := cgTree(t, knobs)
	names := []string{"/", "a", "x", "b"}
	w := s.Spawn("w", sched.MaskOf(1), sched.Loop(10, sched.Compute(10*sim.Microsecond), sched.Yield()))
	v := s.Spawn("v", sched.MaskOf(1), sched.Loop(10, sched.Compute(7*sim.Microsecond), sched.Yield()))
	_ = v
	s.CgroupSetInitial(w, cg["x"])
	out := cgTimes{Enabled: map[string]sim.Duration{}, Running: map[string]sim.Duration{}, Counted: map[string]bool{}}
	fds := map[string]int{}
	s.Spawn("tracer", sched.MaskOf(0), sched.Call(func(tr *sched.Task) {
		attr := Attr{Type: uapi.PERF_TYPE_SOFTWARE, Config: uapi.PERF_COUNT_SW_CPU_CLOCK}
		for _, n := range names {
			dir := cg[n].Dir()
			cgfd, _ := tr.Files.Install(s.FS.Lookup(dir), uapi.O_RDONLY)
			a := attr
			fd, err := k.PerfEventOpen(tr, &a, cgfd, 1, -1, uapi.PERF_FLAG_PID_CGROUP)
			if err != nil {
				t.Errorf("open on %s: %v", n, err)
				return
			}
			fds[n] = fd
		}
	}), sched.Sleep(60*sim.Microsecond), sched.Call(func(tr *sched.Task) {
		s.Syscall(tr, "write", func(tr *sched.Task) {
			if err := s.CgroupAttachTask(tr, w, cg["b"]); err != nil {
				t.Errorf("attach: %v", err)
			}
		})
	}), sched.Sleep(90*sim.Microsecond), sched.Call(func(tr *sched.Task) {
		for _, n := range names {
			e := k.EventOf(tr, fds[n])
			k.perfEventRead(tr, e, false)
			out.Enabled[n], out.Running[n], out.Counted[n] = e.totalTimeEnabled, e.totalTimeRunning, e.Count() > 0
			if err := k.Close(tr, fds[n]); err != nil {
				t.Errorf("close %s: %v", n, err)
			}
		}
	}))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	out.NrCgroups, out.CpuctxSet = k.cpuCtx[1].cg.nrCgroups, k.cpuCtx[1].cg.cgrp != nil
	for _, v := range k.CgroupCheck() {
		out.Violations = append(out.Violations, v.Message)
	}
	return out
}

// TestCgroupTime checks the cgroup time accounting against the ledger
// (exact: cgroup-time-adds-up) and across the hierarchy: a's event sees at
// least a/x's time (w, in a/x until its move; a's event opened first), b's
// sees w after the move, the root's every task (and
// the idle one: it is in the root) and so the most; each cgroup event runs
// whenever it is enabled and its cgroup's task is current (one PMU, no
// multiplexing); the closes leave no cgroup count on cpu1 today, and with
// the old remove path (pre-3b7a34aebbdf) four and cpuctx->cgrp still set.
func TestCgroupTime(t *testing.T) {
	for _, tc := range []struct {
		knob      string
		nr        int
		cpuctxSet bool
	}{{"today", 0, false}, {"pre-3b7a34aebbdf", 4, true}} {
		t.Run(tc.knob, func(t *testing.T) {
			got := runCgroupTime(t, Knobs{Extra: map[string]string{cgroupDanglingKnob.Name: tc.knob}})
			if len(got.Violations) != 0 {
				t.Errorf("cgroup-time-adds-up: %v", got.Violations)
			}
			type shape struct {
				ACoversX, RootMost, ARunsWhenEnabled, BRunsWhenEnabled, AllCounted bool
				NrCgroups                                                          int
				CpuctxSet                                                          bool
			}
			want := shape{true, true, true, true, true, tc.nr, tc.cpuctxSet}
			g := shape{
				ACoversX:         got.Enabled["a"] >= got.Enabled["x"] && got.Enabled["x"] > 0,
				RootMost:         got.Enabled["/"] > got.Enabled["a"] && got.Enabled["/"] > got.Enabled["b"],
				ARunsWhenEnabled: got.Running["a"] == got.Enabled["a"],
				BRunsWhenEnabled: got.Running["b"] == got.Enabled["b"] && got.Enabled["b"] > 0,
				AllCounted:       got.Counted["/"] && got.Counted["a"] && got.Counted["x"] && got.Counted["b"],
				NrCgroups:        got.NrCgroups,
				CpuctxSet:        got.CpuctxSet,
			}
			if d := cmp.Diff(want, g); d != "" {
				t.Errorf("cgroup times %+v (-want +got):\n%s", got, d)
			}
		})
	}
}

// TestCgroupOpen is perf_event_open() with PERF_FLAG_PID_CGROUP: pid is an
// fd of a cgroup directory and the event is CPU-wide; what perf_cgroup_connect()
// and the checks before it refuse, with the errno the kernel returns.
// kernel/events/core.c: perf_event_open(), perf_cgroup_connect()
func TestCgroupOpen(t *testing.T) {
	m, s, k, cg := cgTree(t, Knobs{})
	if err := s.CgroupRmdir(cg["b"]); err != nil {
		t.Fatal(err)
	}
	got := map[string]error{}
	s.Spawn("tracer", sched.MaskOf(0), sched.Call(func(tr *sched.Task) {
		attr := Attr{Type: uapi.PERF_TYPE_SOFTWARE, Config: uapi.PERF_COUNT_SW_CPU_CLOCK}
		dirFD := func(path string) int { fd, _ := tr.Files.Install(s.FS.Lookup(path), uapi.O_RDONLY); return fd }
		open := func(name string, pid, cpuID, group int) int {
			a := attr
			fd, err := k.PerfEventOpen(tr, &a, pid, cpuID, group, uapi.PERF_FLAG_PID_CGROUP)
			got[name] = err
			return fd
		}
		lead := open("a on cpu1", dirFD(cg["a"].Dir()), 1, -1)
		open("a, any CPU", dirFD(cg["a"].Dir()), -1, -1)
		open("not an fd", 1000, 1, -1)
		open("not a cgroup", dirFD("/etc/passwd"), 1, -1)
		open("removed cgroup", dirFD(cg["b"].Dir()), 1, -1)
		open("sibling of x in a's group", dirFD(cg["x"].Dir()), 1, lead)
		open("sibling of a in a's group", dirFD(cg["a"].Dir()), 1, lead)
	}))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	want := map[string]error{
		"a on cpu1":                 nil,
		"a, any CPU":                uapi.EINVAL, // "(flags & PERF_FLAG_PID_CGROUP) && (pid == -1 || cpu == -1)"
		"not an fd":                 uapi.EBADF,  // fd_empty(f)
		"not a cgroup":              uapi.EBADF,  // css_tryget_online_from_dir(): not in cgroupfs
		"removed cgroup":            uapi.ENOENT, // css_tryget_online_from_dir(): offline
		"sibling of x in a's group": uapi.EINVAL, // "all events in a group must monitor the same cgroup"
		"sibling of a in a's group": nil,
	}
	if d := cmp.Diff(want, got, cmp.Comparer(func(a, b error) bool { return a == b })); d != "" {
		t.Errorf("perf_event_open(PERF_FLAG_PID_CGROUP) (-want +got):\n%s", d)
	}
	if n := k.cgs.events; n != 2 {
		t.Errorf("cgroup.events = %d, want 2 (the two opens that succeeded)", n)
	}
}
