package sched

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// TestWaitStepFootprint: a program's wait step enters wait4() through the
// annotated do_wait() perf record's wait uses (WaitChild): the fragments
// that scan the children (do_wait_thread()'s list, each child's
// exit_state) reach no unaudited mark. The step went through a body
// nobody annotated, every such fragment marked "sys_wait4".
func TestWaitStepFootprint(t *testing.T) {
	m, s := newSched(t, 1, DefaultConfig())
	l := &exitFrags{}
	s.Spawn("a", MaskOf(0), Fork("child", 0, Compute(sim.Microsecond)), Wait4())
	m.OnSegments(l)
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range l.frags {
		if acc := strings.Join(f[1:], ", "); strings.Contains(acc, "p->children r") {
			got = append(got, f[0]+": "+acc)
		}
	}
	want := []string{
		// the first scan: the child still runs
		"syscall_enter_from_user_mode: p->children r, p->__state r",
		// woken by the child's exit (finish_task_switch(), resumed): off
		// wait_chldexit, the thread flags (signal_pending()), the scan
		// again, the zombie reaped (wait_task_zombie(), release_task()),
		// the return value (the child's pid in regs->ax), the registers
		// written back
		"resume: rq->balance_callback r, p->migration_pending r, p->se (exec_start, wake_cpu) w, signal->wait_chldexit w, thread_info->flags r, p->children r, p->__state r, p->__state w, p->children w, task_pt_regs(current) w, task_pt_regs(current) w",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("do_wait()'s fragments (-want +got):\n%s", diff)
	}
}
