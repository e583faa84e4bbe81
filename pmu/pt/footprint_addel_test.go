package pt_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
)

// TestAddDelFootprints: what pt_event_add() and pt_event_del() annotate
// (pmu/pt/footprint_addel.go), fragment by fragment, for an intel_pt event
// of a task that sleeps twice (each switch schedules the event out and in)
// and exits:
//   - "event_sched_in": pt->handle.event, the hardware's output since the
//     last look, output_event->rb, then without an AUX area yet (the
//     event goes on at open) the failed start's hwc->state (its return
//     into pt_event_add() is annotated, not marked), or with one
//     perf_aux_output_begin() up to its aux_refcount step;
//   - "pt_config:started": pause_allowed set (not before 08c7454ceb94),
//     hwc->state read back in pt_event_add(), event_sched_in()'s rest and
//     the switch it runs in (their own annotations);
//   - "event_sched_out": pmu->del's WRITE_ONCE(pt->handle_nmi, 0);
//   - "pt_event_stop:config-stopped": hw.state, the WARN's handle.event,
//     pt_read_offset(), perf_get_aux(), pt_handle_status(),
//     pt_update_head(), perf_aux_output_end() up to its nest-zero step,
//     with no mark (pt_event_del() returns at once into the del step).
func TestAddDelFootprints(t *testing.T) {
	const (
		addHead = "handle->event r, RTIT_STATUS, the trace position w, the task's mode and stacks r, mm->mmap r, occupant add, event->rb r, "
		// the event installed at open, before its AUX area: the start fails
		noAux = addHead + "event->hw (the counter) w, event->hw (the counter) r, event->tstamp w, ctx->time r, ctx->is_active r, event->state w, event->oncpu w, " +
			"cpc->pmu_disable_count w, cpc->pmu_disable_count w, event->state r, ctx->lock w, sync w, ctx->pin_count w, ctx->lock w, sync w, event->owner w, " +
			"current->perf_event_list w, file->f_count w, event->refcount w, fdt->fd[] w, fdt->fd[] w, sync w, current->lockdep_depth w, sync w, task->usage w, " +
			"tp_event->perf_refcount r, tp_event->perf_refcount r, task_pt_regs(current) w"
		withAux = addHead + "rb->refcount w, rb->aux_nr_pages r, rb->aux_mmap_count r, rb->aux_refcount w, handle->event w"
		// pt_event_add()'s hwc->state, event_sched_in()'s rest, the switch's
		started = "event->hw (the counter) r, ctx->nr_active w, cpc->pmu_disable_count w, event->sibling_list r, cpc->pmu_disable_count w, event->state r, " +
			"ctx->event_list r, cpc->pmu_disable_count w, ctx->lock w, sync w, nr_switch_events r, p->sched_migrated r, rq->balance_callback r, " +
			"p->se (exec_start, wake_cpu) w, pending w, tp_event->perf_refcount r, tp_event->perf_refcount r, task_pt_regs(current) w"
		stopped = "event->hw (the counter) r, event->hw (the counter) w, handle->event r, pt_buffer (the hardware's output position) w, handle->rb r, " +
			"rb->aux_nr_pages r, MSR_IA32_RTIT_STATUS w, handle->aux_flags w, pt_buffer (the driver's offsets) w, handle->aux_flags w, rb->aux_nr_pages r, " +
			"rb->aux_head w, user_page->aux_head w, rb->aux_head r, rb->aux_wakeup w, handle->event w, rb->aux_nest w"
	)
	for _, tc := range []struct {
		knob    string // pt-pause-resume
		started string
	}{
		{"today", "pt->pause_allowed w, " + started},
		{"pre-08c7454ceb94", started},
	} {
		t.Run(tc.knob, func(t *testing.T) {
			mc := newMachine(t, sim.NewRandom(1), map[string]string{"pt-pause-resume": tc.knob})
			l := &fragLog{}
			mc.m.OnSegments(l)
			mc.s.Spawn("traced", sched.MaskOf(0), sched.Call(func(task *sched.Task) {
				a := ptAttr()
				a.AuxStartPaused = false
				fd, err := mc.k.PerfEventOpen(task, &a, 0, -1, -1, 0)
				if err != nil {
					panic(err)
				}
				if _, err := mapAux(task, mc.k, fd, pmu.ProtRead|pmu.ProtWrite); err != nil {
					panic(err)
				}
			}), sched.Loop(2, sched.Sleep(2*sim.Microsecond), sched.Compute(700*sim.Nanosecond)))
			if err := mc.m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{}
			for _, s := range []string{"event_sched_in", "pt_config:started", "event_sched_out", "pt_event_stop:config-stopped"} {
				got[s] = l.started(s)
			}
			want := map[string][]string{
				"event_sched_in":               {noAux, withAux},
				"pt_config:started":            {tc.started},
				"event_sched_out":              {"cpc->pmu_disable_count w, pt->handle_nmi w"},
				"pt_event_stop:config-stopped": {stopped},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("fragments (-want +got):\n%s", diff)
			}
		})
	}
}
