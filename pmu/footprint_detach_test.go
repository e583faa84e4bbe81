package pmu_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestGroupDetachFootprints: what perf_group_detach()'s step points
// annotate up to their context's next step point (pmu/footprint_group.go),
// exactly, for a sibling closed out of a group of the caller's (pid 0, one
// CPU: the release's __perf_remove_from_context() runs here, the context
// active). Each fragment is its start and its accesses in order.
func TestGroupDetachFootprints(t *testing.T) {
	const (
		// group_leader->nr_siblings--
		nr = "perf_group_detach:list_del, event->sibling_list w"
		// group_generation++, the sibling its own leader
		out = "perf_group_detach:nr_siblings, event->sibling_list w, event->group_leader w"
		// for_each_sibling_event(): perf_event__header_size() of one sibling left
		sibling = ", event->sibling_list r, event->group_leader r, event->sibling_list r, event->read_size w"
		// the walk's end, perf_event__header_size(leader); list_del_event()'s state, the context's lists
		leader = ", event->sibling_list r, event->group_leader r, event->sibling_list r, event->read_size w, event->state r, ctx->event_list r"
		// list_del_event(): perf_event_set_state(OFF)
		off = ", event->tstamp w, ctx->time r, ctx->is_active r, event->state w"
		// __perf_remove_from_context(): the PMU's last event: pmu_ctx->rotate_necessary = 0
		rotate = ", pmu_ctx->rotate_necessary w"
		// __perf_remove_from_context()'s end, then perf_event_release_kernel()'s code after
		// perf_remove_from_context() (footprint_release.go: put_task_struct() annotated), and
		// close(2)'s exit
		release = ", cpuctx->task_ctx r, event->state w, sync w, current->lockdep_depth w, sync w, sync w, " +
			"current->lockdep_depth w, sync w, event->child_list r, sync w, current->lockdep_depth w, sync w, " +
			"event->refcount w, event->pending_irq r, event->pending_disable_irq r, event->state w, event (freed) w, " +
			"task->usage w, epc->refcount w, ctx->refcount w, " +
			"tp_event->perf_refcount r, tp_event->perf_refcount r, task_pt_regs(current) w"
	)
	for _, tc := range []struct {
		name    string
		members int // siblings opened after the leader; the first is closed
		want    []string
	}{
		{name: "the only sibling", members: 1, want: []string{nr, out + leader + off + rotate + release}},
		{name: "one of two siblings", members: 2, want: []string{nr, out + sibling + leader + off + release}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mc := newMachine(t, 1, nil, pmu.Knobs{})
			l := &fragLog{}
			mc.m.OnSegments(l)
			end := 0 // the fragments logged when the close returns
			mc.s.Spawn("opener", sched.MaskOf(0), sched.Call(func(t2 *sched.Task) {
				leader := cyclesAttr(100000)
				leader.ReadFormat = uapi.PERF_FORMAT_GROUP | uapi.PERF_FORMAT_ID
				group, err := mc.k.PerfEventOpen(t2, &leader, 0, -1, -1, 0)
				if err != nil {
					panic(err)
				}
				var fds []int
				for i := 0; i < tc.members; i++ {
					a := swAttr(uapi.PERF_COUNT_SW_PAGE_FAULTS)
					a.ReadFormat = leader.ReadFormat
					fd, err := mc.k.PerfEventOpen(t2, &a, 0, -1, group, 0)
					if err != nil {
						panic(err)
					}
					fds = append(fds, fd)
				}
				if err := mc.k.Close(t2, fds[0]); err != nil {
					panic(err)
				}
				end = len(l.frags) // the task's exit closes the rest
			}))
			if err := mc.m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range l.frags[:end] {
				if strings.HasPrefix(f[0], "perf_group_detach:") {
					got = append(got, strings.Join(f, ", "))
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("perf_group_detach()'s fragments (-want +got):\n%s\ngot:\n%s", diff, strings.Join(got, "\n"))
			}
		})
	}
}
