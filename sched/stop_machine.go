package sched

import (
	"strconv"

	"perfsim/cpu"
	"perfsim/sim"
)

// stop_machine: the control task queues multi_cpu_stop() on the stopper
// (migration/N, stopper.go) of every online CPU and waits in D for all of
// them; each stopper, once it runs, steps through the MULTI_STOP_* states
// with the others, spinning between them: no CPU goes on before every one
// has acked the state (ack_state()), so from MULTI_STOP_DISABLE_IRQ on
// every online CPU spins with irqs off, and in MULTI_STOP_RUN the active
// CPU runs the function while the others spin. CPU hotplug uses it for
// take_cpu_down() on the dying CPU.
// kernel/stop_machine.c: stop_machine_cpuslocked(), multi_cpu_stop()

// multiStopState is enum multi_stop_state.
type multiStopState int

const (
	multiStopNone multiStopState = iota
	multiStopPrepare
	multiStopDisableIRQ
	multiStopRun
	multiStopExit
)

// multiStopData is struct multi_stop_data.
type multiStopData struct {
	fn         func(c *cpu.CPU) // run on the active CPU in MULTI_STOP_RUN
	active     int              // active_cpus: cpumask_of(cpu)
	numThreads int              // num_online_cpus()
	threadAck  int              // atomic thread_ack
	state      multiStopState
	cpus       []int // the CPUs whose stoppers run it: the spinners Kick()ed at a state change
}

// setState is set_state(): a new state, every thread to ack it.
// kernel/stop_machine.c: set_state()
func (md *multiStopData) setState(st multiStopState) {
	md.threadAck = md.numThreads
	md.state = st // WRITE_ONCE(msdata->state, newstate)
}

// stopMachineCPUsLocked runs fn on CPU active from its stopper while every
// online CPU's stopper spins with irqs off (t holds cpu_hotplug_lock):
// multi_cpu_stop() queued on each online CPU's stopper, t waiting in D for
// all of them (cpu_stop_done).
// kernel/stop_machine.c: stop_machine_cpuslocked() -> stop_cpus() -> __stop_cpus(), queue_stop_cpus_work()
func (s *Sched) stopMachineCPUsLocked(t *Task, active int, fn func(c *cpu.CPU)) {
	md := &multiStopData{fn: fn, active: active}
	for i := range s.M.CPUs {
		if s.CPUOnline(i) {
			md.cpus = append(md.cpus, i)
		}
	}
	md.numThreads = len(md.cpus)
	md.setState(multiStopPrepare)
	nrTodo := len(md.cpus) // cpu_stop_init_done()
	var done Completion
	for _, i := range md.cpus {
		s.cpuStopQueueWork(t.CPU(), i, func(sc *cpu.CPU) {
			s.multiCPUStop(sc, md)
			nrTodo-- // cpu_stop_signal_done()
			if nrTodo == 0 {
				s.Complete(&done)
			}
		})
	}
	s.WaitForCompletion(t, &done, func() string { return "stop_machine(take_cpu_down) on " + strconv.Itoa(nrTodo) + " stoppers" },
		func() *Task { return s.stoppers[active].t })
}

// multiCPUStop is multi_cpu_stop() in CPU c's stopper: it acks each new
// state the others' acks bring, turns irqs off at MULTI_STOP_DISABLE_IRQ,
// runs fn at MULTI_STOP_RUN on the active CPU, and spins in between
// (stop_machine_yield(), cpu_relax()): the last ack of a state moves all
// to the next and kicks the spinners. irqs are restored at the end.
// kernel/stop_machine.c: multi_cpu_stop(), ack_state()
func (s *Sched) multiCPUStop(c *cpu.CPU, md *multiStopData) {
	c.Unaudited("multi_cpu_stop") // msdata's states and acks: not annotated
	th := c.Curr()
	irqs := !c.IrqsDisabled() // local_save_flags(flags)
	isActive := c.ID == md.active
	cur := multiStopNone
	for {
		if newState := md.state; newState != cur {
			cur = newState
			switch cur {
			case multiStopDisableIRQ:
				c.LocalIrqSave() // local_irq_disable(); hard_irq_disable()
			case multiStopRun:
				if isActive {
					md.fn(c)
				}
			}
			md.threadAck-- // ack_state()
			if md.threadAck == 0 {
				md.setState(md.state + 1)
				for _, i := range md.cpus {
					s.M.CPUs[i].Kick() // the spinners see the new state
				}
			}
		}
		if cur == multiStopExit {
			break
		}
		th.SpinUntil(sim.Never, func() bool { return md.state != cur })
	}
	c.LocalIrqRestore(irqs) // local_irq_restore(flags)
}

// takeCPUDown is take_cpu_down() on the dying CPU n, in its stopper with
// irqs off while every other online CPU spins in multi_cpu_stop():
// __cpu_disable() takes it out of cpu_online_mask, the dying states tear
// down (hrtimers_cpu_dying() moves its timers to an active CPU;
// sched_cpu_dying() stops its tick and finds only the stopper on its run
// queue), and the stopper parks itself (stop_machine_park()).
// kernel/cpu.c: take_cpu_down(); kernel/sched/core.c: sched_cpu_dying(); kernel/stop_machine.c: stop_machine_park()
func (s *Sched) takeCPUDown(c *cpu.CPU, n int) {
	c.Step("take_cpu_down")
	h := s.hp()
	h.offline[n] = true // __cpu_disable(): set_cpu_online(cpu, false)
	to := s.M.CPUs[s.firstCPU(s.CPUActive)]
	s.M.CPUs[n].SetOnline(false, to) // hrtimers_cpu_dying()
	s.tick[n].Cancel()               // sched_cpu_dying() -> sched_tick_stop()
	if len(s.rq[n]) > 0 || len(s.wakeList[n]) > 0 {
		sim.Crash("sched_cpu_dying: cpu%d dies with %d tasks queued", n, len(s.rq[n])+len(s.wakeList[n]))
	}
	h.idleDead[n] = true            // st->state = CPUHP_AP_OFFLINE: its idle task reports it dead
	s.stoppers[n].shouldPark = true // stop_machine_park(): stopper->enabled = false; kthread_park(stopper->thread)
}

// firstCPU is cpumask_first() of the CPUs in (cpu_active_mask,
// cpu_online_mask): 0 when there is none.
func (s *Sched) firstCPU(in func(int) bool) int {
	for i := range s.M.CPUs {
		if in(i) {
			return i
		}
	}
	return 0
}

// cpuhpReportIdleDead is the dead CPU's idle task reporting it
// (do_idle(): cpu_is_offline()): the control task's wait is completed from
// the first online CPU, by smp_call_function_single() (it cannot complete
// after rcutree_report_cpu_dead()).
// kernel/cpu.c: cpuhp_report_idle_dead(), cpuhp_complete_idle_dead(); kernel/sched/idle.c: do_idle()
func (s *Sched) cpuhpReportIdleDead(c *cpu.CPU) {
	h := s.hp()
	h.idleDead[c.ID] = false
	c.Unaudited("cpuhp_report_idle_dead")
	st := &h.cpuhp[c.ID]
	s.M.CPUs[s.firstCPU(s.CPUOnline)].RaiseIRQ(cpu.Interrupt{Name: "call_function_single", Fn: func(rc *cpu.CPU) {
		rc.Unaudited("cpuhp_complete_idle_dead")
		s.Complete(&st.done) // complete_ap_thread(st, false)
	}})
}

// cpuhpOnlineIdle is the booted CPU's idle task, before its idle loop:
// its stopper unparked (stop_machine_unpark(): it runs and sleeps again),
// and the control task's wait completed.
// kernel/cpu.c: cpuhp_online_idle(); kernel/stop_machine.c: stop_machine_unpark()
func (s *Sched) cpuhpOnlineIdle(c *cpu.CPU) {
	h := s.hp()
	h.onlineIdle[c.ID] = false
	c.Unaudited("cpuhp_online_idle")
	if s.stoppers[c.ID].t.parked {
		s.wakeStopper(c, c.ID) // kthread_unpark(stopper->thread)
	}
	st := &h.cpuhp[c.ID]
	s.Complete(&st.done) // complete_ap_thread(st, true)
}
