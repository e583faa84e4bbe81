package pmu_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/pmu/pt"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestGroupAttachFootprints: what perf_group_attach()'s step points
// annotate up to their context's next step point (pmu/footprint_group.go),
// exactly, for a member opened into a group of the caller (pid 0, one CPU:
// __perf_install_in_context() runs here, a local call). Each fragment is
// its start and its accesses in order.
func TestGroupAttachFootprints(t *testing.T) {
	const (
		// group_leader->nr_siblings++
		nr = "perf_group_attach:list_add_tail, event->sibling_list w"
		// group_leader->group_generation++, perf_event__header_size(leader), the walk's first
		leader = "perf_group_attach:nr_siblings, event->sibling_list w, event->group_leader r, event->sibling_list r, event->read_size w, event->sibling_list r"
		// perf_event__header_size(pos), the walk's next
		sibling = "perf_group_attach:header_size, event->group_leader r, event->sibling_list r, event->read_size w, event->sibling_list r"
		// the walk's end: back in __perf_install_in_context(), ctx_resched() up to ctx_sched_out()'s step
		resched = ", ctx->is_active r, cpuctx->task_ctx r"
		// the walk's end: back in perf_install_in_context()'s local path: raw_spin_unlock(&ctx->lock); then
		// perf_event_open(): perf_unpin_context(), the owner list, the file, fd_install(), mutex_unlock(&ctx->mutex),
		// put_task_struct(), and the syscall's exit (its sys_exit tracepoints, the regs)
		local = ", ctx->lock w, sync w, ctx->lock w, sync w, ctx->pin_count w, ctx->lock w, sync w, " +
			"event->owner w, current->perf_event_list w, file->f_count w, event->refcount w, fdt->fd[] w, fdt->fd[] w, " +
			"sync w, current->lockdep_depth w, sync w, task->usage w, " +
			"tp_event->perf_refcount r, tp_event->perf_refcount r, task_pt_regs(current) w"
	)
	for _, tc := range []struct {
		name     string
		members  int  // members opened after the leader
		disabled bool // the last member disabled: installed without the call (perf_install_in_context()'s local path)
		want     []string
	}{
		{name: "a second member", members: 1, want: []string{nr, leader, sibling + resched}},
		{name: "a third member", members: 2, want: []string{nr, leader, sibling, sibling + resched}},
		{name: "a disabled member", members: 1, disabled: true, want: []string{nr, leader, sibling + local}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mc := newMachine(t, 1, nil, pmu.Knobs{})
			l := &fragLog{}
			mc.m.OnSegments(l)
			n := 0 // the fragments logged when the last member's open starts
			mc.s.Spawn("opener", sched.MaskOf(0), sched.Call(func(t2 *sched.Task) {
				leader := cyclesAttr(100000)
				leader.ReadFormat = uapi.PERF_FORMAT_GROUP | uapi.PERF_FORMAT_ID
				group, err := mc.k.PerfEventOpen(t2, &leader, 0, -1, -1, 0)
				if err != nil {
					panic(err)
				}
				for i := 0; i < tc.members; i++ {
					a := swAttr(uapi.PERF_COUNT_SW_PAGE_FAULTS)
					a.ReadFormat = leader.ReadFormat
					if i == tc.members-1 {
						a.Disabled = tc.disabled
						n = len(l.frags)
					}
					if _, err := mc.k.PerfEventOpen(t2, &a, 0, -1, group, 0); err != nil {
						panic(err)
					}
				}
			}))
			if err := mc.m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range l.frags[n:] {
				if strings.HasPrefix(f[0], "perf_group_attach:") {
					got = append(got, strings.Join(f, ", "))
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("perf_group_attach()'s fragments (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGroupAuxMemberOpen: the open of an aux_pause or aux_resume member of
// an intel_pt group (c2's cycles/aux-action=pause/) is annotated, its
// perf_get_aux_event() too: the entry fragment writes the member's
// aux_event link, and the member's attach reaches its three step points.
// The group's first hardware member moves the group to the hardware PMU's
// pmu_ctx (intel_pt is in the software context: move_group), annotated
// since h16-d (pmu/footprint_move_group.go); neither is marked.
func TestGroupAuxMemberOpen(t *testing.T) {
	attach := []string{"perf_group_attach:list_add_tail", "perf_group_attach:nr_siblings", "perf_group_attach:header_size"}
	for _, tc := range []struct {
		name   string
		second bool // a plain hardware member opened first
		marks  []string
	}{
		{name: "the first hardware member: move_group annotated"},
		{name: "a second hardware member", second: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mc := newMachine(t, 1, nil, pmu.Knobs{})
			if err := mc.k.RegisterPMU(pt.New(mc.k, 1000, 4096, pt.DefaultCaps)); err != nil {
				t.Fatal(err)
			}
			l := &fragLog{}
			mc.m.OnSegments(l)
			n := 0
			mc.s.Spawn("opener", sched.MaskOf(0), sched.Call(func(t2 *sched.Task) {
				leader := pmu.Attr{Type: pt.TypeIntelPT, Size: uapi.AttrSize, AuxStartPaused: true, ExcludeUser: true}
				group, err := mc.k.PerfEventOpen(t2, &leader, 0, -1, -1, 0)
				if err != nil {
					panic(err)
				}
				if tc.second {
					a := cyclesAttr(100000)
					if _, err := mc.k.PerfEventOpen(t2, &a, 0, -1, group, 0); err != nil {
						panic(err)
					}
				}
				a := cyclesAttr(6800)
				a.AuxPause = true
				n = len(l.frags)
				if _, err := mc.k.PerfEventOpen(t2, &a, 0, -1, group, 0); err != nil {
					panic(err)
				}
			}))
			if err := mc.m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			type summary struct {
				Marks          []string // the UNAUDITED marks of the member's entry fragment
				AuxEventLinked bool     // it writes event->aux_event
				Starts         []string // the perf_group_attach step points reached after it
			}
			var got summary
			if l.frags[n][0] != "syscall_enter_from_user_mode" {
				t.Fatalf("the member's open starts with %q, want its syscall entry", l.frags[n][0])
			}
			for _, x := range l.frags[n][1:] {
				if strings.HasPrefix(x, "UNAUDITED ") {
					got.Marks = append(got.Marks, x)
				}
				got.AuxEventLinked = got.AuxEventLinked || x == "event->aux_event w"
			}
			for _, f := range l.frags[n+1:] {
				if strings.HasPrefix(f[0], "perf_group_attach:") && len(got.Starts) < len(attach) {
					got.Starts = append(got.Starts, f[0])
				}
			}
			want := summary{Marks: tc.marks, AuxEventLinked: true, Starts: attach}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the aux_pause member's open (-want +got):\n%s", diff)
			}
		})
	}
}
