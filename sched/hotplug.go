package sched

import (
	"strconv"

	"perfsim/cpu"
	"perfsim/sim"
	"perfsim/uapi"
)

// CPUHPState is one state of the CPU hotplug state machine that a subsystem
// registers with its startup and teardown callbacks, as cpuhp_setup_state()
// does (perf registers "perf:prepare" and "perf:online" with
// perf_event_init_cpu() and perf_event_exit_cpu()).
//
// An AP state (CPUHP_AP_*_ONLINE) runs while the CPU is up: its teardown
// before the CPU dies, its startup once it has booted. A BP state
// (CPUHP_*_PREPARE) runs on the control CPU: its startup before the CPU
// boots, its teardown after it died. Startups run in registration order,
// teardowns in reverse. An AP state's callbacks run on the hotplugged CPU
// in its cpuhp/N thread while the control task holds cpu_hotplug_lock for
// write and waits (cpuhp.go); lockdep sees cpuhp/N hold cpu_hotplug_lock
// and the direction's cpuhp_state map around each callback.
// kernel/cpu.c: cpuhp_setup_state(), cpuhp_invoke_callback()
type CPUHPState struct {
	Name     string
	AP       bool
	Startup  func(t *Task, cpu int)
	Teardown func(t *Task, cpu int)
}

// hotplug is the CPU hotplug state of the machine: cpu_hotplug_lock, the
// registered states, cpu_active_mask and cpu_online_mask (as "not" masks,
// so the zero value is every CPU up).
type hotplug struct {
	lock     RWSem // cpu_hotplug_lock, a percpu_rw_semaphore
	states   []CPUHPState
	inactive []bool // !cpu_active(cpu): the scheduler no longer places tasks there
	offline  []bool // !cpu_online(cpu): the CPU is dead
	dying    []bool // cpu_dying(cpu): the hotplug motion is down (cpuhp_set_state())
	// hotplugWait is rq->hotplug_wait of the dying CPU: cpuhp/N's
	// sched_cpu_wait_empty() sleeps there (TASK_UNINTERRUPTIBLE) until
	// balance_push(), switching to the idle task with nothing queued, wakes it.
	hotplugWait RCUWait
	// cpuhp is each CPU's struct cpuhp_cpu_state and cpuhp/N (cpuhp.go),
	// made at the first hotplug operation.
	cpuhp []cpuhpCPUState
	// idleDead says that the CPU's idle task is to report it dead
	// (take_cpu_down() ran: cpuhp_report_idle_dead()), onlineIdle that it
	// is to report it booted (cpuhp_online_idle()): stop_machine.go.
	idleDead, onlineIdle []bool

	// Offlines, Onlines and Failed count the hotplug operations done and
	// refused.
	Offlines, Onlines, Failed int
}

func (s *Sched) hp() *hotplug {
	if s.hotplug == nil {
		n := len(s.M.CPUs)
		s.hotplug = &hotplug{lock: RWSem{Name: "cpu_hotplug_lock"}, inactive: make([]bool, n), offline: make([]bool, n), dying: make([]bool, n),
			idleDead: make([]bool, n), onlineIdle: make([]bool, n)}
		s.hotplug.lock.SetKey(nil, "cpu_hotplug_lock")
	}
	return s.hotplug
}

// CPUHPSetupState registers a hotplug state.
// kernel/cpu.c: cpuhp_setup_state_nocalls()
func (s *Sched) CPUHPSetupState(st CPUHPState) { s.hp().states = append(s.hp().states, st) }

// CPUOnline is cpu_online(cpu).
func (s *Sched) CPUOnline(cpu int) bool {
	return cpu >= 0 && cpu < len(s.M.CPUs) && (s.hotplug == nil || !s.hotplug.offline[cpu])
}

// NumOnlineCPUs is num_online_cpus().
func (s *Sched) NumOnlineCPUs() int {
	n := 0
	for i := range s.M.CPUs {
		if s.CPUOnline(i) {
			n++
		}
	}
	return n
}

// CPUActive is cpu_active(cpu): the scheduler may place tasks there.
func (s *Sched) CPUActive(cpu int) bool {
	return cpu >= 0 && cpu < len(s.M.CPUs) && (s.hotplug == nil || !s.hotplug.inactive[cpu])
}

// HotplugCounts returns how many CPUs went offline and online, and how many
// hotplug requests failed.
func (s *Sched) HotplugCounts() (offlines, onlines, failed int) {
	if s.hotplug == nil {
		return 0, 0, 0
	}
	return s.hotplug.Offlines, s.hotplug.Onlines, s.hotplug.Failed
}

// CPUsReadLock takes cpu_hotplug_lock for read: the CPUs cannot come or go
// until CPUsReadUnlock (static_key_enable() takes it, for instance).
// kernel/cpu.c: cpus_read_lock()
func (s *Sched) CPUsReadLock(t *Task) { s.DownRead(t, &s.hp().lock) }

// CPUsReadUnlock releases it.
// kernel/cpu.c: cpus_read_unlock()
func (s *Sched) CPUsReadUnlock(t *Task) { s.UpRead(t, &s.hp().lock) }

// CPUDown takes CPU n offline from t's kernel context (a write of 0 to
// /sys/devices/system/cpu/cpuN/online): under cpu_hotplug_lock for write,
// cpuhp/N runs the AP states' teardowns on CPU n while t waits
// (cpuhp.go): sched_cpu_deactivate() clears it from cpu_active_mask and
// turns on balance_push (each task switched to there is handed to
// migration/N, which moves it: balance_push.go), perf_event_exit_cpu()
// removes its events, sched_cpu_wait_empty() waits for the last task to
// leave. Then (takedown_cpu()) cpuhp/N parks, stop_machine() runs
// take_cpu_down() on the CPU (offline, its tick stopped, its timers moved)
// while every online CPU spins in its stopper with irqs off
// (stop_machine.go), its idle task reports it dead, and the BP states are
// torn down in t. A CPU already offline is no error
// (device_offline() returns 1, which online_store() turns into success);
// the last online CPU is -EBUSY; cpu0, the boot CPU, has no online file on
// x86 (-ENOENT).
// kernel/cpu.c: _cpu_down(), cpuhp_kick_ap_work(), takedown_cpu(), cpuhp_down_callbacks()
func (s *Sched) CPUDown(t *Task, n int) error {
	h := s.hp()
	if n == 0 || n < 0 || n >= len(s.M.CPUs) {
		h.Failed++
		return uapi.ENOENT
	}
	s.DownWrite(t, &h.lock) // cpus_write_lock()
	defer s.UpWrite(t, &h.lock)
	if h.offline[n] {
		return nil
	}
	online := 0
	for i := range h.offline {
		if !h.offline[i] {
			online++
		}
	}
	if online == 1 {
		h.Failed++
		return uapi.EBUSY
	}
	h.dying[n] = true // cpuhp_set_state(): set_cpu_dying(cpu, true)
	// st->state > CPUHP_TEARDOWN_CPU: the AP states, in cpuhp/N
	s.cpuhpKickAPWork(t, n, false)
	// CPUHP_TEARDOWN_CPU: takedown_cpu(): cpuhp/N parked, take_cpu_down()
	// in stop_machine, then the wait for the dead CPU's idle task.
	st := s.cpuhpState(n)
	s.kthreadPark(t, st)
	s.stopMachineCPUsLocked(t, n, func(c *cpu.CPU) { s.takeCPUDown(c, n) })
	s.waitForAPThread(t, st)
	// the BP states' teardowns: cpuhp_down_callbacks()
	for i := len(h.states) - 1; i >= 0; i-- {
		if st := h.states[i]; !st.AP && st.Teardown != nil {
			st.Teardown(t, n)
		}
	}
	h.Offlines++
	return nil
}

// schedCPUDeactivate is CPUHP_AP_ACTIVE's teardown, the first AP state
// cpuhp/N tears down on CPU n: set_cpu_active(false) and
// balance_push_set(): from now on every switch on the CPU runs
// balance_push(), which hands the task switched to to migration/N. The
// task cpuhp/N preempted is pushed once cpuhp/N sleeps
// (sched_cpu_wait_empty()). The kernel's synchronize_rcu() here is not
// modelled (the model has no RCU grace periods).
// kernel/sched/core.c: sched_cpu_deactivate()
func (s *Sched) schedCPUDeactivate(t *Task, n int) {
	t.CPU().AccessMarkedOnly(rqKey{s, n}, "rq->balance_callback", cpu.MarkedWrite, "balance_push_set") // kernel/sched/core.c: balance_push_set(): rq->balance_callback = &balance_push_callback
	s.hp().inactive[n] = true
	s.note(t.CPU(), sim.KMigrate, "sched_cpu_deactivate", "cpu"+strconv.Itoa(n), 0)
	t.Step("sched_cpu_deactivate")
}

// schedCPUWaitEmpty is CPUHP_AP_SCHED_WAIT_EMPTY's teardown, the last AP
// state cpuhp/N tears down: it sleeps (D) on rq->hotplug_wait until
// balance_push(), in the idle task switched to with nothing queued, wakes
// it, and nothing but itself is left on the CPU.
// kernel/sched/core.c: sched_cpu_wait_empty() -> balance_hotplug_wait()
func (s *Sched) schedCPUWaitEmpty(t *Task, n int) {
	h := s.hp()
	s.accessHotplugWait(t.CPU())
	s.RCUWaitWaitEvent(t, &h.hotplugWait, func() bool { return s.cpuEmpty(n) },
		func() string { return "balance_hotplug_wait() for cpu" + strconv.Itoa(n) },
		func() *Task { return s.rqCurr[n] })
	t.Step("sched_cpu_wait_empty")
}

// schedCPUActivate is CPUHP_AP_ACTIVE's startup, the last AP state cpuhp/N
// starts on the CPU coming up: balance_push_set(cpu, false) and
// set_cpu_active(true).
// kernel/sched/core.c: sched_cpu_activate()
func (s *Sched) schedCPUActivate(t *Task, n int) {
	t.CPU().AccessMarkedOnly(rqKey{s, n}, "rq->balance_callback", cpu.MarkedWrite, "balance_push_set") // kernel/sched/core.c: sched_cpu_activate() -> balance_push_set(cpu, false)
	s.hp().inactive[n] = false
	s.note(t.CPU(), sim.KMigrate, "sched_cpu_activate", "cpu"+strconv.Itoa(n), 0)
}

// CPUUp brings CPU n back (a write of 1 to its online file): under
// cpu_hotplug_lock for write, the BP states start in t
// (perf_event_init_cpu()), the CPU boots (set_cpu_online()), and cpuhp/N,
// woken on it, starts the AP states there while t waits (cpuhp.go):
// perf_event_init_cpu(), then sched_cpu_activate() puts it back in
// cpu_active_mask. A CPU already online is no error.
// kernel/cpu.c: _cpu_up(), cpuhp_up_callbacks(), bringup_cpu(), cpuhp_kick_ap()
func (s *Sched) CPUUp(t *Task, n int) error {
	h := s.hp()
	if n == 0 || n < 0 || n >= len(s.M.CPUs) {
		h.Failed++
		return uapi.ENOENT
	}
	s.DownWrite(t, &h.lock)
	defer s.UpWrite(t, &h.lock)
	if !h.offline[n] {
		return nil
	}
	h.dying[n] = false // cpuhp_set_state(): set_cpu_dying(cpu, false)
	for _, st := range h.states {
		if !st.AP && st.Startup != nil {
			st.Startup(t, n)
		}
	}
	// bringup_cpu(): __cpu_up() boots the AP, which marks itself online
	// (the model does it from here, and runs no STARTING state) and enters
	// its idle task, which unparks its stopper and completes the wait
	// (cpuhp_online_idle()); then cpuhp/N is unparked and kicked.
	st := s.cpuhpState(n)
	h.offline[n] = false // start_secondary(): set_cpu_online(cpu, true)
	s.M.CPUs[n].SetOnline(true, nil)
	t.Step("bringup_cpu")
	h.onlineIdle[n] = true
	s.resched(n)
	s.waitForAPThread(t, st) // bringup_wait_for_ap_online()
	s.kthreadUnpark(st.t)
	// bringup_cpu() -> cpuhp_kick_ap(): the AP states, in cpuhp/N
	s.cpuhpKickAPWork(t, n, true)
	h.Onlines++
	return nil
}

// cpuEmpty reports whether no task but cpuhp/N (nor migration/N) runs,
// waits or is being woken on CPU n: balance_hotplug_wait()'s
// rq->nr_running == 1, the 1 being cpuhp/N itself, which checks it.
// kernel/sched/core.c: balance_hotplug_wait()
func (s *Sched) cpuEmpty(n int) bool {
	cur := TaskOf(s.M.CPUs[n].Curr())
	return (cur == nil || cur == s.CPUHPThread(n)) && len(s.rq[n]) == 0 && len(s.wakeList[n]) == 0 && !s.stoppers[n].runnable
}

// pushing reports whether balance_push() acts on c: its balance callback
// is balance_push_callback (c is inactive) and the hotplug motion is down
// (a CPU coming up is inactive too until sched_cpu_activate(), and its
// balance_push() returns at once).
// kernel/sched/core.c: balance_push(): if (!cpu_dying(rq->cpu) || rq != this_rq()) return
func (s *Sched) pushing(c *cpu.CPU) bool {
	return s.hotplug != nil && s.hotplug.inactive[c.ID] && s.hotplug.dying[c.ID]
}

// fallbackCPU is select_fallback_rq(): the first active CPU t may use, or,
// when it may use none, the first active CPU, its affinity widened to every
// active CPU (cpuset_cpus_allowed_fallback()).
// kernel/sched/core.c: select_fallback_rq()
func (s *Sched) fallbackCPU(t *Task) int {
	for _, c := range t.Allowed.List() {
		if s.CPUActive(c) {
			return c
		}
	}
	var active []int
	for i := range s.M.CPUs {
		if s.CPUActive(i) {
			active = append(active, i)
		}
	}
	t.Allowed = MaskOf(active...)
	return active[0]
}
