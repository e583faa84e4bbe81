package sched

import (
	"perfsim/cpu"
	"perfsim/sim"
)

// A major fault reads the page from disk: the fault handler submits the
// read and sleeps on the locked folio until the I/O completion unlocks it
// (filemap_fault() -> __folio_lock_or_retry() -> folio_wait_locked_killable(),
// TASK_KILLABLE, which sched_switch reports as D); another task runs
// meanwhile. The completion is an interrupt on the CPU that submitted the
// read (blk-mq completes on the submitting CPU), which wakes the task.

// StateReportUninterruptible is what sched_switch reports for a task
// sleeping in TASK_UNINTERRUPTIBLE or TASK_KILLABLE: D
// (__trace_sched_switch_state() masks TASK_WAKEKILL off).
const StateReportUninterruptible = 0x0002

// ioWait puts t to sleep uninterruptibly until an I/O completion interrupt
// on its CPU d from now wakes it.
// mm/filemap.c: folio_wait_locked_killable() -> io_schedule()
func (s *Sched) ioWait(t *Task, d sim.Duration) {
	c := t.CPU()
	if t.ioTimer == nil || t.ioTimer.CPU() != c {
		if t.ioTimer != nil {
			t.ioTimer.Cancel()
		}
		t.ioTimer = c.NewTimer(false, cpu.Interrupt{Name: "blk-mq-complete:" + t.Comm, Fn: func(*cpu.CPU) { s.Wake(t) }})
	}
	t.ioTimer.Arm(c.Now() + d)
	t.fam.uninterruptible = true
	t.State = Sleeping
	s.schedule(&t.Thread)
	t.fam.uninterruptible = false
}
