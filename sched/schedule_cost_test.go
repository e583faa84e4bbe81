package sched

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cost"
	"perfsim/cpu"
	"perfsim/sim"
)

// switchTimes logs when trace_sched_switch fires and when perf's sched-out
// (prepare_task_switch()) and sched-in (finish_task_switch()) hooks run.
type switchTimes struct {
	traceLog
	s   *Sched
	got []string
}

func (l *switchTimes) SchedSwitch(c *cpu.CPU, preempt bool, prev, next *Task, st int64) {
	l.got = append(l.got, fmt.Sprintf("%v sched_switch -> %s", l.s.M.Now(), name(next, c)))
}
func (l *switchTimes) SchedOut(c *cpu.CPU, prev, next *Task) {
	l.got = append(l.got, fmt.Sprintf("%v sched-out", l.s.M.Now()))
}
func (l *switchTimes) SchedIn(c *cpu.CPU, prev, next *Task) {
	l.got = append(l.got, fmt.Sprintf("%v sched-in", l.s.M.Now()))
}

// TestScheduleChargesSwitchWhereTheKernelSpendsIt: of a 1 us context switch
// whose SchedulePick is 300 ns, the 300 ns (pick_next_task()) come before
// trace_sched_switch() and perf's sched-out, the other 700 ns (switch_mm,
// switch_to) between the sched-out and the sched-in.
func TestScheduleChargesSwitchWhereTheKernelSpendsIt(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Cost = cost.Profile{Name: "test", ContextSwitch: sim.Microsecond, SchedulePick: 300 * sim.Nanosecond}
	m, s := newSched(t, 1, cfg)
	l := &switchTimes{s: s}
	s.TraceHooks = append(s.TraceHooks, l)
	s.SwitchHooks = append(s.SwitchHooks, l)
	s.Spawn("a", CPUMask{}, Compute(5*sim.Microsecond))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"300ns sched_switch -> a/101", "300ns sched-out", "1us sched-in", // from the boot idle at 0
		"6.3us sched_switch -> swapper/0", "6.3us sched-out", "7us sched-in", // a's exit at 6 us
	}
	if d := cmp.Diff(want, l.got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
