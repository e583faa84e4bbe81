package sched

import (
	"fmt"

	"perfsim/cpu"
	"perfsim/sim"
)

// The soft-lockup side of the hang detector: a task spinning in a kernel
// spin-wait or retry loop (csd_lock_wait() in smp_call_function_single(),
// irq_work_sync(), task_function_call()'s -EAGAIN retry, the retry loops of
// event_function_call() and perf_install_in_context()) for longer than the
// livelock bound is reported through OnLockup and the run ends there: a spin
// that no schedule ends would otherwise run to the time limit.

// Lockup is a spin reported by SpinRound.
type Lockup struct {
	Task  *Task
	CPU   int
	Label string   // the loop's step point
	Since sim.Time // when the loop began
	What  string   // what it waits for, and the state of whatever must act
}

// SpinRound is one round of a spin-wait or retry loop of t, at the step
// point label, that began at start. Once the loop has spun for the livelock
// bound (Cfg.HungTaskTimeout, knob hung-task-timeout) it reports the lockup
// to OnLockup with what (asked only then), once: the caller's
// loop goes on (as the kernel's does) until the run stops. Without a bound
// or a listener it costs a comparison.
// kernel/watchdog.c: watchdog_timer_fn() ("BUG: soft lockup - CPU#%d stuck for %us!")
func (s *Sched) SpinRound(t *Task, start sim.Time, label string, what func() string) {
	to := s.HungTaskTimeout()
	if s.M.FootprintListening() {
		t.CPU().AccessMarkedOnly(lockupKey{s}, "softlockup report", cpu.MarkedRead, "watchdog_timer_fn") // kernel/watchdog.c: watchdog_timer_fn(): is_softlockup(), the report made once per run here (lockedUp)
	}
	if to == 0 || s.OnLockup == nil || s.M.Now()-start < sim.Time(to) || s.lockedUp {
		return
	}
	if s.M.FootprintListening() {
		t.CPU().AccessMarkedOnly(lockupKey{s}, "softlockup report", cpu.MarkedWrite, "watchdog_timer_fn")
	}
	s.lockedUp = true
	s.OnLockup(Lockup{Task: t, CPU: t.CPUID(), Label: label, Since: start, What: what()}) // t spins: it is on its CPU
}

// CPUState says what a CPU is doing, for a lockup's wait chain: the thread
// it runs, its context, whether irqs are off, the step point it last passed.
func (s *Sched) CPUState(id int) string {
	if id < 0 || id >= len(s.M.CPUs) {
		return fmt.Sprintf("cpu%d does not exist", id)
	}
	c := s.M.CPUs[id]
	who := "idle"
	if th := c.Curr(); th != nil {
		who = th.Name
	}
	ctx := "task context"
	switch {
	case c.InNMI():
		ctx = "in an NMI"
	case c.InIRQ():
		ctx = "in an interrupt"
	}
	irqs := "irqs on"
	if c.IrqsDisabled() {
		irqs = "irqs off"
	}
	return fmt.Sprintf("cpu%d runs %s (%s, %s, last step %s)", id, who, ctx, irqs, c.LastStep())
}

// lockupKey is the soft-lockup watchdog's state as the model keeps it: one
// lockup reported per run (lockedUp), by whichever spinning CPU passes its
// timeout first.
type lockupKey struct{ s *Sched }

// FootprintKey implements cpu.FootprintKeyer.
func (lockupKey) FootprintKey() string { return "softlockup" }

// FootprintExtent is where the model keeps what the key names (explore's
// write audit).
func (k lockupKey) FootprintExtent() []any { return []any{&k.s.lockedUp} }
