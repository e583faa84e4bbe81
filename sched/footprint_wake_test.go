package sched

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sim"
)

// fragAccesses is a cpu.SegmentListener that logs the accesses of the
// fragments that start at the step points and handler entries it is
// asked about: "START: key field R|W", or "START: unaudited FN".
type fragAccesses struct {
	starts map[string]bool
	cur    string // the fragment running, when it is one of starts
	log    []string
}

func (l *fragAccesses) Boundary(c *cpu.CPU, kind cpu.BoundaryKind, _ cpu.Context, _ *cpu.Thread, label string) {
	switch kind {
	case cpu.BoundaryStep, cpu.BoundaryEnter: // a step point's label, "enter:NAME"
		label = label + "@cpu" + itoaTest(c.ID)
	default:
		l.cur = "" // a resume or a handler's return: no start of interest goes on
		return
	}
	l.cur = ""
	if l.starts[label] {
		l.cur = label
	}
}

func (l *fragAccesses) Touch(obj any, field string, write bool) {
	if l.cur == "" {
		return
	}
	if u, ok := obj.(cpu.Unaudited); ok {
		l.log = append(l.log, l.cur+": unaudited "+string(u))
		return
	}
	key, ok := cpu.FootprintKey(obj)
	if !ok {
		key = "(no stable key)"
	}
	op := "R"
	if write {
		op = "W"
	}
	l.log = append(l.log, l.cur+": "+key+" "+field+" "+op)
}

func itoaTest(i int) string { return string(rune('0' + i)) }

// wakeSelect is what both wakes' try_to_wake_up() does on cpu0 before the
// paths part: the pipe's mutex, p's state and fields, and
// select_task_rq_fair()'s look at each CPU.
var wakeSelect = []string{
	"pipe_write:copied@cpu0: pipe:p pipe->mutex W",
	// try_to_wake_up(): p->__state, on_rq, se, on_cpu
	"pipe_write:copied@cpu0: thread:b-102 p->__state W",
	"pipe_write:copied@cpu0: thread:b-102 p->on_rq R",
	"pipe_write:copied@cpu0: thread:b-102 p->se R",
	"pipe_write:copied@cpu0: thread:b-102 p->on_cpu R",
	"pipe_write:copied@cpu0: thread:b-102 sync W",
	// select_task_rq_fair(): each CPU (run queue, active, curr), record_wakee(), wake_wide(), recent_used_cpu, wake_cpu
	"pipe_write:copied@cpu0: rq@cpu0 rq->nr_running R",
	"pipe_write:copied@cpu0: rq@cpu0 rq->balance_callback R",
	"pipe_write:copied@cpu0: thread:a-101 p->on_cpu R",
	"pipe_write:copied@cpu0: rq@cpu1 rq->nr_running R",
	"pipe_write:copied@cpu0: rq@cpu1 rq->balance_callback R",
	"pipe_write:copied@cpu0: thread:swapper/1 p->on_cpu R",
	"pipe_write:copied@cpu0: thread:a-101 p->__state R",
	"pipe_write:copied@cpu0: thread:a-101 p->wakee_flips W",
	"pipe_write:copied@cpu0: thread:b-102 p->wakee_flips R",
	"pipe_write:copied@cpu0: thread:b-102 p->recent_used_cpu W",
	"pipe_write:copied@cpu0: thread:b-102 p->se (exec_start, wake_cpu) R",
}

// TestWakeFootprint: the exact footprint of a wake-up of b, asleep on a
// pipe on idle cpu1, by a's write on cpu0: through cpu1's wake list
// (the waker's fragment from pipe_write:copied up to the wake list's step
// point, that window up to a's return to user mode, the IPI's entry on
// cpu1 and sched_ttwu_pending's activation there), and, with TTWU_QUEUE
// off, directly from cpu0 (enqueue on cpu1's run queue, the reschedule
// IPI). Nothing marked: every access annotated with its stable key.
func TestWakeFootprint(t *testing.T) {
	for _, tc := range []struct {
		name   string
		noWL   bool
		starts []string
		want   []string
	}{
		{
			name:   "through the wake list",
			starts: []string{"pipe_write:copied@cpu0", "ttwu_queue_wakelist@cpu0", "enter:call_function_single@cpu1", "sched_ttwu_pending@cpu1"},
			want: append(slices.Clone(wakeSelect),
				"pipe_write:copied@cpu0: rq@cpu1 rq->balance_callback R",
				"pipe_write:copied@cpu0: rq@cpu1 rq->nr_running R",
				"pipe_write:copied@cpu0: thread:swapper/1 p->on_cpu R",
				"pipe_write:copied@cpu0: thread:b-102 p->se (exec_start, wake_cpu) W",
				// __ttwu_queue_wakelist(): llist_add(), rq->ttwu_pending
				"pipe_write:copied@cpu0: wake_list@cpu1 rq->wake_list W",
				"pipe_write:copied@cpu0: rq@cpu1 rq->nr_running W",
				// the IPI raised; the return to user mode
				"ttwu_queue_wakelist@cpu0: machine posts W",
				"ttwu_queue_wakelist@cpu0: thread:a-101 task_pt_regs(current) W",
				// the IPI taken: llist_del_all()
				"enter:call_function_single@cpu1: cpu1 pending W",
				"enter:call_function_single@cpu1: ipi@cpu1 sync W",
				"enter:call_function_single@cpu1: wake_list@cpu1 rq->wake_list W",
				"enter:call_function_single@cpu1: rq@cpu1 rq->nr_running W",
				// ttwu_do_activate() on cpu1: the cfs_rq, curr, TIF_NEED_RESCHED read; the enqueue; resched_curr() of the idle CPU
				"sched_ttwu_pending@cpu1: thread:b-102 p->__state R",
				"sched_ttwu_pending@cpu1: thread:b-102 p->__state W",
				"sched_ttwu_pending@cpu1: rq@cpu1 rq->nr_running R",
				"sched_ttwu_pending@cpu1: thread:swapper/1 p->on_cpu R",
				"sched_ttwu_pending@cpu1: thread:b-102 p->on_cpu R",
				"sched_ttwu_pending@cpu1: cpu1 TIF_NEED_RESCHED R",
				"sched_ttwu_pending@cpu1: thread:b-102 p->__state W",
				"sched_ttwu_pending@cpu1: rq@cpu1 rq->nr_running W",
				"sched_ttwu_pending@cpu1: thread:b-102 p->on_rq W",
				"sched_ttwu_pending@cpu1: rq@cpu1 rq->nr_running W",
				"sched_ttwu_pending@cpu1: thread:b-102 p->se W",
				"sched_ttwu_pending@cpu1: rq@cpu1 rq->nr_running W",
				"sched_ttwu_pending@cpu1: thread:b-102 p->se W",
				"sched_ttwu_pending@cpu1: cpu1 TIF_NEED_RESCHED W",
			),
		},
		{
			name:   "direct",
			noWL:   true,
			starts: []string{"pipe_write:copied@cpu0"},
			want: append(slices.Clone(wakeSelect),
				"pipe_write:copied@cpu0: rq@cpu1 rq->nr_running R",
				"pipe_write:copied@cpu0: thread:swapper/1 p->on_cpu R",
				"pipe_write:copied@cpu0: thread:b-102 p->on_cpu R",
				// ttwu_do_activate() from cpu0 (TTWU_QUEUE off)
				"pipe_write:copied@cpu0: cpu1 TIF_NEED_RESCHED R",
				"pipe_write:copied@cpu0: thread:b-102 p->__state W",
				"pipe_write:copied@cpu0: rq@cpu1 rq->nr_running W",
				"pipe_write:copied@cpu0: thread:b-102 p->on_rq W",
				"pipe_write:copied@cpu0: rq@cpu1 rq->nr_running W",
				"pipe_write:copied@cpu0: thread:b-102 p->se W",
				"pipe_write:copied@cpu0: rq@cpu1 rq->nr_running W",
				"pipe_write:copied@cpu0: thread:b-102 p->se W",
				"pipe_write:copied@cpu0: cpu1 TIF_NEED_RESCHED W",
				// the reschedule IPI; the return to user mode
				"pipe_write:copied@cpu0: machine posts W",
				"pipe_write:copied@cpu0: thread:a-101 task_pt_regs(current) W",
			),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.NoTTWUQueue = tc.noWL
			m, s := newSched(t, 2, cfg)
			l := &fragAccesses{starts: map[string]bool{}}
			for _, st := range tc.starts {
				l.starts[st] = true
			}
			s.Spawn("a", MaskOf(0), Compute(5*sim.Microsecond), PipeWrite("p", 1))
			s.Spawn("b", MaskOf(1), PipeRead("p", 1))
			m.OnSegments(l)
			if err := m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, l.log); diff != "" {
				t.Errorf("footprints (-want +got):\n%s", diff)
			}
		})
	}
}
