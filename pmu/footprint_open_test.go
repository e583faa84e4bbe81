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

// TestOpenFootprints: what perf_event_open(2)'s entry fragment annotates
// from the syscall's entry to its first step point
// (pmu/footprint_open.go), exactly: an event on the caller (pid 0) up to
// __perf_install_in_context's step point (the task runs here: a local
// call), an event of a CPU up to the IPI's wait, a group member (its
// leader's fields read), a move_group's pmu_ctx moves, a tracepoint's up
// to perf_trace_init()'s step point.
func TestOpenFootprints(t *testing.T) {
	const (
		// the sys_enter tracepoints looked up (sched's entry, pmu/footprint_entry.go)
		entry = "tp_event->perf_refcount r, tp_event->perf_refcount r"
		// get_unused_fd_flags(): the caller's table looked up and written (the kernel's key and the model's)
		fd = "task->files r, fdt->fd[] r, fdt->fd[] w, fdt->fd[] w"
		// perf_event_alloc(): perf_event_id (written, read back), the model's tables, the new event
		alloc = "perf_event_id w, perf_event_id r, perf_event_id w, perf_event w, event->state w"
		// ctx->mutex (made on first use: its memo), taken (the owner word, the locks current holds, the lock's clock)
		mutex = "sync w, sync w, current->lockdep_depth w, sync w"
		// find_get_pmu_context() under ctx->lock (and its clock), then perf_install_in_context()'s start
		install = "ctx->event_list w, epc->refcount w, ctx->lock w, sync w, ctx->lock w, sync w, ctx->task r, event->ctx w, event->state r, ctx->event_list r"
	)
	for _, tc := range []struct {
		name  string
		cpus  int
		pid   int
		cpu   int
		group bool   // opened as a member of a group the first event leads
		swap  bool   // ... of a group a software event leads (the hardware member moves it: move_group)
		tp    string // a tracepoint's event, as perf record sets it
		want  string // the open's entry fragment (the last one's, with a group)
		has   string // or the mark it has (the body itself not marked)
	}{
		{name: "cycles of the caller", cpus: 1, pid: 0, cpu: -1, want: entry + ", " + fd +
			// find_lively_task_by_vpid(0): get_task_struct(current); then the event's target's
			", task->usage w, " + alloc + ", task->usage w, " +
			// find_get_context(): the task's first context, made (its task's reference), published, pinned under ctx->lock
			"task->perf_event_ctxp r, task->flags r, perf_event_context w, task->usage w, task->perf_event_ctxp w, task->perf_event_ctxp w, " +
			"ctx->lock w, sync w, ctx->pin_count w, ctx->lock w, sync w, ctx->refcount w, " +
			mutex + ", ctx->task r, " + install +
			// the task alive; task_function_call() to where it runs (here: a local call) and remote_function()'s look
			", ctx->task r, p->se (exec_start, wake_cpu) r, p->on_cpu r, cpu_online_mask r, p->se (exec_start, wake_cpu) r, p->on_cpu r"},
		{name: "cycles of cpu1", cpus: 2, pid: -1, cpu: 1, want: entry + ", " + fd + ", " + alloc + ", " +
			// the CPU's context (the model pins none); under ctx->mutex, its task (none) and its online check
			mutex + ", ctx->task r, cpuctx->online r, " + install +
			// cpu_function_call(): the IPI raised on cpu1 (a post), then the wait's step
			", cpu_online_mask r, posts w"},
		// A group member: the leader's fd looked up and what the checks read of the leader, then as above; the context found
		// (its refcount taken) and pinned, its epc's refcount taken.
		{name: "a group member", cpus: 1, pid: 0, cpu: -1, group: true, want: entry + ", " + fd +
			", task->files r, fdt->fd[] r, event->state r, event->group_leader r, event->sibling_list r, event->ctx r, event->pmu_ctx r, task->usage w, " + alloc +
			", task->usage w, task->perf_event_ctxp r, ctx->task r, ctx->refcount w, ctx->lock w, sync w, ctx->pin_count w, ctx->lock w, sync w, ctx->refcount w, " +
			"sync w, current->lockdep_depth w, sync w, ctx->task r, " + install +
			", event->state r, ctx->task r, p->se (exec_start, wake_cpu) r, p->on_cpu r, cpu_online_mask r, p->se (exec_start, wake_cpu) r, p->on_cpu r"},
		// move_group (pmu/footprint_move_group.go): the software leader's epc put (the last reference: unlinked under ctx->lock,
		// its free queued), the leader's pmu_ctx set to the new hardware epc and its reference taken; then the install as above
		{name: "a group's hardware member: move_group", cpus: 1, pid: 0, cpu: -1, group: true, swap: true, want: entry + ", " + fd +
			", task->files r, fdt->fd[] r, event->state r, event->group_leader r, event->sibling_list r, event->ctx r, event->pmu_ctx r, task->usage w, " + alloc +
			", task->usage w, task->perf_event_ctxp r, ctx->task r, ctx->refcount w, ctx->lock w, sync w, ctx->pin_count w, ctx->lock w, sync w, ctx->refcount w, " +
			"sync w, current->lockdep_depth w, sync w, ctx->task r, ctx->event_list w, epc->refcount w, ctx->lock w, sync w, ctx->lock w, sync w, " +
			"epc->refcount w, ctx->event_list w, epc (freed) w, event->pmu_ctx w, epc->refcount w, ctx->lock w, sync w, ctx->lock w, sync w, " +
			"ctx->task r, event->ctx w, event->state r, ctx->event_list r, event->state r, ctx->task r, p->se (exec_start, wake_cpu) r, p->on_cpu r, cpu_online_mask r, p->se (exec_start, wake_cpu) r, p->on_cpu r"},
		// A tracepoint's event_init (pmu/footprint_tp_init.go): the event's id (the kernel's counter, the model's), its slot
		// made on first use (the registration its readers test, the model's table), then perf_trace_init()'s event_mutex
		// taken, up to its step point.
		{name: "a tracepoint: its event_init annotated", cpus: 1, pid: 0, cpu: -1, tp: "syscalls:sys_enter_getpid", want: entry + ", " + fd +
			", task->usage w, perf_event_id w, perf_event_id w, tp_event->perf_refcount w, slots w, sync w, current->lockdep_depth w, sync w"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mc := newMachine(t, tc.cpus, nil, pmu.Knobs{})
			l := &fragLog{}
			mc.m.OnSegments(l)
			mc.s.Spawn("opener", sched.MaskOf(0), sched.Call(func(t2 *sched.Task) {
				a := cyclesAttr(100000)
				if tc.tp != "" {
					a = tracepointAttrs(t, tc.tp)[0]
					a.Inherit, a.Disabled, a.EnableOnExec = false, false, false
				}
				group := -1
				if tc.group {
					leader, member := a, swAttr(uapi.PERF_COUNT_SW_PAGE_FAULTS)
					if tc.swap {
						leader, member = member, leader
					}
					fd, err := mc.k.PerfEventOpen(t2, &leader, tc.pid, tc.cpu, -1, 0)
					if err != nil {
						panic(err)
					}
					group, a = fd, member
				}
				if _, err := mc.k.PerfEventOpen(t2, &a, tc.pid, tc.cpu, group, 0); err != nil {
					panic(err)
				}
			}))
			if err := mc.m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			var opens []string // the entry fragments that allocate an event
			for _, f := range l.frags {
				if f[0] == "syscall_enter_from_user_mode" && (slices.Contains(f, "perf_event_id w") || slices.Contains(f, "UNAUDITED sys_perf_event_open")) {
					opens = append(opens, strings.Join(f[1:], ", "))
				}
			}
			if len(opens) == 0 {
				t.Fatalf("no perf_event_open entry fragment in %q", l.frags)
			}
			got := opens[len(opens)-1]
			if tc.has != "" {
				if !strings.Contains(got, tc.has) || strings.Contains(got, "UNAUDITED sys_perf_event_open") {
					t.Errorf("want %q, the body not marked: %q", tc.has, got)
				}
				return
			}
			if diff := cmp.Diff(strings.Split(tc.want, ", "), strings.Split(got, ", ")); diff != "" {
				t.Errorf("the open's entry fragment (-want +got):\n%s", diff)
			}
		})
	}
}
