package pt_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
)

// TestMmapAuxFootprints: what perf_mmap_aux()'s fragments annotate
// (pmu/footprint_mmap_aux.go, rb/footprint_aux_alloc.go,
// pmu/pt/footprint_init.go) when a task maps a PT event's ring, its AUX
// area (rb_alloc_aux(): intel_pt's setup_aux, not marked) and the AUX area
// again (has-aux: aux_mmap_count), then returns through perf_mmap()'s
// annotated rest to the syscall's exit:
//   - "perf_mmap:mmap_mutex" of an AUX mmap: event->state, then
//     perf_mmap_aux()'s entry (event->rb, rb->aux_mutex taken), its checks
//     (aux_offset, aux_size, the data size, rb_has_aux()) and
//     rb->mmap_count, up to has-aux;
//   - "perf_mmap_aux:has-aux": rb_has_aux(), then with no area the limits
//     read up to rb_alloc_aux; with one, aux_mmap_count and the charge, then
//     event->mmap_count, the unlocks, the vma's file reference, the mm's
//     tree, mmap_lock and the fput() to the syscall's exit;
//   - "rb_alloc_aux": the driver's event->rb, rb_alloc_aux()'s fields,
//     aux_mmap_count set, aux_mmap_locked and free_aux, the charge, then
//     the same return.
func TestMmapAuxFootprints(t *testing.T) {
	mc := newMachine(t, sim.NewRandom(1), nil)
	l := &fragLog{}
	mc.m.OnSegments(l)
	mc.s.Spawn("app", sched.MaskOf(0), sched.Call(func(task *sched.Task) {
		a := ptAttr()
		fd, err := mc.k.PerfEventOpen(task, &a, 0, -1, -1, 0)
		if err != nil {
			panic(err)
		}
		if _, err := mapAux(task, mc.k, fd, pmu.ProtRead|pmu.ProtWrite); err != nil {
			panic(err)
		}
		if _, err := mc.k.Mmap(task, fd, 9, 8*4096, pmu.ProtRead|pmu.ProtWrite); err != nil {
			panic(err)
		}
	}))
	if err := mc.m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	const (
		// perf_mmap_aux()'s rest, the mutexes dropped, perf_mmap()'s rest
		// (each mutex's "sync" twice: the annotation's key and the
		// clock's), then the syscall's exit (sched's)
		ret = "event->mmap_count w, sync w, current->lockdep_depth w, sync w, sync w, current->lockdep_depth w, sync w, file->f_count add, mm->mm_mt w, " +
			"mm->mmap_lock w, current->lockdep_depth w, sync w, file->f_count w, tp_event->perf_refcount r, tp_event->perf_refcount r, task_pt_regs(current) w"
	)
	got := map[string][]string{}
	for _, s := range []string{"perf_mmap:mmap_mutex", "perf_mmap_aux:has-aux", "rb_alloc_aux"} {
		got[s] = l.started(s)
	}
	want := map[string][]string{
		"perf_mmap:mmap_mutex": {
			"", // the data area's: not this test's
			"event->state r, event->rb r, sync w, current->lockdep_depth w, sync w, user_page->aux_offset r, user_page->aux_size r, rb->nr_pages r, rb->aux_nr_pages r, rb->mmap_count w",
		},
		"perf_mmap_aux:has-aux": {
			"rb->aux_nr_pages r, locked_vm r",
			"rb->aux_nr_pages r, rb->aux_mmap_count w, locked_vm add, " + ret,
		},
		"rb_alloc_aux": {
			"event->rb r, rb->aux_pages w, rb->aux_nr_pages w, rb->aux_refcount w, user_page->aux_offset w, user_page->aux_size w, " +
				"rb->aux_mmap_count w, rb->aux_mmap_locked w, rb->free_aux w, locked_vm add, " + ret,
		},
	}
	got["perf_mmap:mmap_mutex"][0] = "" // the data area's (footprint_setup.go)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fragments (-want +got):\n%s", diff)
	}
}

// TestEventInitFootprints: pt_event_init()'s accesses in perf_event_open()'s
// fragment (pmu/pt/footprint_init.go): pt_addr_filters_init()'s
// event->hw.addr_filters set (the event's, and the model's table), and no
// mark of intel_pt's event_init. (An inherited event's read of its
// parent's filters runs in the fork's fragments: explore's
// TestWriteAuditMmapAux runs pt-addr-filter-fork.)
func TestEventInitFootprints(t *testing.T) {
	mc := newMachine(t, sim.NewRandom(1), nil)
	l := &fragLog{}
	mc.m.OnSegments(l)
	mc.s.Spawn("app", sched.MaskOf(0), sched.Call(func(task *sched.Task) {
		a := ptAttr()
		if _, err := mc.k.PerfEventOpen(task, &a, 0, -1, -1, 0); err != nil {
			panic(err)
		}
	}))
	if err := mc.m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range l.frags {
		for _, a := range f[1:] {
			if strings.Contains(a, "addr_filters") || strings.Contains(a, "pt_filters") || strings.Contains(a, "event_init") {
				got = append(got, f[0]+": "+a)
			}
		}
	}
	want := []string{
		"syscall_enter_from_user_mode: event->hw.addr_filters w",
		"syscall_enter_from_user_mode: event->hw.addr_filters w",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("event_init's accesses (-want +got):\n%s", diff)
	}
}
