package runner

import (
	"fmt"
	"strings"

	"perfsim/sched"
	"perfsim/sim"
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
	var hung []*sched.Task
	blocked := r.S.Blocked()
	for _, t := range blocked {
		if _, ok := t.HungSince(); ok {
			hung = append(hung, t)
		}
	}
	if len(hung) == 0 {
		return false
	}
	var others []string // described only for a report
	for _, t := range blocked {
		if _, ok := t.HungSince(); ok {
			continue
		}
		what := r.S.WaitingOn(t)
		if what == "" {
			what = "sleeping"
		}
		others = append(others, fmt.Sprintf("%v (%s)", t, what))
	}
	for _, t := range hung {
		on, since := t.HungWait()
		msg := fmt.Sprintf("INFO: task %s:%d blocked in D since %s (for %s when the run ran out of work; khungtaskd reports after hung_task_timeout_secs=120)%s: %s%s; "+
			"nothing left can wake it: every other task exited or is blocked, no timer armed",
			t.Comm, t.TID, since, r.M.Now()-since, hungStepOf(t), on, r.waitChain(t))
		if len(others) > 0 {
			msg += " (also blocked: " + strings.Join(others, ", ") + ")"
		}
		r.addViolation(Violation{Invariant: "hung-task", T: r.M.Now(), CPU: -1, Message: msg})
	}
	return true
}

// hungStepOf names the step point where t went to sleep in D.
func hungStepOf(t *sched.Task) string {
	step, c := t.HungStep()
	if step == "" {
		return ""
	}
	return fmt.Sprintf(", asleep after step %s on cpu%d", step, c)
}

// waitChain follows t's wait in D to the task that must act to end it
// (sched.Task.HungNext), and on while that task is itself in D, until a task
// that is not, or a task already in the chain (a cycle: the tasks wait for
// each other). "" when t's wait names no such task.
func (r *Run) waitChain(t *sched.Task) string {
	next := t.HungNext()
	if next == nil {
		return ""
	}
	seen := map[*sched.Task]bool{t: true}
	chain := t.String()
	for cur := next; cur != nil; cur = cur.HungNext() {
		name := cur.String()
		if seen[cur] {
			if cur == t && next == t {
				return fmt.Sprintf("; wait chain: %s -> itself (a self-deadlock)", chain)
			}
			return fmt.Sprintf("; wait chain: %s -> %s (a cycle: each waits for the next)", chain, name)
		}
		seen[cur] = true
		_, inD := cur.HungSince()
		switch {
		case inD:
			on, _ := cur.HungWait()
			chain += fmt.Sprintf(" -> %s, in D%s: %s", name, hungStepOf(cur), on)
		case cur.State == sched.Dead:
			chain += " -> " + name + " (exited: it will never run the work)"
			return "; wait chain: " + chain
		default:
			what := r.S.WaitingOn(cur)
			if what == "" {
				what = "runnable"
				if cur.State == sched.Sleeping {
					what = "sleeping"
				}
			}
			chain += fmt.Sprintf(" -> %s (%s)", name, what)
			return "; wait chain: " + chain
		}
	}
	return "; wait chain: " + chain
}

// runWatched runs the machine to the time limit with the timed hung-task
// check (knob hung-task-timeout) watching: each task that goes to sleep in D
// on a kernel wait has the run stop for a look when its timeout is due; a
// task still asleep on that wait then is reported (hungTimedCheck) and the
// run ends there. Without a task in D the run is one Run, as without the
// check (the looks change no schedule: sim.Engine.StopBy).
// kernel/hung_task.c: watchdog() -> check_hung_uninterruptible_tasks()
func (r *Run) runWatched() error {
	if r.S.HungTaskTimeout() == 0 {
		return r.M.Run(r.limit)
	}
	r.hungDue = sim.Never
	r.S.OnHungWait = func(_ *sched.Task, due sim.Time) {
		r.hungDue = min(r.hungDue, due)
		r.M.Eng.StopBy(due)
	}
	r.S.OnLockup = r.softLockup
	for {
		due := r.hungDue
		err := r.M.Run(min(r.limit, due))
		due = r.hungDue // a wait that began during the Run may have brought it forward
		if r.hungTimed {
			return err // a soft lockup stopped the run
		}
		if err != nil || due > r.limit || r.stopped() || !r.M.Eng.Pending() {
			return err
		}
		if r.hungTimedCheck(due) {
			r.hungTimed = true
			return nil
		}
		r.hungDue = r.nextHungDue(due)
	}
}

// nextHungDue is the next look the timed check needs after the one at
// after: the earliest timeout of a task still asleep in D on a kernel wait.
func (r *Run) nextHungDue(after sim.Time) sim.Time {
	next := sim.Never
	to := sim.Time(r.S.HungTaskTimeout())
	for _, t := range r.S.Blocked() {
		if since, ok := t.HungSince(); ok && since+to > after {
			next = min(next, since+to)
		}
	}
	return next
}

// hungTimedCheck is khungtaskd's look at due: every task asleep in D on a
// kernel wait for at least the timeout is reported as the hung-task
// invariant, with its wait chain and the tasks that still run. It reports
// whether it found one.
// kernel/hung_task.c: check_hung_task() ("INFO: task %s:%d blocked for more than %ld seconds.")
func (r *Run) hungTimedCheck(due sim.Time) bool {
	to := r.S.HungTaskTimeout()
	var running []string // the tasks still running, listed at the first report
	found := false
	for _, t := range r.S.Blocked() {
		if since, ok := t.HungSince(); !ok || since+sim.Time(to) > due {
			continue
		}
		on, since := t.HungWait()
		if !found {
			for _, u := range r.S.Tasks {
				if u.State == sched.Runnable {
					running = append(running, u.String())
				}
			}
		}
		found = true
		msg := fmt.Sprintf("INFO: task %s:%d blocked for more than %s (hung-task-timeout=%s: the kernel's hung_task_timeout_secs=120 in the run's time scale) in D since %s%s: %s%s",
			t.Comm, t.TID, to, r.Knobs["hung-task-timeout"], since, hungStepOf(t), on, r.waitChain(t))
		if len(running) > 0 {
			msg += "; other tasks still run (" + strings.Join(running, ", ") + "), so the run would go on to its time limit: it ends here"
		}
		r.addViolation(Violation{Invariant: "hung-task", T: due, CPU: -1, Message: msg})
	}
	return found
}

// softLockup reports a spin-wait or retry loop that spun past the livelock
// bound (sched.SpinRound) as the soft-lockup invariant and ends the run.
// kernel/watchdog.c: watchdog_timer_fn() ("BUG: soft lockup - CPU#%d stuck for %us! [%s:%d]")
func (r *Run) softLockup(l sched.Lockup) {
	msg := fmt.Sprintf("watchdog: BUG: soft lockup - CPU#%d stuck for %s [%s:%d] (the livelock bound, hung-task-timeout=%s: the kernel's 2*watchdog_thresh=20s in the run's time scale), "+
		"spinning since %s at step %s: %s; the run ends here",
		l.CPU, r.M.Now()-l.Since, l.Task.Comm, l.Task.TID, r.Knobs["hung-task-timeout"], l.Since, l.Label, l.What)
	r.addViolation(Violation{Invariant: "soft-lockup", T: r.M.Now(), CPU: l.CPU, Message: msg})
	r.hungTimed = true
	r.M.Eng.Stop()
}
