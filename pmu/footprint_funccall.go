package pmu

import "perfsim/cpu"

// A round of smp_call_function_single()'s wait that finds the call not
// done yet, declared complete up to the next round
// (cpu.DeclareCompleteUntil): the look at csd->flags (accessCSDWait), the
// soft-lockup watchdog's look (sched.Sched.SpinRound, annotated there) and
// the time spun, taking the CPU's own interrupts (fragments of their own),
// back to the step point. The round that finds it done returns into the
// caller (event_function_call(), perf_install_in_context(), ...), whose
// code up to its next step point nobody vouched for: it is marked there
// (markCSDDone), since that code may well reach this step point again
// (perf_event_release_kernel() makes one call after another), where the
// end alone would vouch for it. With it, the walks see a spinning CPU's
// rounds as independent of whatever another CPU does that is not the
// call's handler.
func init() {
	cpu.DeclareCompleteUntil("smp_call_function_single:wait", "smp_call_function_single:wait")
}

// accessCSDWait annotates csd_lock_wait()'s look at the call's csd->flags,
// which the target CPU's handler releases (csd_unlock(), the Release in
// smpCallFunctionSingle's handler: the same key and field).
// kernel/smp.c: csd_lock_wait(): smp_cond_load_acquire(&csd->node.u_flags, !(VAL & CSD_FLAG_LOCK))
func (k *Kernel) accessCSDWait(c *cpu.CPU, csd *cpu.SyncClock) {
	if k.M.FootprintListening() {
		c.AccessMarkedOnly(csd, "sync", cpu.MarkedRead, "csd_lock_wait")
	}
}

// markCSDDone marks the return from smp_call_function_single() into its
// caller, whose code nobody annotated.
func (k *Kernel) markCSDDone(c *cpu.CPU) {
	c.Unaudited("smp_call_function_single's caller")
}
