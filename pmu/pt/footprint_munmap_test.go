package pt_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
)

// TestMunmapFootprints: what munmap(2) of a perf mapping and
// perf_mmap_close() annotate, fragment by fragment
// (pmu/footprint_munmap.go), for an intel_pt event of perf's own thread
// with a data ring and an AUX area: the AUX area's munmap() (the syscall's
// entry and body up to perf_mmap_close:aux-unmapped; ring_buffer_get(),
// the AUX test, aux_mmap_count and rb->aux_mutex up to
// perf_mmap_close:aux_mmap_count-zero; perf_pmu_output_stop()'s walk (the
// event runs nowhere: no cross-call), the pages uncharged, rb_free_aux(),
// the mutex dropped, rb->mmap_count up to perf_mmap_close:mmap_count-dec;
// then event->mmap_count, ring_buffer_put(), the vma's fput() and the
// return through mmap_read_unlock() to the syscall's exit), then the
// ring's (ring_buffer_get(), the AUX test, rb->mmap_count, in the
// syscall's entry fragment). With aux-mutex=pre-2ab9d830262c the AUX
// teardown is marked. (In pt's tests: the AUX area needs intel_pt.)
func TestMunmapFootprints(t *testing.T) {
	const (
		// the sys_enter tracepoints' looks and the registers
		enter = "tp_event->perf_refcount r, tp_event->perf_refcount r, "
		// __vm_munmap(): current->mm, mmap_lock for write, the VMAs found
		// and detached, the lock downgraded
		body = "task->mm r, mm->mmap_lock w, current->lockdep_depth w, sync w, mm->mm_mt r, mm->mm_mt w, mm->mmap_lock w, "
	)
	today := map[string][]string{
		"aux munmap from syscall_enter_from_user_mode": {enter + body + "event->rb r, rb->refcount w"},
		"perf_mmap_close:aux-unmapped": {"event->rb r, rb->refcount w, rb->aux_nr_pages r, rb->aux_mmap_count w, " +
			"sync w, current->lockdep_depth w, sync w"},
		"perf_mmap_close:aux_mmap_count-zero": {"rb->event_list r, event->oncpu r, locked_vm add, rb->aux_mmap_locked w, " +
			"rb->aux_refcount w, rb->aux_nr_pages w, rb->aux_pages w, sync w, current->lockdep_depth w, sync w, rb->mmap_count w"},
		"ring munmap from syscall_enter_from_user_mode": {enter + body + "event->rb r, rb->refcount w, rb->aux_nr_pages r, rb->mmap_count w"},
	}
	// before 2ab9d830262c the teardown takes event->mmap_mutex: marked
	// where it is taken and after the step
	old := map[string][]string{
		"aux munmap from syscall_enter_from_user_mode": today["aux munmap from syscall_enter_from_user_mode"],
		"perf_mmap_close:aux-unmapped": {"event->rb r, rb->refcount w, rb->aux_nr_pages r, rb->aux_mmap_count w, " +
			"UNAUDITED perf_mmap_close (aux-mutex=pre-2ab9d830262c), sync w, current->lockdep_depth w, sync w"},
		"perf_mmap_close:aux_mmap_count-zero": {"UNAUDITED perf_mmap_close (aux-free=pre-57ffc5ca679f or aux-mutex=pre-2ab9d830262c), " +
			"rb->event_list r, event->oncpu r, locked_vm add, rb->aux_mmap_locked w, " +
			"rb->aux_refcount w, rb->aux_nr_pages w, rb->aux_pages w, sync w, current->lockdep_depth w, sync w, rb->mmap_count w"},
		"ring munmap from syscall_enter_from_user_mode": today["ring munmap from syscall_enter_from_user_mode"],
	}
	for _, tc := range []struct {
		knob string // aux-mutex
		want map[string][]string
	}{{"today", today}, {"pre-2ab9d830262c", old}} {
		t.Run(tc.knob, func(t *testing.T) {
			want := tc.want
			mc := newMachine(t, sim.NewRandom(1), map[string]string{"aux-mutex": tc.knob})
			l := &fragLog{}
			mc.m.OnSegments(l)
			mc.s.Spawn("perf", sched.MaskOf(0), sched.Call(func(task *sched.Task) {
				a := ptAttr()
				fd, err := mc.k.PerfEventOpen(task, &a, 0, -1, -1, 0)
				if err != nil {
					t.Fatal(err)
				}
				ring, err := mc.k.Mmap(task, fd, 0, 9*4096, pmu.ProtRead|pmu.ProtWrite)
				if err != nil {
					t.Fatal(err)
				}
				ring.RB.User.AuxOffset, ring.RB.User.AuxSize = 9*4096, 8*4096
				aux, err := mc.k.Mmap(task, fd, 9, 8*4096, pmu.ProtRead|pmu.ProtWrite)
				if err != nil {
					t.Fatal(err)
				}
				if err := mc.k.Munmap(task, aux); err != nil {
					t.Fatal(err)
				}
				if err := mc.k.Munmap(task, ring); err != nil {
					t.Fatal(err)
				}
			}))
			if err := mc.m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{}
			for _, s := range []string{"perf_mmap_close:aux-unmapped", "perf_mmap_close:aux_mmap_count-zero"} {
				if f := l.started(s); len(f) > 0 {
					got[s] = f
				}
			}
			// the munmap()s' entries, by the VMAs detached: the AUX area's first
			munmaps := 0
			for _, f := range l.frags {
				if f[0] == "syscall_enter_from_user_mode" && slices.Contains(f, "mm->mm_mt w") && slices.Contains(f, "mm->mmap_lock w") && !slices.Contains(f, "rb_alloc w") {
					name := "aux munmap from "
					if munmaps++; munmaps > 1 {
						name = "ring munmap from "
					}
					got[name+f[0]] = []string{strings.Join(f[1:], ", ")}
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("fragments (-want +got):\n%s", diff)
			}
		})
	}
}
