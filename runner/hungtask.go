package runner

import (
	"fmt"
	"strings"

	"perfsim/sched"
)

// hungTasks is the hung-task detector at the end of a run that has nothing
// left to do but tasks still blocked: every task asleep in
// TASK_UNINTERRUPTIBLE on a kernel wait (sched.WaitUninterruptible) is
// reported as the hung-task invariant, with what it waits for and since when,
// and the run ends with a result (its outcomes judged). It reports whether it
// found one; a run whose blocked tasks all wait in user-visible waits (pipe,
// futex, wait4) stays the deadlock that hangError reports.
// kernel/hung_task.c: check_hung_task() ("INFO: task %s:%d blocked for more than %ld seconds.")
func (r *Run) hungTasks() bool {
	if !r.S.HungTaskOn() {
		return false
	}
	var others []string
	var hung []*sched.Task
	for _, t := range r.S.Blocked() {
		if on, _ := t.HungWait(); on != "" {
			hung = append(hung, t)
			continue
		}
		what := r.S.WaitingOn(t)
		if what == "" {
			what = "sleeping"
		}
		others = append(others, fmt.Sprintf("%s/%d (%s)", t.Comm, t.TID, what))
	}
	for _, t := range hung {
		on, since := t.HungWait()
		msg := fmt.Sprintf("INFO: task %s:%d blocked in D since %s (for %s when the run ran out of work; khungtaskd reports after hung_task_timeout_secs=120): %s; "+
			"nothing left can wake it: every other task exited or is blocked, no timer armed",
			t.Comm, t.TID, since, r.M.Now()-since, on)
		if len(others) > 0 {
			msg += " (also blocked: " + strings.Join(others, ", ") + ")"
		}
		r.addViolation(Violation{Invariant: "hung-task", T: r.M.Now(), CPU: -1, Message: msg})
	}
	found := len(hung) > 0
	return found
}
