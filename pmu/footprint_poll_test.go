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

// TestPollFootprint: poll(2) on a counting event of another task x, which
// exits later (pmu/footprint_poll.go). The poll's entry fragment (from
// syscall_enter_from_user_mode: the sys_enter hooks' looks, the fd's
// lookup, perf_poll()'s waitq, state, child list and rb, no ring here)
// up to "perf_poll:wait", and that fragment: signal_pending(), the
// task's state, its entry on the event's waitq, up to __schedule()'s step
// point. Nothing marked. x's exit wakes the poller (the waitq written by
// wake_up_all()), which finds the event hung up and returns.
func TestPollFootprint(t *testing.T) {
	mc := newMachine(t, 2, nil, pmu.Knobs{})
	l := &fragLog{}
	mc.m.OnSegments(l)
	x := mc.s.Spawn("x", sched.MaskOf(1), sched.Compute(20*sim.Microsecond))
	var ready, hup []int
	mc.s.Spawn("p", sched.MaskOf(0), sched.Call(func(t2 *sched.Task) {
		a := pmu.Attr{Type: uapi.PERF_TYPE_SOFTWARE, Size: uapi.AttrSize, Config: uapi.PERF_COUNT_SW_CPU_CLOCK}
		fd, err := mc.k.PerfEventOpen(t2, &a, x.PID, -1, -1, 0)
		if err != nil {
			panic(err)
		}
		ready, hup = mc.k.Poll(t2, []int{fd})
	}))
	if err := mc.m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	if len(ready) != 0 || len(hup) != 1 {
		t.Fatalf("poll: ready %v hup %v, want the one fd hung up", ready, hup)
	}
	var entry []string
	for _, f := range l.started("syscall_enter_from_user_mode") {
		if strings.Contains(f, "event->waitq") {
			entry = append(entry, f)
		}
	}
	want := []string{
		// the sys_enter tracepoints' looks (raw and per syscall), fdget()
		"tp_event->perf_refcount r, tp_event->perf_refcount r, task->files r, fdt->fd[] r, " +
			// perf_poll(): poll_wait() on event->waitq (the event's key and its pollers' queues), is_event_hup(), event->rb (none: no rb->poll)
			"event->waitq w, event->waitq w, event->state r, event->child_list r, event->rb r",
	}
	if diff := cmp.Diff(want, entry); diff != "" {
		t.Errorf("poll(2)'s entry (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"thread_info->flags r, p->__state w, event->waitq w, event->waitq w"}, l.started("perf_poll:wait")); diff != "" {
		t.Errorf("perf_poll:wait (-want +got):\n%s", diff)
	}
}
