package pmu

import (
	"perfsim/cpu"
	"perfsim/sched"
)

// The footprint of poll(2) on perf fds (Kernel.Poll: fs/select.c
// do_sys_poll() -> do_poll(), and perf_poll() for each fd), so that its
// fragments may be complete:
//
//   - the body enters as annotated (sched.Sched.SyscallAnnotated): each
//     round looks each fd up (lookup annotates the fd table), queues the
//     poller on the event's waitq (poll_wait(): event->waitq written),
//     reads event->state and event->child_list (is_event_hup()) and
//     event->rb, and takes the ring's poll state (atomic_xchg(&rb->poll,
//     0): rb->poll written, as perf_output_wakeup() writes it);
//   - "perf_poll:wait", declared complete: nothing ready, the poller
//     sleeps (sched.Sched.WaitAnnotated): signal_pending() read, its state
//     set (p->__state, which try_to_wake_up() reads), the entry on its
//     queue (the waitq of each event it polls) up to __schedule()'s step
//     point; or a signal pending: the entries taken off the events'
//     waitqs, the syscall's exit;
//   - the return from schedule() into the body (no longer "schedule()'s
//     caller", marked): the entries taken off (accessPollWoken),
//     signal_pending() read, and the next round as above, up to
//     "perf_poll:wait" again or the syscall's exit.
//
// The waker's side: wake_up_all(&event->waitq) writes the waitq
// (Event.wakeUpAll: accessWakeWaitq) and wakes the poller with sched's
// try_to_wake_up(), annotated (sched/footprint_wake.go), its return into
// a caller nobody annotated marked there; ring_buffer_attach() reads the
// waitq (mmap.go) and marks its wake-up.
func init() {
	cpu.DeclareComplete("perf_poll:wait")
}

// waitqKey is the pollers' queues on event->waitq (the model's one
// sched.WaitQueue per poll(2), which the poller's sleep and the waker's
// wake_up_all() write): "event#N/waitq", its extent those queues, for
// explore's write audit. Every access of the waitq is annotated on the
// event too (accessWaitq), as ring_buffer_attach()'s look is (mmap.go).
type waitqKey struct{ e *Event }

// FootprintKey implements cpu.FootprintKeyer.
func (k waitqKey) FootprintKey() string { return k.e.FootprintKey() + "/waitq" }

// FootprintExtent implements the write audit's extent.
func (k waitqKey) FootprintExtent() []any {
	out := make([]any, 0, len(k.e.pollers))
	for _, q := range k.e.pollers {
		out = append(out, q)
	}
	return out
}

// accessWaitq annotates an access of e's waitq: on the event (the
// footprint other code annotates it with) and on its pollers' queues.
func accessWaitq(c *cpu.CPU, e *Event, op cpu.AccessOp, fn string) {
	c.AccessMarkedOnly(e, "event->waitq", op, fn)
	c.AccessMarkedOnly(waitqKey{e}, "event->waitq", op, fn)
}

// accessPollFd annotates perf_poll()'s look at e for a poller, after
// the fd's lookup: poll_wait() queues the poller on event->waitq (under
// the waitq's lock: a write), is_event_hup() reads the state and the
// child list, and the ring's poll state is taken under mmap_mutex.
func (k *Kernel) accessPollFd(c *cpu.CPU, e *Event) {
	if !k.M.FootprintListening() || c == nil {
		return
	}
	accessWaitq(c, e, cpu.MarkedWrite, "perf_poll")                            // kernel/events/core.c: perf_poll(): poll_wait(file, &event->waitq, wait) -> add_wait_queue()
	c.AccessMarkedOnly(e, "event->state", cpu.MarkedRead, "is_event_hup")      // kernel/events/core.c: is_event_hup(): if (event->state > PERF_EVENT_STATE_EXIT)
	c.AccessMarkedOnly(e, "event->child_list", cpu.MarkedRead, "is_event_hup") // kernel/events/core.c: is_event_hup(): list_empty(&event->child_list), under child_mutex
	c.AccessMarkedOnly(e, "event->rb", cpu.MarkedRead, "perf_poll")            // kernel/events/core.c: perf_poll(): mutex_lock(&event->mmap_mutex); rb = event->rb
	if e.rb != nil {
		c.AccessMarkedOnly(e.rb, "rb->poll", cpu.MarkedWrite, "perf_poll") // kernel/events/core.c: perf_poll(): events = atomic_xchg(&rb->poll, 0)
	}
}

// accessPollUnqueue annotates the poller's entry taken off e's waitq
// (poll_freewait() -> remove_wait_queue(), under the waitq's lock).
func (k *Kernel) accessPollUnqueue(c *cpu.CPU, e *Event) {
	if k.M.FootprintListening() && c != nil {
		accessWaitq(c, e, cpu.MarkedWrite, "poll_freewait") // fs/select.c: poll_freewait() -> free_poll_entry() -> remove_wait_queue(entry->wait_address, &entry->wait)
	}
}

// accessPollSleep annotates do_poll()'s way to sleep, from "perf_poll:wait"
// up to __schedule()'s step point (sched.Sched.WaitAnnotated): the signal
// check, the task's state, and the poller's own queue, which every event
// it polls holds (evs: its entries on their waitqs).
func (k *Kernel) accessPollSleep(t *sched.Task, evs []*Event) {
	if !k.M.FootprintListening() {
		return
	}
	c := t.CPU()
	c.AccessMarkedOnly(t, "thread_info->flags", cpu.MarkedRead, "do_poll") // fs/select.c: do_poll(): if (signal_pending(current))
	c.AccessMarkedOnly(t, "p->__state", cpu.MarkedWrite, "do_poll")        // fs/select.c: poll_schedule_timeout(): set_current_state(TASK_INTERRUPTIBLE), which try_to_wake_up() reads
	for _, e := range evs {
		accessWaitq(c, e, cpu.MarkedWrite, "do_poll") // the poller's wait entries, on each event's waitq (the model's one queue per poll)
	}
}

// accessPollWoken annotates the return from schedule() into do_poll()
// (sched.Sched.WaitAnnotated's woken): the poller's queue taken off
// (its entries on the events' waitqs, which the waker emptied), and
// signal_pending() read.
func (k *Kernel) accessPollWoken(t *sched.Task, evs []*Event) {
	if !k.M.FootprintListening() {
		return
	}
	c := t.CPU()
	for _, e := range evs {
		accessWaitq(c, e, cpu.MarkedWrite, "do_poll") // fs/select.c: poll_schedule_timeout() returns: the entries the wake-up left, taken off
	}
	c.AccessMarkedOnly(t, "thread_info->flags", cpu.MarkedRead, "do_poll") // fs/select.c: do_poll(): signal_pending(current)
}

// accessWakeWaitq annotates wake_up_all(&event->waitq): the waitq read
// under its lock and, with pollers on it, emptied (the model takes every
// poller's queue off: a write); an empty one only read (nothing to wake:
// only a poller's queueing, a write, changes what it finds). The pollers'
// wake-ups are sched's try_to_wake_up(), annotated.
func (e *Event) accessWakeWaitq() {
	if k := e.k; k.M.FootprintListening() {
		if c := k.curCPU(); c != nil {
			op := cpu.MarkedRead
			if len(e.pollers) > 0 {
				op = cpu.MarkedWrite
			}
			accessWaitq(c, e, op, "__wake_up") // kernel/sched/wait.c: __wake_up() -> __wake_up_common_lock(): spin_lock_irqsave(&wq_head->lock), the entries' callbacks
		}
	}
}
