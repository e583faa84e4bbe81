package pmu

import (
	"strconv"

	"perfsim/cpu"
	"perfsim/sched"
)

// The footprints of perf's part in the syscall entry and exit (the
// scheduler's fragments "syscall_enter_from_user_mode" and
// "exit_to_user_mode_loop", declared complete in sched/footprint_entry.go):
// the syscall tracepoints looked up on every syscall, the hardware
// counters' mode switch, and the deferred-callchain notes at the return to
// user mode. What a syscall tracepoint fires into perf_tp_event() (the
// sample) is annotated in footprint_overflow.go, its other paths (a filter,
// the AUX action, the sample's READ/CALLCHAIN parts...) marked where they
// begin (cpu.CPU.Unaudited).

// tpKey is a tracepoint's stable key: "tp:SYSTEM:NAME", the catalogue's
// name, whether or not an event ever attached to it.
type tpKey struct{ info *TracepointInfo }

// FootprintKey implements cpu.FootprintKeyer.
func (k tpKey) FootprintKey() string { return "tp:" + k.info.System + ":" + k.info.Name }

// tpCPUKey is a tracepoint's per-CPU list of events: "tp:SYSTEM:NAME@cpuN"
// (this_cpu_ptr(tp_event->perf_events): each CPU's its own).
type tpCPUKey struct {
	s   *tpSlot
	cpu int
}

// FootprintKey implements cpu.FootprintKeyer.
func (k tpCPUKey) FootprintKey() string {
	return "tp:" + k.s.info.System + ":" + k.s.info.Name + "@cpu" + strconv.Itoa(k.cpu)
}

// FootprintExtent is where the model keeps the list (explore's write audit).
func (k tpCPUKey) FootprintExtent() []any { return []any{&k.s.perCPU[k.cpu]} }

// perfSyscallFn names the function that fires a syscall tracepoint.
func perfSyscallFn(enter bool) string {
	if enter {
		return "perf_syscall_enter"
	}
	return "perf_syscall_exit"
}

// accessSyscallTPs annotates the reads of a syscall's tracepoints (raw and
// per syscall) that tell whether perf registered on them: a tracepoint
// with no slot has no event (perf_trace_init() makes it, on any CPU).
func (k *Kernel) accessSyscallTPs(t *sched.Task, raw, sys tpRef, fn string) {
	c := t.CPU()
	if !k.M.FootprintListening() {
		return
	}
	for _, r := range [...]tpRef{raw, sys} {
		if r.idx >= 0 {
			c.AccessMarkedOnly(tpKey{&k.tp.infos[r.idx]}, "tp_event->perf_refcount", cpu.MarkedRead, fn) // kernel/trace/trace_syscalls.c: perf_syscall_enter(): if (!test_bit(syscall_nr, enabled_perf_enter_syscalls)) return
		}
	}
}

// accessTpHlist annotates an access of CPU c's list of the events ACTIVE on
// tracepoint s (this_cpu_ptr(tp_event->perf_events)): read where the
// tracepoint fires, written by perf_trace_add()/perf_trace_del() on c.
func (k *Kernel) accessTpHlist(c *cpu.CPU, s *tpSlot, op cpu.AccessOp, fn string) {
	if !k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(tpCPUKey{s, c.ID}, "tp_event->perf_events", op, fn) // kernel/trace/trace_syscalls.c: perf_syscall_enter(): head = this_cpu_ptr(sys_data->enter_event->perf_events); if (hlist_empty(head)) return
}

// FootprintKey implements cpu.FootprintKeyer: "cpu_hw_events@cpuN", the
// per-CPU struct cpu_hw_events with the counters' mode the model keeps in it.
func (cc *cpuHwEvents) FootprintKey() string { return "cpu_hw_events@cpu" + strconv.Itoa(cc.cpu) }

// hwModeFootprint is the hardware PMU's mode hook (hwModeHook) with the
// footprint of its setMode() annotated before it runs.
type hwModeFootprint struct{ hwModeHook }

// ModeSwitch implements sched.ModeHook.
func (h hwModeFootprint) ModeSwitch(t *sched.Task, user bool) {
	if c := t.CPU(); h.p.k.M.FootprintListening() {
		h.p.accessSetMode(c, user)
	}
	h.hwModeHook.ModeSwitch(t, user)
}

// accessSetMode annotates what setMode (pmu_hw_mode.go) touches when c
// changes mode: the counters' mode in c's cpu_hw_events, and for each
// running counter the count folded in (x86_perf_event_update()) and its
// overflow timer re-armed on c (a post to c itself, which Timer.Arm
// reports). No kernel code runs there: the counters count by their USR/OS
// bits in hardware; the model folds the counts at the switch, so they are
// the hardware's writes (data_race: KCSAN never sees them, and so neither
// does the data-race oracle: cpu.CPU.AccessMarkedOnly), which a read of the
// count on another CPU (perf_event_read()'s IPI) depends on.
func (p *hwPMU) accessSetMode(c *cpu.CPU, user bool) {
	cc := &p.cpuc[c.ID]
	c.AccessMarkedOnly(cc, "cpuc->user (the counters' USR/OS mode)", cpu.DataRaceRead, "intel_pmu") // arch/x86/events/intel/core.c: the USR/OS bits of IA32_PERFEVTSELx the hardware counts by
	if cc.user == user {
		return
	}
	c.AccessMarkedOnly(cc, "cpuc->events", cpu.DataRaceRead, "intel_pmu")                            // arch/x86/events/core.c: the counters x86_pmu_add() assigned on this CPU
	c.AccessMarkedOnly(cc, "cpuc->user (the counters' USR/OS mode)", cpu.DataRaceWrite, "intel_pmu") // arch/x86/events/intel/core.c: the CPU's CPL changes what the counters count
	for _, e := range cc.events {
		if e != nil && e.hw.running {
			c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.DataRaceWrite, "x86_perf_event_update") // arch/x86/events/core.c: x86_perf_event_update(): prev_count, period_left, the counter's value
			c.AccessMarkedOnly(e, "event->count", cpu.DataRaceWrite, "x86_perf_event_update")            // arch/x86/events/core.c: x86_perf_event_update(): local64_add(delta, &event->count)
		}
	}
}

// deferredSamples is the count of samples that asked for a deferred
// callchain (deferredCallchains.stats), which the return to user reads.
// The keys named by a string are boxed once (an any): annotated on every
// return to user, a cpu.KeyName converted there cost an allocation each
// time, listener or not.
var deferredSamples any = cpu.KeyName("perf deferred callchains")

// nrSwitchEvents is core.c's atomic_t nr_switch_events, which the context
// switch reads (sched/footprint_switch.go).
var nrSwitchEvents any = cpu.KeyName("nr_switch_events")

// accessTpRegistered annotates the read of whether perf registered on
// tracepoint s (its users: perf_trace_init() on any CPU).
func (k *Kernel) accessTpRegistered(c *cpu.CPU, s *tpSlot, fn string) {
	if k.M.FootprintListening() {
		c.AccessMarkedOnly(tpKey{&s.info}, "tp_event->perf_refcount", cpu.MarkedRead, fn) // kernel/trace/trace_event_perf.c: perf_trace_run_bpf_submit(): the tracepoint's perf_events registered
	}
}

// swHlistKey is CPU N's struct swevent_htable: "swevent_htable@cpuN", the
// software events ACTIVE there by type (perf_swevent_add() on that CPU).
type swHlistKey struct {
	p   *swPMU
	cpu int
}

// FootprintKey implements cpu.FootprintKeyer.
func (k swHlistKey) FootprintKey() string { return "swevent_htable@cpu" + strconv.Itoa(k.cpu) }

// FootprintExtent is where the model keeps the lists (explore's write audit).
func (k swHlistKey) FootprintExtent() []any { return []any{&k.p.active[k.cpu]} }
