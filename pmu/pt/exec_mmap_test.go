package pt_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
)

// TestExecClosesAuxMapping: an intel_pt event's data ring and AUX area mapped
// by the traced task itself are closed by the exec that drops its mm
// (exec_mmap() -> mmput() -> exit_mmap(): the AUX VMA, the newer and lower
// one, first): aux_mmap_count and aux_refcount go to 0 (rb_free_aux()), then
// the data ring's mmap counts, and the buffer is freed, with no report from
// the object-lifetime oracle during the run or at the end.
func TestExecClosesAuxMapping(t *testing.T) {
	mc := newMachine(t, sim.NewReplay(nil), nil)
	var reports []string
	mc.k.SetLifetimeHook(func(v pmu.LifetimeViolation) { reports = append(reports, v.Message) })
	type view struct {
		Before, After map[string]pmu.MmapCounts
		ExitCloses    int64
		AuxFrees      int64
	}
	got := view{Before: map[string]pmu.MmapCounts{}, After: map[string]pmu.MmapCounts{}}
	mc.s.Spawn("app", sched.MaskOf(0), sched.Call(func(tk *sched.Task) {
		a := ptAttr()
		fd, err := mc.k.PerfEventOpen(tk, &a, 0, -1, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		data, err := mc.k.Mmap(tk, fd, 0, 9*4096, pmu.ProtRead|pmu.ProtWrite)
		if err != nil {
			t.Fatal(err)
		}
		data.RB.User.AuxOffset, data.RB.User.AuxSize = 9*4096, 8*4096
		aux, err := mc.k.Mmap(tk, fd, 9, 8*4096, pmu.ProtRead|pmu.ProtWrite)
		if err != nil {
			t.Fatal(err)
		}
		maps := map[string]*pmu.Mapping{"data": data, "aux": aux}
		for n, m := range maps {
			got.Before[n] = mc.k.MmapCounts(m)
		}
		mc.s.RunOps(tk, []sched.Op{sched.Compute(5 * sim.Microsecond)})
		mc.s.Exec(tk, "/usr/local/bin/next")
		for n, m := range maps {
			got.After[n] = mc.k.MmapCounts(m)
		}
		got.ExitCloses, _ = mc.k.Observe("mmap.exit-closes")
		got.AuxFrees, _ = mc.k.Observe("mmap.aux-frees")
	}))
	if err := mc.m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	for _, v := range mc.k.LifetimeCheck(true) {
		reports = append(reports, "at the end: "+v.Message)
	}
	want := view{
		// the AUX mapping takes event->mmap_count and rb->mmap_count too
		Before: map[string]pmu.MmapCounts{
			"data": {EventMmapCount: 2, RBMmapCount: 2, RBRefcount: 1, AuxMmapCount: 1, AuxRefcount: 1, Attached: true, Mapped: true},
			"aux":  {EventMmapCount: 2, RBMmapCount: 2, RBRefcount: 1, AuxMmapCount: 1, AuxRefcount: 1, Attached: true, Mapped: true},
		},
		After:      map[string]pmu.MmapCounts{"data": {}, "aux": {}},
		ExitCloses: 2, AuxFrees: 1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(reports) != 0 {
		t.Errorf("object-lifetime reports: %q", reports)
	}
}
