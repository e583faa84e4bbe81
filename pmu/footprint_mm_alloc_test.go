package pmu_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestMMAllocFootprint: the model's first mm of a task as perf knows it,
// made by its first perf mmap() (pmu/footprint_mm_alloc.go), is annotated
// as a write of the task's entry in the table of mms (current->mm), not
// marked; the second mmap() finds it. Each mmap()'s entry fragment is
// pinned from the fd's lookup to the mmap_lock's take.
func TestMMAllocFootprint(t *testing.T) {
	mc := newMachine(t, 1, nil, pmu.Knobs{})
	l := &fragLog{}
	mc.m.OnSegments(l)
	mc.s.Spawn("mapper", sched.MaskOf(0), sched.Call(func(t2 *sched.Task) {
		for range 2 {
			a := swAttr(uapi.PERF_COUNT_SW_PAGE_FAULTS)
			fd, err := mc.k.PerfEventOpen(t2, &a, 0, -1, -1, 0)
			if err != nil {
				panic(err)
			}
			if _, err := mc.k.Mmap(t2, fd, 0, 2*pmu.PageSize, pmu.ProtRead|pmu.ProtWrite); err != nil {
				panic(err)
			}
		}
	}))
	if err := mc.m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	var got []string // each mmap()'s entry fragment, up to its mmap_lock's take
	for _, f := range l.frags {
		i := slices.Index(f, "mm->mmap_lock w")
		if f[0] != "syscall_enter_from_user_mode" || i < 0 {
			continue
		}
		got = append(got, strings.Join(f[1:i+1], ", "))
	}
	// the sys_enter tracepoints' looks, fdget() and the file's reference
	const head = "tp_event->perf_refcount r, tp_event->perf_refcount r, task->files r, fdt->fd[] r, file->f_count add"
	want := []string{
		head + ", task->mm w, mm->mmap_lock w",
		head + ", mm->mmap_lock w",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the mmap()s' entry fragments up to mmap_lock (-want +got):\n%s", diff)
	}
	for _, f := range l.frags {
		if slices.Contains(f, "UNAUDITED mm_alloc") {
			t.Errorf("a fragment marks mm_alloc: %q", f)
		}
	}
}
