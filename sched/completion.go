package sched

// Completion is struct completion: complete() counts a done the next
// wait_for_completion() consumes, and wakes the waiter, which sleeps in D
// until there is one (the hung-task detector sees it). The hotplug's
// waits use it: cpuhp/N's done (wait_for_ap_thread()), a kthread's parked
// (kthread_park()), stop_machine's cpu_stop_done.
// include/linux/completion.h: struct completion; kernel/sched/completion.c
type Completion struct {
	done int
	q    WaitQueue
}

// Complete is complete(x): one done, the waiter woken.
// kernel/sched/completion.c: complete()
func (s *Sched) Complete(x *Completion) {
	x.done++
	s.WakeUpAll(&x.q)
}

// Reinit is reinit_completion(x): no done left.
func (x *Completion) Reinit() { x.done = 0 }

// WaitForCompletion is wait_for_completion(x) by t: it sleeps in D until x
// has a done, and consumes it. on says what it waits for and next which
// task must complete it (the hung-task report's wait chain).
// kernel/sched/completion.c: wait_for_completion()
func (s *Sched) WaitForCompletion(t *Task, x *Completion, on func() string, next func() *Task) {
	since := s.M.Now()
	for x.done == 0 {
		s.WaitUninterruptibleFor(t, &x.q, on, next, since)
	}
	x.done--
}
