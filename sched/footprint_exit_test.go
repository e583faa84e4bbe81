package sched

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sim"
)

// exitFrags logs each task fragment's start and accesses ("field w",
// "field r", "field add", "UNAUDITED fn").
type exitFrags struct{ frags [][]string }

func (l *exitFrags) Boundary(_ *cpu.CPU, kind cpu.BoundaryKind, _ cpu.Context, _ *cpu.Thread, label string) {
	if kind == cpu.BoundaryResume {
		label = "resume" // a fragment that goes on after the engine resumed the lane
	}
	l.frags = append(l.frags, []string{label})
}

func (l *exitFrags) add(s string) {
	if len(l.frags) > 0 {
		l.frags[len(l.frags)-1] = append(l.frags[len(l.frags)-1], s)
	}
}

func (l *exitFrags) Touch(obj any, field string, write bool) {
	switch u, ok := obj.(cpu.Unaudited); {
	case ok:
		l.add("UNAUDITED " + string(u))
	case write:
		l.add(field + " w")
	default:
		l.add(field + " r")
	}
}

func (l *exitFrags) TouchAdd(_ any, field string) { l.add(field + " add") }

// exiting is every fragment that runs do_exit() (its exit_signals()'s
// PF_EXITING write), as "START: accesses".
func (l *exitFrags) exiting() []string {
	var out []string
	for _, f := range l.frags {
		if strings.Contains(strings.Join(f[1:], ", "), "task->flags w") {
			out = append(out, f[0]+": "+strings.Join(f[1:], ", "))
		}
	}
	return out
}

// TestExitFootprint: the fragments that run do_exit() (footprint_exit.go)
// with no perf (no hooks): the end of the program after a syscall's return,
// exit_group(2) (its do_group_exit(): the group's flag), and a forked
// child whose parent waits in wait4() (__wake_up_parent() wakes it:
// marked), then the parent's own exit, which reparents nothing.
func TestExitFootprint(t *testing.T) {
	const (
		// exit_signals(), signal->live, exit_mm() (current->mm, mm_users),
		// exit_files() (current->files, the table's count: the kernel's
		// key and the model's; the last user's close_files(): the table),
		// exit_task_work()'s look at no work
		start = "task->flags w, signal->live w, task->mm w, mm->mm_users w, task->files w, files->count w, files->count w, fdt->fd[] w, fdt->fd[] w, task->task_works r, "
		// the state, signal->live, the group's and the task's sigqueues,
		// the cgroup's population
		dead = "p->__state w, signal->live w, signal->shared_pending w, task->pending w, cset->nr_tasks add, "
		// the parent pointer read (do_notify_parent()), the exec waiter's look
		noParent = "p->real_parent r, p->exit_state w, signal->group_exec_task r"
	)
	for _, tc := range []struct {
		name string
		prog []Op
		want []string
	}{
		{name: "the program's end after a syscall", prog: []Op{Syscall("getpid"), Compute(sim.Microsecond)}, want: []string{
			// the thread flags, the return to user, then do_exit()
			"exit_to_user_mode_loop: thread_info->flags r, TIF_NEED_RESCHED r, task_pt_regs(current) w, task_pt_regs(current) w, " + start + dead + noParent}},
		{name: "exit_group(2)", prog: []Op{ExitGroup()}, want: []string{
			// the entry's registers, do_group_exit()'s flag, then do_exit()
			"syscall_enter_from_user_mode: signal->flags w, " + start + dead + noParent}},
		{name: "a child its parent waits for", prog: []Op{Fork("child", 0, Compute(sim.Microsecond)), Wait4()}, want: []string{
			// the child, from its first switch in (finish_task_switch(),
			// resumed):
			// its parent's wait queue written, the waiter woken (the
			// wake-up's own accesses, annotated: footprint_wake.go), then
			// what follows the wake-up (accessAfterNotify)
			"resume: rq->balance_callback r, p->migration_pending r, p->se (exec_start, wake_cpu) w, thread_info->flags r, TIF_NEED_RESCHED r, task_pt_regs(current) w, task_pt_regs(current) w, " + start + dead +
				"p->real_parent r, signal->wait_chldexit w, signal->group_exec_task r, " +
				"p->__state w, p->on_rq r, p->se r, p->on_cpu r, sync w, rq->nr_running r, rq->balance_callback r, p->on_cpu r, p->__state r, p->wakee_flips w, p->wakee_flips r, p->recent_used_cpu w, p->se (exec_start, wake_cpu) r, rq->nr_running r, p->se r, p->on_cpu r, p->on_cpu r, TIF_NEED_RESCHED r, p->__state w, p->se w, rq->nr_running w, p->on_rq w, p->se w, rq->nr_running w, p->se w, rq->nr_running w, p->se w, p->se w, " +
				"signal->group_exec_task r, p->__state w",
			// the parent, back from wait4(): its exit, no child left
			"exit_to_user_mode_loop: thread_info->flags r, TIF_NEED_RESCHED r, task_pt_regs(current) w, task_pt_regs(current) w, " + start + dead + noParent}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, s := newSched(t, 1, DefaultConfig())
			l := &exitFrags{}
			s.Spawn("a", MaskOf(0), tc.prog...)
			m.OnSegments(l)
			if err := m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, l.exiting()); diff != "" {
				t.Errorf("do_exit()'s fragments (-want +got):\n%s", diff)
			}
		})
	}
}
