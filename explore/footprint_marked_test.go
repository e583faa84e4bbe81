package explore

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sim"
)

// TestRingBufferFootprintsMarked: the ring buffer's annotations reach the
// footprint listeners only, not the data-race oracle
// (cpu.CPU.AccessMarkedOnly), which is sound only while nothing in the
// model touches a ring buffer's fields with a plain access: KCSAN reports a
// race only where one side is plain. Over the built-ins that write ring
// buffers from several contexts, every access to an *rb.Buffer is marked
// (or data_race(): the PT hardware's AUX pages, which KCSAN does not see),
// and the fields rb annotates are all heard.
func TestRingBufferFootprintsMarked(t *testing.T) {
	ops := map[string]map[cpu.AccessOp]bool{} // field -> ops seen on any *rb.Buffer
	for _, name := range []string{"rb-data-head-backwards", "rb-nested-nmi-output", "backward-ring-buffer", "aux-pause-resume-nmi", "munmap-ring-twice", "deferred-callchain-shared-buffer"} {
		f := loadBuiltin(t, name)
		for seed := range uint64(3) {
			realRun(t, f, nil)(sim.NewRandom(seed), func(m *cpu.Machine) {
				m.OnFootprint(func(_ *cpu.CPU, fp cpu.Footprint) {
					if _, ok := fp.Obj.(*rb.Buffer); !ok {
						return
					}
					if ops[fp.Field] == nil {
						ops[fp.Field] = map[cpu.AccessOp]bool{}
					}
					ops[fp.Field][fp.Op] = true
				})
			})
		}
	}
	var got []string
	for field, seen := range ops {
		for op := range seen {
			switch op {
			case cpu.MarkedRead, cpu.MarkedWrite, cpu.AtomicAdd, cpu.DataRaceRead, cpu.DataRaceWrite:
			default:
				t.Errorf("%s: a %s access to a ring buffer's field (a plain one: the oracle must hear rb's annotations again)", field, op)
			}
		}
		got = append(got, field)
	}
	sort.Strings(got)
	want := []string{"rb (freed)", "rb->aux_head", "rb->aux_in_pause_resume", "rb->aux_mmap_count", "rb->aux_nest", "rb->aux_nr_pages", "rb->aux_pages", "rb->aux_refcount", "rb->aux_wakeup", "rb->data_pages", "rb->head", "rb->lost", "rb->nest", "rb->nr_pages", "rb->paused", "rb->poll", "rb->refcount", "rb->wakeup",
		"user_page->aux_head", "user_page->aux_offset", "user_page->aux_size", "user_page->aux_tail", "user_page->data_head", "user_page->data_tail"} // the user page's, and the pages, perf's too (perftool/footprint_record.go); poll, poll(2)'s atomic_xchg() (pmu/footprint_poll.go); nr_pages and refcount, the setup syscalls' (pmu/footprint_setup.go); aux_in_pause_resume, perf_event_aux_pause()'s (pmu/footprint_aux.go); aux_head, aux_mmap_count, aux_nest, aux_refcount, aux_wakeup, perf_aux_output_begin()'s and _end()'s (rb/footprint_aux.go); the buffer's free, perf_mmap_close()'s last ring_buffer_put() (pmu/footprint_munmap.go)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ring buffer fields heard (-want +got):\n%s", diff)
	}
}
