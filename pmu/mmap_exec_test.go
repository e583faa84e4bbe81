package pmu_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestExecClosesPerfMappings: execve() drops the old mm (exec_mmap() ->
// mmput()); its last user's exit_mmap() closes every perf VMA in it
// (perf_mmap_close()), so the rings perf mapped only there are detached and
// freed, event->mmap_count and rb->mmap_count go to 0, locked_vm is given
// back (all but today's charge of a second mapping of one buffer), and the
// events themselves live on through their fds. A CLONE_VM
// process still using the old mm keeps it (and the mappings); a mapping of
// the same fd in another process's mm keeps its counts. The object-lifetime
// oracle stays quiet in every case.
func TestExecClosesPerfMappings(t *testing.T) {
	type result struct {
		Counts      map[string]pmu.MmapCounts // after the exec
		ExitCloses  int64                     // perf VMAs exit_mmap() closed
		LockedVM    int64                     // pages charged to locked_vm after the exec
		EventsAlive bool                      // both events still ACTIVE after the exec
		Lifetime    []string                  // the oracle's reports, during the run and at the end
	}
	for _, tc := range []struct {
		name  string
		other string // "": no other task; "clone-vm": a CLONE_VM process shares the mm; "process": a process of its own maps ev a
		want  result
	}{
		{name: "last user: every perf VMA closed", want: result{
			Counts: map[string]pmu.MmapCounts{
				"a#1": {}, "a#2": {}, "b": {},
			},
			// perf_mmap_rb() charges a second mapping of one buffer again
			// and only the last close uncharges, once (mmap.go): a's
			// second mapping leaves its 3 pages charged
			ExitCloses: 3, LockedVM: 3, EventsAlive: true,
		}},
		{name: "a CLONE_VM process still uses the old mm: nothing closed", other: "clone-vm", want: result{
			Counts: map[string]pmu.MmapCounts{
				"a#1": {EventMmapCount: 2, RBMmapCount: 2, RBRefcount: 1, Attached: true, Mapped: true},
				"a#2": {EventMmapCount: 2, RBMmapCount: 2, RBRefcount: 1, Attached: true, Mapped: true},
				"b":   {EventMmapCount: 1, RBMmapCount: 1, RBRefcount: 1, Attached: true, Mapped: true},
			},
			LockedVM: 9, EventsAlive: true,
		}},
		{name: "another process maps ev a too: its mapping keeps the buffer", other: "process", want: result{
			Counts: map[string]pmu.MmapCounts{
				"a#1":   {EventMmapCount: 1, RBMmapCount: 1, RBRefcount: 1, Attached: true},
				"a#2":   {EventMmapCount: 1, RBMmapCount: 1, RBRefcount: 1, Attached: true},
				"b":     {},
				"other": {EventMmapCount: 1, RBMmapCount: 1, RBRefcount: 1, Attached: true, Mapped: true},
			},
			ExitCloses: 3, LockedVM: 9, EventsAlive: true, // a's 3 mappings charged 9 pages, b's 3 were given back
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mc := newMachine(t, 2, sim.NewReplay(nil), pmu.Knobs{})
			var lifetime []string
			mc.k.SetLifetimeHook(func(v pmu.LifetimeViolation) { lifetime = append(lifetime, v.Message) })
			maps := map[string]*pmu.Mapping{}
			var fds [2]int
			got := result{Counts: map[string]pmu.MmapCounts{}}
			owner := mc.s.Spawn("app", sched.MaskOf(0), sched.Call(func(tk *sched.Task) {
				for i := range fds {
					a := swAttr(uapi.PERF_COUNT_SW_TASK_CLOCK)
					fd, err := mc.k.PerfEventOpen(tk, &a, 0, -1, -1, 0)
					if err != nil {
						t.Fatal(err)
					}
					fds[i] = fd
				}
				for _, n := range []string{"a#1", "a#2", "b"} {
					fd := fds[0]
					if n == "b" {
						fd = fds[1]
					}
					m, err := mc.k.Mmap(tk, fd, 0, 3*4096, pmu.ProtRead|pmu.ProtWrite)
					if err != nil {
						t.Fatalf("mmap %s: %v", n, err)
					}
					maps[n] = m
				}
				sleepUntil(mc, tk, 10*sim.Microsecond)
				mc.s.Exec(tk, "/usr/local/bin/next")
				mc.s.RunOps(tk, []sched.Op{sched.Compute(sim.Microsecond)})
				for n, m := range maps {
					got.Counts[n] = mc.k.MmapCounts(m)
				}
				got.ExitCloses, _ = mc.k.Observe("mmap.exit-closes")
				got.LockedVM, _ = mc.k.Observe("mmap.locked-vm")
				a, b := mc.k.EventOf(tk, fds[0]), mc.k.EventOf(tk, fds[1])
				got.EventsAlive = a != nil && b != nil && a.State() == pmu.StateActive && b.State() == pmu.StateActive
			}))
			if tc.other != "" {
				other := mc.s.Spawn("other", sched.MaskOf(1), sched.Call(func(tk *sched.Task) {
					sleepUntil(mc, tk, 5*sim.Microsecond)
					if tc.other == "process" {
						m, err := mc.k.Mmap(tk, fds[0], 0, 3*4096, pmu.ProtRead|pmu.ProtWrite)
						if err != nil {
							t.Errorf("mmap in the other process: %v", err)
						}
						maps["other"] = m
					}
					sleepUntil(mc, tk, 30*sim.Microsecond)
				}))
				mc.k.ShareFiles(other, owner)
				if tc.other == "clone-vm" {
					mc.k.ShareMM(other, owner)
				}
			}
			if err := mc.m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			for _, v := range mc.k.LifetimeCheck(true) {
				lifetime = append(lifetime, "at the end: "+v.Message)
			}
			got.Lifetime = lifetime
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// ExampleKernel_MmapCounts: a mapping's counts before and after the
// exec that drops its mm.
func ExampleKernel_MmapCounts() {
	mc := newMachine(nil, 1, sim.NewReplay(nil), pmu.Knobs{})
	defer mc.m.Close()
	mc.s.Spawn("app", sched.MaskOf(0), sched.Call(func(tk *sched.Task) {
		a := swAttr(uapi.PERF_COUNT_SW_DUMMY)
		fd, _ := mc.k.PerfEventOpen(tk, &a, 0, -1, -1, 0)
		m, _ := mc.k.Mmap(tk, fd, 0, 3*4096, pmu.ProtRead|pmu.ProtWrite)
		fmt.Printf("%+v\n", mc.k.MmapCounts(m))
		mc.s.Exec(tk, "/usr/local/bin/next")
		fmt.Printf("%+v\n", mc.k.MmapCounts(m))
	}))
	_ = mc.m.Run(sim.Second)
	// Output:
	// {EventMmapCount:1 RBMmapCount:1 RBRefcount:1 AuxMmapCount:0 AuxRefcount:0 Attached:true Mapped:true}
	// {EventMmapCount:0 RBMmapCount:0 RBRefcount:0 AuxMmapCount:0 AuxRefcount:0 Attached:false Mapped:false}
}

// TestExitClosesPerfMappings: a task's exit drops its mm at exit_mm(); the
// last user's exit_mmap() closes the perf VMAs left in it, so a ring whose fd
// was closed before is detached and freed there and the oracle finds no leak
// at the end. A CLONE_VM task that outlives it keeps the mm (and the
// mapping) until its own exit.
func TestExitClosesPerfMappings(t *testing.T) {
	type result struct {
		AtFirstExit  pmu.MmapCounts // seen by the other task after app exited
		ClosesThen   int64          // mmap.exit-closes then
		ClosesAtEnd  int64
		DetachAtEnd  int64
		CountsAtEnd  pmu.MmapCounts
		RBCountAtEnd int64
		Lifetime     []string
	}
	for _, tc := range []struct {
		name    string
		cloneVM bool
		want    result
	}{
		{name: "the last user's exit closes the ring", want: result{
			ClosesThen: 1, ClosesAtEnd: 1, DetachAtEnd: 1,
		}},
		{name: "a CLONE_VM task keeps the mm until its exit", cloneVM: true, want: result{
			AtFirstExit: pmu.MmapCounts{EventMmapCount: 1, RBMmapCount: 1, RBRefcount: 1, Attached: true, Mapped: true},
			ClosesThen:  0, ClosesAtEnd: 1, DetachAtEnd: 1,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mc := newMachine(t, 2, sim.NewReplay(nil), pmu.Knobs{})
			var got result
			mc.k.SetLifetimeHook(func(v pmu.LifetimeViolation) { got.Lifetime = append(got.Lifetime, v.Message) })
			var m *pmu.Mapping
			owner := mc.s.Spawn("app", sched.MaskOf(0), sched.Call(func(tk *sched.Task) {
				a := swAttr(uapi.PERF_COUNT_SW_TASK_CLOCK)
				fd, err := mc.k.PerfEventOpen(tk, &a, 0, -1, -1, 0)
				if err != nil {
					t.Fatal(err)
				}
				if m, err = mc.k.Mmap(tk, fd, 0, 3*4096, pmu.ProtRead|pmu.ProtWrite); err != nil {
					t.Fatal(err)
				}
				if err := mc.k.Close(tk, fd); err != nil {
					t.Fatalf("close: %v", err)
				}
				sleepUntil(mc, tk, 10*sim.Microsecond)
			}))
			other := mc.s.Spawn("other", sched.MaskOf(1), sched.Call(func(tk *sched.Task) {
				sleepUntil(mc, tk, 20*sim.Microsecond)
				got.AtFirstExit = mc.k.MmapCounts(m)
				got.ClosesThen, _ = mc.k.Observe("mmap.exit-closes")
			}))
			if tc.cloneVM {
				mc.k.ShareMM(other, owner)
			}
			if err := mc.m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			got.ClosesAtEnd, _ = mc.k.Observe("mmap.exit-closes")
			got.DetachAtEnd, _ = mc.k.Observe("mmap.exit-detaches")
			got.RBCountAtEnd, _ = mc.k.Observe("rb.count")
			got.CountsAtEnd = mc.k.MmapCounts(m)
			for _, v := range mc.k.LifetimeCheck(true) {
				got.Lifetime = append(got.Lifetime, "at the end: "+v.Message)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
