package sched

import (
	"strconv"

	"perfsim/cpu"
	"perfsim/sim"
)

// Task placement as CFS does it (knob sched-balance=cfs, the default), for a
// task whose affinity allows more than one active CPU: select_task_rq() at
// fork (wake_up_new_task(), WF_FORK: the slow path, the idlest CPU), at exec
// (sched_exec(), WF_EXEC: the slow path, a migration by the stopper when
// another CPU is idler) and at wake-up (WF_TTWU: wake_affine() between the
// waker's and the previous CPU, then select_idle_sibling() on the LLC), and
// the newly idle pull (sched_balance_newidle()).
//
// The topology is flat: one sched domain, the LLC (the MC level:
// SD_BALANCE_NEWIDLE|EXEC|FORK, SD_WAKE_AFFINE, SD_SHARE_LLC, imbalance_pct
// 117), over the active CPUs, one CPU a group (no SMT, no cluster, no NUMA,
// symmetric capacity SCHED_CAPACITY_SCALE), the groups in the order
// build_sched_groups() links them: from the CPU itself on, wrapping. A
// machine of one CPU has no domain (sd_degenerate()).
//
// The model has no PELT: a CPU's load (cpu_load(), group_load) is
// NICE_0_LOAD per task on its run queue (running or queued), a task's
// (task_h_load()) NICE_0_LOAD, and a CPU's utilization is its capacity
// when a task runs there and 0 when it is idle, so group_classify() says
// has_spare for an idle CPU, fully_busy for one task and overloaded for
// more. SIS_UTIL's scan depth (nr_idle_scan) is the whole LLC, and the
// newly idle balance costs nothing (max_newidle_lb_cost 0).

// Wake flags (kernel/sched/sched.h): WF_EXEC, WF_FORK and WF_TTWU map to
// SD_BALANCE_EXEC, SD_BALANCE_FORK and SD_BALANCE_WAKE.
const (
	wfExec = 0x02 // WF_EXEC
	wfFork = 0x04 // WF_FORK
	wfTTWU = 0x08 // WF_TTWU
	wfSync = 0x10 // WF_SYNC: the waker goes to sleep soon
)

// Sched domain flags (include/linux/sched/sd_flags.h), in the order of their bits.
const (
	sdBalanceNewidle = 1 << iota // SD_BALANCE_NEWIDLE
	sdBalanceExec                // SD_BALANCE_EXEC
	sdBalanceFork                // SD_BALANCE_FORK
	sdBalanceWake                // SD_BALANCE_WAKE
	sdWakeAffine                 // SD_WAKE_AFFINE
)

const (
	// llcFlags are the MC level's balance flags (kernel/sched/topology.c:
	// sd_init(): SD_BALANCE_WAKE is not among them).
	llcFlags = sdBalanceNewidle | sdBalanceExec | sdBalanceFork | sdWakeAffine
	// llcImbalancePct is sd->imbalance_pct of an SD_SHARE_LLC domain (sd_init()).
	llcImbalancePct = 117
	// nice0Load is NICE_0_LOAD scaled down (scale_load_down()): one task's load.
	nice0Load = 1024
	// capacityScale is SCHED_CAPACITY_SCALE: every CPU's capacity.
	capacityScale = 1024
	// migrationCost is sysctl_sched_migration_cost (500us): a task that ran
	// more recently than this is cache hot (task_hot()).
	migrationCost = 500 * sim.Microsecond
)

// group types of find_idlest_group() and the load balancer, least busy first
// (kernel/sched/fair.c: enum group_type).
const (
	groupHasSpare = iota
	groupFullyBusy
	groupOverloaded
)

// wakee is the waker/wakee flip state of a task (or of an idle CPU's
// swapper, the current of a wake-up from an interrupt on an idle CPU):
// task_struct's last_wakee, wakee_flips, wakee_flip_decay_ts.
type wakee struct {
	last    *Task
	flips   uint
	decayTs int64 // jiffies
}

// cfsPlacement reports whether select_task_rq() runs CFS's placement.
func (s *Sched) cfsPlacement() bool { return !s.Cfg.Balance && !s.Cfg.FirstCPU }

// nrRunning is rq->nr_running: the tasks queued on CPU i and the one running
// there (rq->curr, from the moment __schedule() picked it).
func (s *Sched) nrRunning(i int) int {
	n := len(s.rq[i])
	if s.rqCurr[i] != nil {
		n++
	}
	return n
}

// availableIdleCPU is available_idle_cpu() -> idle_cpu(): rq->curr is the
// idle task, nothing is queued and no wake-up is pending on its wake list
// (rq->ttwu_pending).
// kernel/sched/core.c: idle_cpu()
func (s *Sched) availableIdleCPU(i int) bool {
	return s.CPUActive(i) && s.rqCurr[i] == nil && len(s.rq[i]) == 0 && len(s.wakeList[i]) == 0
}

// llcSpan is sched_domain_span(sd_llc): the active CPUs.
func (s *Sched) llcSpan() []int {
	var out []int
	for i := range s.M.CPUs {
		if s.CPUActive(i) {
			out = append(out, i)
		}
	}
	return out
}

// wrap returns the CPUs of span from start on, wrapping: for_each_cpu_wrap().
func wrap(span []int, start int) []int {
	out := make([]int, 0, len(span))
	for _, c := range span {
		if c >= start {
			out = append(out, c)
		}
	}
	for _, c := range span {
		if c < start {
			out = append(out, c)
		}
	}
	return out
}

// hasDomain reports whether cpu has a sched domain: it is active and the
// LLC spans more than itself.
func (s *Sched) hasDomain(cpu int) bool { return s.CPUActive(cpu) && s.llcWeight() > 1 }

// llcWeight is sd_llc_size: how many CPUs the LLC spans (the active ones).
func (s *Sched) llcWeight() int {
	if s.hotplug == nil {
		return len(s.M.CPUs)
	}
	n := 0
	for i := range s.M.CPUs {
		if s.CPUActive(i) {
			n++
		}
	}
	return n
}

// selectTaskRq is select_task_rq(): a task that may run on more than one
// active CPU is placed by its class (CFS, or with sched-balance=on the
// Chooser, or with sched-balance=off its previous CPU); then a CPU it may not
// use is replaced by select_fallback_rq().
// kernel/sched/core.c: select_task_rq()
func (s *Sched) selectTaskRq(p *Task, prev, wf int) int {
	if !s.cfsPlacement() {
		s.markPlacement("select_task_rq (sched-balance knob)") // the Chooser's or the first CPU's placement: not annotated
		return s.selectCPU(p, prev)
	}
	cpu := prev
	if s.nrCPUsAllowed(p) > 1 {
		cpu = s.selectTaskRqFair(p, prev, wf)
	}
	if !s.isCPUAllowed(p, cpu) {
		s.markPlacement("select_fallback_rq")
		cpu = s.fallbackCPU(p) // is_cpu_allowed() fails: select_fallback_rq()
	}
	return cpu
}

// markPlacement marks a placement path nobody annotated where it begins
// (footprint_wake.go annotates the CFS path's reads at a wake-up).
func (s *Sched) markPlacement(fn string) {
	if s.M.FootprintListening() {
		if c := s.runningCPU(); c != nil {
			c.Unaudited(fn)
		}
	}
}

// nrCPUsAllowed is p->nr_cpus_allowed, counting only the active CPUs the
// model's affinity mask holds.
func (s *Sched) nrCPUsAllowed(p *Task) int {
	n := 0
	p.Allowed.each(func(c int) {
		if s.CPUActive(c) {
			n++
		}
	})
	return n
}

// thisCPU is smp_processor_id() for a placement: the running CPU, or, for a
// task the machine starts with (no CPU runs yet), the CPU it was made on.
func (s *Sched) thisCPU(p *Task) int {
	if run := s.M.Eng.Running(); run != nil {
		return run.ID
	}
	return p.lastCPU
}

// selectTaskRqFair places p: at a wake-up, wake_affine() may prefer the
// waker's CPU over prev when both share the LLC (they always do here) and
// the relationship is not wide; then the fast path, select_idle_sibling().
// At fork and exec the LLC has SD_BALANCE_FORK/EXEC: the slow path,
// sched_balance_find_dst_cpu().
// kernel/sched/fair.c: select_task_rq_fair()
func (s *Sched) selectTaskRqFair(p *Task, prev, wf int) int {
	cpu := s.thisCPU(p)
	cur := s.wakerTask(cpu)
	sync := wf&wfSync != 0 && (cur == nil || cur.State != Dead) // !(current->flags & PF_EXITING)
	sdFlag := wf & 0xF                                          // SD_flags and WF_flags share the first nibble
	newCPU := prev
	wantAffine := false
	if wf&wfTTWU != 0 {
		s.recordWakee(cpu, p)
		wantAffine = !s.wakeWide(cpu, p) && p.Allowed.Has(cpu)
	}
	slow := false
	if s.hasDomain(cpu) {
		switch {
		case wantAffine && llcFlags&sdWakeAffine != 0 && s.CPUActive(prev):
			if cpu != prev {
				newCPU = s.wakeAffine(p, cpu, prev, sync)
			}
		case llcFlags&sdFlag != 0:
			slow = true
		}
	}
	if slow {
		return s.schedBalanceFindDstCPU(p, cpu, prev, sdFlag)
	}
	if wf&wfTTWU != 0 {
		return s.selectIdleSibling(p, prev, newCPU)
	}
	return newCPU
}

// wakerTask is current on cpu for a wake-up: the task running there, or nil
// for the idle task (a wake-up from an interrupt on an idle CPU).
func (s *Sched) wakerTask(cpu int) *Task {
	if cpu < 0 || cpu >= len(s.M.CPUs) {
		return nil
	}
	return TaskOf(s.M.CPUs[cpu].Curr())
}

// wakeeOf is current's flip state: the task's, or the idle task's of cpu.
func (s *Sched) wakeeOf(cpu int) *wakee {
	if t := s.wakerTask(cpu); t != nil {
		return &t.wakee
	}
	return &s.idleWakee[cpu]
}

// jiffies is the tick count at the running CPU's time.
func (s *Sched) jiffies() int64 { return int64(s.M.Now() / s.Cfg.Tick) }

// recordWakee counts current's switches between wakees, halving the count
// at most once a second.
// kernel/sched/fair.c: record_wakee()
func (s *Sched) recordWakee(cpu int, p *Task) {
	w := s.wakeeOf(cpu)
	if j := s.jiffies(); j > w.decayTs+int64(s.Cfg.HZ) { // time_after(jiffies, decay_ts + HZ)
		w.flips >>= 1
		w.decayTs = j
	}
	if w.last != p {
		w.last = p
		w.flips++
	}
}

// wakeWide says whether current and p wake many partners (an M:N pattern
// wider than the LLC), so the wake-up should not pull p to the waker.
// kernel/sched/fair.c: wake_wide()
func (s *Sched) wakeWide(cpu int, p *Task) bool {
	master, slave := s.wakeeOf(cpu).flips, p.wakee.flips
	factor := uint(s.llcWeight()) // sd_llc_size
	if master < slave {
		master, slave = slave, master
	}
	return !(slave < factor || master < slave*factor)
}

// wakeAffine chooses between the waker's CPU and prev: this CPU when it wins
// wake_affine_idle() or wake_affine_weight(), prev otherwise.
// kernel/sched/fair.c: wake_affine()
func (s *Sched) wakeAffine(p *Task, this, prev int, sync bool) int {
	target := s.wakeAffineIdle(this, prev, sync)
	if target < 0 {
		target = s.wakeAffineWeight(p, this, prev, sync)
	}
	if target != this {
		return prev
	}
	return target
}

// wakeAffineIdle: an idle waker's CPU (a wake-up from an interrupt) takes
// the task unless prev is idle too; a sync wake-up from a CPU running only
// the waker takes it; an idle prev keeps it; -1: no answer.
// kernel/sched/fair.c: wake_affine_idle()
func (s *Sched) wakeAffineIdle(this, prev int, sync bool) int {
	if s.availableIdleCPU(this) { // cpus_share_cache(): one LLC
		if s.availableIdleCPU(prev) {
			return prev
		}
		return this
	}
	if sync && s.nrRunning(this) == 1 {
		return this
	}
	if s.availableIdleCPU(prev) {
		return prev
	}
	return -1
}

// cpuLoad is cpu_load(): NICE_0_LOAD per task on the run queue.
func (s *Sched) cpuLoad(i int) int64 { return int64(s.nrRunning(i)) * nice0Load }

// wakeAffineWeight compares the loads with p moved to this CPU and left on
// prev, with WA_BIAS's half imbalance_pct in prev's favour.
// kernel/sched/fair.c: wake_affine_weight()
func (s *Sched) wakeAffineWeight(p *Task, this, prev int, sync bool) int {
	thisEff := s.cpuLoad(this)
	if sync {
		current := int64(nice0Load) // task_h_load(current)
		if current > thisEff {
			return this
		}
		thisEff -= current
	}
	taskLoad := int64(nice0Load) // task_h_load(p)
	thisEff += taskLoad
	thisEff *= 100 // sched_feat(WA_BIAS)
	thisEff *= capacityScale
	prevEff := s.cpuLoad(prev)
	prevEff -= taskLoad
	prevEff *= 100 + (llcImbalancePct-100)/2
	prevEff *= capacityScale
	if sync {
		prevEff++
	}
	if thisEff < prevEff {
		return this
	}
	return -1
}

// selectIdleSibling is the wake-up fast path: target if it is idle, else
// prev if it is idle, else the task's recently used CPU if idle, else the
// first idle CPU of target's LLC after target (select_idle_cpu()), else
// target.
// kernel/sched/fair.c: select_idle_sibling()
func (s *Sched) selectIdleSibling(p *Task, prev, target int) int {
	if s.availableIdleCPU(target) {
		return target
	}
	if prev != target && s.availableIdleCPU(prev) { // cpus_share_cache(prev, target)
		return prev
	}
	// (A per-CPU kthread waker stacking its wakee: the model has none.)
	recent := p.recentUsedCPU
	p.recentUsedCPU = prev
	if recent != prev && recent != target && s.availableIdleCPU(recent) && p.Allowed.Has(recent) {
		return recent
	}
	if !s.hasDomain(target) { // sd_llc of target
		return target
	}
	if i := s.selectIdleCPU(p, target); i >= 0 {
		return i
	}
	return target
}

// selectIdleCPU scans the LLC for an idle CPU p may use, from target+1 on,
// wrapping.
// kernel/sched/fair.c: select_idle_cpu()
func (s *Sched) selectIdleCPU(p *Task, target int) int {
	for _, c := range wrap(s.llcSpan(), target+1) {
		if p.Allowed.Has(c) && s.availableIdleCPU(c) { // __select_idle_cpu()
			return c
		}
	}
	return -1
}

// sgStats is struct sg_lb_stats of a one-CPU group, as
// update_sg_wakeup_stats() fills it for the placement of p.
type sgStats struct {
	cpu       int
	nrRunning int   // sum_nr_running, without p
	idleCPUs  int   // idle_cpus
	load      int64 // group_load (cpu_load_without()); avg_load with capacity SCHED_CAPACITY_SCALE
	util      int64 // group_util (cpu_util_without())
	typ       int   // group_type (group_classify())
}

// taskRunningOnCPU is task_running_on_cpu(): p counts on cpu's run queue
// (its CPU, and it has run: se.avg.last_update_time set).
func (s *Sched) taskRunningOnCPU(cpu int, p *Task) bool {
	return p.lastCPU == cpu && (s.rqCurr[cpu] == p || s.onRq(cpu, p))
}

func (s *Sched) onRq(cpu int, p *Task) bool {
	for _, t := range s.rq[cpu] {
		if t == p {
			return true
		}
	}
	return false
}

// sgWakeupStats is update_sg_wakeup_stats() for the group of one CPU.
// kernel/sched/fair.c: update_sg_wakeup_stats(), group_classify()
func (s *Sched) sgWakeupStats(cpu int, p *Task) sgStats {
	nr := s.nrRunning(cpu)
	if s.taskRunningOnCPU(cpu, p) {
		nr--
	}
	st := sgStats{cpu: cpu, nrRunning: nr, load: int64(nr) * nice0Load}
	// idle_cpu_without(): rq->curr is the idle task or p, no pending wake-up
	if nr == 0 && (s.rqCurr[cpu] == nil || s.rqCurr[cpu] == p) && len(s.wakeList[cpu]) == 0 {
		st.idleCPUs = 1
	}
	if nr > 0 {
		st.util = capacityScale
	}
	switch {
	case nr > 1: // group_is_overloaded(): more tasks than CPUs, its capacity used
		st.typ = groupOverloaded
	case nr == 1: // !group_has_capacity(): its capacity used
		st.typ = groupFullyBusy
	default:
		st.typ = groupHasSpare
	}
	return st
}

// updatePickIdlest says whether sgs is idler than the idlest so far.
// kernel/sched/fair.c: update_pick_idlest()
func updatePickIdlest(idlest, sgs sgStats) bool {
	if sgs.typ < idlest.typ {
		return true
	}
	if sgs.typ > idlest.typ {
		return false
	}
	switch sgs.typ {
	case groupOverloaded, groupFullyBusy:
		if idlest.load <= sgs.load { // the lowest avg_load
			return false
		}
	case groupHasSpare:
		if idlest.idleCPUs > sgs.idleCPUs { // the most idle CPUs
			return false
		}
		if idlest.idleCPUs == sgs.idleCPUs && idlest.util <= sgs.util { // then the lowest group_util
			return false
		}
	}
	return true
}

// schedBalanceFindDstGroup is find_idlest_group(): the idlest group p may use
// other than this CPU's, or -1 when this CPU's group is as good.
// kernel/sched/fair.c: sched_balance_find_dst_group()
func (s *Sched) schedBalanceFindDstGroup(p *Task, this int) int {
	idlest := sgStats{cpu: -1, typ: groupOverloaded, load: int64(^uint32(0))}
	var local *sgStats
	for _, c := range wrap(s.llcSpan(), this) { // the groups from this CPU's on
		if !p.Allowed.Has(c) {
			continue // no CPU of the group allowed
		}
		sgs := s.sgWakeupStats(c, p)
		if c == this {
			local = &sgs
			continue
		}
		if updatePickIdlest(idlest, sgs) {
			idlest = sgs
		}
	}
	if idlest.cpu < 0 {
		return -1
	}
	if local == nil {
		return idlest.cpu
	}
	if local.typ < idlest.typ {
		return -1
	}
	if local.typ > idlest.typ {
		return idlest.cpu
	}
	switch local.typ {
	case groupOverloaded, groupFullyBusy:
		imbalance := int64(nice0Load) * (llcImbalancePct - 100) / 100
		if idlest.load >= local.load+imbalance { // the local group is less loaded
			return -1
		}
		if 100*local.load <= llcImbalancePct*idlest.load {
			return -1
		}
	case groupHasSpare:
		if local.idleCPUs >= idlest.idleCPUs { // the most idle CPUs
			return -1
		}
	}
	return idlest.cpu
}

// schedBalanceFindDstCPU is the slow path of fork and exec: the idlest
// group's CPU (a group is one CPU: sched_balance_find_dst_group_cpu()
// returns it), else this CPU. There is no lower domain to descend to.
// kernel/sched/fair.c: sched_balance_find_dst_cpu()
func (s *Sched) schedBalanceFindDstCPU(p *Task, this, prev, sdFlag int) int {
	span := false
	for _, c := range s.llcSpan() {
		span = span || p.Allowed.Has(c)
	}
	if !span {
		return prev
	}
	if g := s.schedBalanceFindDstGroup(p, this); g >= 0 {
		return g
	}
	return this
}

// schedExec is the exec balance: when CFS finds an idler CPU for the task
// (WF_EXEC), the stopper of its CPU migrates it there (stop_one_cpu(
// migration_cpu_stop)) before the new image is loaded.
// kernel/sched/core.c: sched_exec()
func (s *Sched) schedExec(t *Task) {
	if !s.cfsPlacement() || s.nrCPUsAllowed(t) <= 1 {
		return
	}
	c := t.CPU()
	dest := s.selectTaskRq(t, c.ID, wfExec)
	if dest == c.ID || !s.CPUActive(dest) {
		return
	}
	t.Step("sched_exec:stop_one_cpu")
	s.stopOneCPU(t, dest, false)
}

// rdOverloaded is the root domain's overloaded flag: some active CPU has more
// than one task (set by add_nr_running(); the model reads it live).
func (s *Sched) rdOverloaded() bool {
	for c := range s.M.CPUs {
		if s.CPUActive(c) && s.nrRunning(c) > 1 {
			return true
		}
	}
	return false
}

// schedBalanceNewidle is the pull of a CPU about to go idle: when a run
// queue of the LLC is overloaded, the oldest queued task of the busiest
// (most tasks; the first in group order on a tie) that may run here and is
// not cache hot (ran within sysctl_sched_migration_cost) is detached there
// and attached here; preemptible kernels stop after one task. The rq lock
// is dropped meanwhile: step point sched_balance_newidle, passed when there
// is a task to pull (what can change there is then looked at again).
// kernel/sched/fair.c: sched_balance_newidle() -> sched_balance_rq(CPU_NEWLY_IDLE)
func (s *Sched) schedBalanceNewidle(c *cpu.CPU) *Task {
	this := c.ID
	s.accessNewidle(c)
	if len(s.wakeList[this]) > 0 || !s.CPUActive(this) || !s.hasDomain(this) || !s.rdOverloaded() {
		return nil // this_rq->ttwu_pending, !cpu_active(), no domain, !rd->overloaded
	}
	if _, t := s.newidleCandidate(c); t == nil {
		return nil
	}
	c.Step("sched_balance_newidle") // raw_spin_rq_unlock(this_rq)
	if len(s.rq[this]) > 0 || len(s.wakeList[this]) > 0 {
		return nil // a task arrived meanwhile: it runs
	}
	busiest, t := s.newidleCandidate(c)
	if t == nil {
		return nil
	}
	s.dequeue(busiest, t) // detach_task()
	s.setTaskCPU(c, t, this)
	s.Migrations++
	s.note(c, sim.KMigrate, t.Thread.Name, "cpu"+strconv.Itoa(busiest)+"->cpu"+strconv.Itoa(this), 0)
	return t
}

// newidleCandidate finds the busiest CPU (find_busiest_group(),
// find_busiest_queue(): overloaded, the highest load, the first in group
// order on a tie) and the task detach_tasks() would take from it.
// kernel/sched/fair.c: sched_balance_rq(), detach_tasks(), can_migrate_task(), task_hot()
func (s *Sched) newidleCandidate(c *cpu.CPU) (int, *Task) {
	this := c.ID
	busiest, most := -1, 1
	for _, i := range wrap(s.llcSpan(), this) {
		if i != this && s.nrRunning(i) > most {
			busiest, most = i, s.nrRunning(i)
		}
	}
	if busiest < 0 {
		return -1, nil
	}
	now := c.Now()
	for _, t := range s.rq[busiest] { // from the tail of cfs_tasks: the oldest queued first
		s.accessCanMigrate(c, t)
		if !t.Allowed.Has(this) || t.CPU() != nil {
			continue // not allowed here, or still on its CPU (task_on_cpu())
		}
		if t.ran && now-t.execEnd < migrationCost {
			continue // task_hot()
		}
		return busiest, t
	}
	return -1, nil
}
