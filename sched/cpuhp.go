package sched

import (
	"strconv"

	"perfsim/cpu"
)

// The hotplug thread cpuhp/N: each CPU's smpboot thread (SCHED_NORMAL,
// nice 0, bound to its CPU, KTHREAD_IS_PER_CPU) that runs the AP online
// states' callbacks on the CPU they are for. The control task, holding
// cpu_hotplug_lock for write, sets the target, wakes cpuhp/N and waits in
// D for it (cpuhp_kick_ap_work() -> __cpuhp_kick_ap() ->
// wait_for_ap_thread()); cpuhp/N runs one state per cpuhp_thread_fun()
// (smpboot_thread_fn() calls it again while cpuhp_should_run()) and
// completes the control task's wait after the last. Going down it tears
// down CPUHP_AP_ACTIVE (sched_cpu_deactivate()) first and
// CPUHP_AP_SCHED_WAIT_EMPTY (sched_cpu_wait_empty(), where it sleeps until
// balance_push() emptied the CPU) last; coming up it starts the same
// states the other way round, CPUHP_AP_ACTIVE (sched_cpu_activate()) last.
// The thread is made lazily, at the first hotplug operation: before it,
// nothing the model runs can tell (its pid is fixed).
// kernel/cpu.c: cpuhp_threads, cpuhp_thread_fun(), cpuhp_kick_ap_work(); kernel/smpboot.c: smpboot_thread_fn()

// cpuhpCPUState is CPU N's struct cpuhp_cpu_state as the model keeps it.
type cpuhpCPUState struct {
	t         *Task // st->thread: cpuhp/N
	shouldRun bool  // st->should_run
	bringup   bool  // st->bringup: the direction of the states to run
	next      int   // the next of states to run (st->state, as an index)
	states    []apState
	done      Completion // st->done_up / st->done_down: the control task's wait
	// shouldPark is KTHREAD_SHOULD_PARK of cpuhp/N; parked is its struct
	// kthread's parked completion, which kthread_park() waits on.
	shouldPark bool
	parked     Completion
}

// apState is one AP state cpuhp/N runs, in the kernel's enum order.
type apState struct {
	name     string
	startup  func(t *Task, cpu int)
	teardown func(t *Task, cpu int)
}

// CPUHPPID is the pid of cpuhp/N as this machine's 6.18 boot gives it:
// cpuhp/0 is 19 (after migration/0), each further CPU's comes just before
// its migration/N (StopperPID).
func CPUHPPID(n int) int {
	if n == 0 {
		return 19
	}
	return StopperPID(n) - 1
}

// cpuhpState returns CPU n's hotplug state, making its cpuhp/N, asleep in
// smpboot_thread_fn(), the first time.
// kernel/smpboot.c: __smpboot_create_thread(); kernel/kthread.c: kthread_set_per_cpu()
func (s *Sched) cpuhpState(n int) *cpuhpCPUState {
	h := s.hp()
	if h.cpuhp == nil {
		h.cpuhp = make([]cpuhpCPUState, len(s.M.CPUs))
	}
	st := &h.cpuhp[n]
	if st.t == nil {
		pid := CPUHPPID(n)
		t := &Task{PID: pid, TID: pid, Comm: "cpuhp/" + strconv.Itoa(n), Allowed: MaskOf(n), s: s, lastCPU: n,
			State: Sleeping, Kthread: true, perCPU: true}
		s.M.InitThread(&t.Thread, t.Comm, func(*cpu.Thread) { s.cpuhpThread(t, n) })
		t.Owner = t
		st.t = t
	}
	return st
}

// CPUHPThread returns cpuhp/N, nil before the first hotplug operation.
func (s *Sched) CPUHPThread(n int) *Task {
	if s.hotplug == nil || s.hotplug.cpuhp == nil {
		return nil
	}
	return s.hotplug.cpuhp[n].t
}

// apStates lists the AP states cpuhp/N runs in the kernel's enum order:
// CPUHP_AP_SCHED_WAIT_EMPTY, the registered CPUHP_AP_*_ONLINE states
// (CPUHP_AP_PERF_ONLINE), CPUHP_AP_ACTIVE.
// include/linux/cpuhotplug.h: enum cpuhp_state
func (s *Sched) apStates() []apState {
	h := s.hp()
	l := []apState{{name: "sched:waitempty", teardown: s.schedCPUWaitEmpty}}
	for _, st := range h.states {
		if st.AP {
			l = append(l, apState{st.Name, st.Startup, st.Teardown})
		}
	}
	return append(l, apState{name: "sched:active", startup: s.schedCPUActivate, teardown: s.schedCPUDeactivate})
}

// cpuhpKickAPWork has cpuhp/N run the AP states of the direction (bringup:
// their startups in order; else their teardowns in reverse) and waits in D
// for it, t holding cpu_hotplug_lock for write. The lockdep maps of both
// directions are taken and dropped first, as the kernel does to tie them
// to cpu_hotplug_lock.
// kernel/cpu.c: cpuhp_kick_ap_work() -> cpuhp_kick_ap() -> __cpuhp_kick_ap(), wait_for_ap_thread()
func (s *Sched) cpuhpKickAPWork(t *Task, n int, bringup bool) {
	st := s.cpuhpState(n)
	for _, m := range []string{cpuhpStateDown, cpuhpStateUp} {
		s.Lockdep.Acquire(t.CPU(), t, LockClass{Name: m}) // cpuhp_lock_acquire(false), (true)
		s.Lockdep.ReleaseAny(t.CPU(), t, m)
	}
	st.states = s.apStates()
	st.bringup = bringup
	st.next = 0
	if !bringup {
		st.next = len(st.states) - 1
	}
	st.shouldRun = true // smp_mb(); st->should_run = true
	s.tryToWakeUp(st.t, 0)
	s.waitForAPThread(t, st)
}

// waitForAPThread is wait_for_ap_thread(): t waits in D until cpuhp/N (or
// the CPU's idle task, booting or dead) completes st's completion, and
// consumes it.
// kernel/cpu.c: wait_for_ap_thread()
func (s *Sched) waitForAPThread(t *Task, st *cpuhpCPUState) {
	s.WaitForCompletion(t, &st.done, func() string { return "wait_for_ap_thread() of " + st.t.Comm },
		func() *Task { return st.t })
}

// kthreadPark parks cpuhp/N from t: KTHREAD_SHOULD_PARK set, the thread
// woken, and t waits in D until it parked itself (kthread_parkme()
// completes kthread->parked before its last schedule(); the kernel then
// waits in wait_task_inactive() for that switch, which the model, whose
// switch takes no time, does not).
// kernel/kthread.c: kthread_park()
func (s *Sched) kthreadPark(t *Task, st *cpuhpCPUState) {
	st.shouldPark = true
	st.parked.Reinit()
	s.tryToWakeUp(st.t, 0) // wake_up_process(k)
	s.WaitForCompletion(t, &st.parked, func() string { return "kthread_park() of " + st.t.Comm },
		func() *Task { return st.t })
}

// kthreadUnpark lets a parked kthread go: KTHREAD_SHOULD_PARK cleared and
// the thread woken from TASK_PARKED (which wake_up_process() does not
// wake).
// kernel/kthread.c: kthread_unpark()
func (s *Sched) kthreadUnpark(t *Task) {
	t.parked = false
	s.tryToWakeUp(t, 0) // wake_up_state(k, TASK_PARKED)
}

// The lockdep maps cpuhp_state-up and cpuhp_state-down: cpuhp/N holds the
// one of its direction while it runs a callback, the control task takes
// both while it holds cpu_hotplug_lock.
// kernel/cpu.c: cpuhp_state_up_map, cpuhp_state_down_map
const (
	cpuhpStateUp   = "cpuhp_state-up"
	cpuhpStateDown = "cpuhp_state-down"
)

// cpuhpThread is cpuhp/N's loop: park when told to (kthread_parkme():
// TASK_PARKED, the parker's completion); while there is a state to run,
// run it (cpuhp_thread_fun()); else sleep (TASK_INTERRUPTIBLE) until
// kicked.
// kernel/smpboot.c: smpboot_thread_fn(); kernel/kthread.c: __kthread_parkme(); kernel/cpu.c: cpuhp_should_run()
func (s *Sched) cpuhpThread(t *Task, n int) {
	s.finishTaskSwitch(t.CPU()) // its first run: schedule_tail()
	for {
		st := &s.hp().cpuhp[n]
		if st.shouldPark {
			t.Thread.CPU().Unaudited("kthread_parkme")
			st.shouldPark = false // the model's unpark needs no flag: kthreadUnpark() wakes it from TASK_PARKED
			t.parked = true       // set_special_state(TASK_PARKED)
			s.Complete(&st.parked)
			t.State = Sleeping
			s.schedule(&t.Thread)
			continue
		}
		if !st.shouldRun {
			t.State = Sleeping // set_current_state(TASK_INTERRUPTIBLE); !thread_should_run()
			s.schedule(&t.Thread)
			continue
		}
		s.cpuhpThreadFun(t, n, st)
	}
}

// cpuhpThreadFun runs the next AP state's callback of the direction on
// this CPU: as the kernel does, under the lockdep view of
// cpu_hotplug_lock (the control task holds it for write: "ensure that
// anybody asserting the lock is held, will actually find it so") and of
// the direction's cpuhp_state map; the last state completes the control
// task's wait.
// kernel/cpu.c: cpuhp_thread_fun(), cpuhp_next_state(), cpuhp_invoke_callback(), complete_ap_thread()
func (s *Sched) cpuhpThreadFun(t *Task, n int, st *cpuhpCPUState) {
	c := t.CPU()
	c.Unaudited("cpuhp_thread_fun") // the states' callbacks: not annotated
	h := s.hp()
	m := cpuhpStateDown
	if st.bringup {
		m = cpuhpStateUp
	}
	s.Lockdep.AcquireCached(c, t, &h.lock.classes, LockClass{Name: h.lock.Name}) // lockdep_acquire_cpus_lock()
	s.Lockdep.Acquire(c, t, LockClass{Name: m})                                  // cpuhp_lock_acquire(bringup)
	if st.next >= 0 && st.next < len(st.states) {
		ap := st.states[st.next]
		fn := ap.teardown
		if st.bringup {
			fn = ap.startup
			st.next++
		} else {
			st.next--
		}
		if fn != nil {
			fn(t, n)
		}
	}
	st.shouldRun = st.next >= 0 && st.next < len(st.states)           // cpuhp_next_state()
	s.Lockdep.ReleaseAny(t.CPU(), t, m)                               // cpuhp_lock_release()
	s.Lockdep.ReleaseCached(t.CPU(), t, &h.lock.classes, h.lock.Name) // lockdep_release_cpus_lock()
	if !st.shouldRun {
		s.Complete(&st.done) // complete_ap_thread()
	}
}

// isCPUAllowed is is_cpu_allowed(): a CPU of p's mask that may run it now:
// any online one for a per-CPU kthread (cpuhp/N, migration/N), an active
// one for every other task (the model's kthreads are all per-CPU).
// kernel/sched/core.c: is_cpu_allowed()
func (s *Sched) isCPUAllowed(p *Task, c int) bool {
	if !p.Allowed.Has(c) {
		return false
	}
	if p.kthreadIsPerCPU() {
		return s.CPUOnline(c)
	}
	return s.CPUActive(c)
}
