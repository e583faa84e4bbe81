package sched

import (
	"fmt"
	"slices"

	"perfsim/cpu"
)

// A lock class's hardirq usage state is lockdep's LOCK_USED_IN_HARDIRQ
// (taken in hardirq context: the class is HARDIRQ-safe) and
// LOCK_ENABLED_HARDIRQ (taken with hardirqs enabled: HARDIRQ-unsafe) bits,
// each with the first acquisition that set it (for the report):
// classState's inHardirq and irqsOn.

// usageChain returns the acquisition at chains[i-1].
func (ld *Lockdep) usageChain(i int32) lockChain { return ld.chains[i-1] }

// setUsage records ch as the acquisition that set a usage bit.
func (ld *Lockdep) setUsage(bit *int32, ch lockChain) {
	ld.chains = append(ld.chains, ch)
	*bit = int32(len(ld.chains))
}

// irqUsageNew reports whether taking cl on c now may set a usage bit it
// does not have yet: markIrqUsage's own first tests, so that the usual
// acquisition (its usage already known) does not call it.
func (ld *Lockdep) irqUsageNew(c *cpu.CPU, cl ClassID) bool {
	if c == nil || c.InNMI() {
		return false
	}
	if c.InIRQ() {
		return ld.cls[cl].inHardirq == 0
	}
	return !c.IrqsDisabled() && ld.cls[cl].irqsOn == 0
}

// markIrqUsage records how cl is taken now on c and reports what lockdep
// reports when that usage is new:
//   - inconsistent lock state: one class taken in hardirq context and with
//     hardirqs enabled ("{IN-HARDIRQ-W} -> {HARDIRQ-ON-W} usage"): an
//     interrupt on the CPU holding it with irqs on spins on it forever;
//   - a HARDIRQ-safe class that (through the dependency graph) reaches a
//     HARDIRQ-unsafe one ("HARDIRQ-safe -> HARDIRQ-unsafe lock order
//     detected"): the irq can wait on the safe lock while its holder waits on
//     the unsafe one, held by the CPU the irq interrupted.
//
// An NMI's locks are reported apart (lock-in-nmi); a sleeping lock is always
// taken with irqs on (Mutex oopses otherwise).
// kernel/locking/lockdep.c: mark_lock_irq(), valid_state(), check_usage_forwards(), check_usage_backwards()
func (ld *Lockdep) markIrqUsage(c *cpu.CPU, cl ClassID, key holderKey, at *lockAt) {
	if c == nil || c.InNMI() {
		return
	}
	inIRQ := c.InIRQ()
	if !inIRQ && c.IrqsDisabled() {
		return // task context, irqs off: neither
	}
	u := &ld.cls[cl]
	if inIRQ {
		if u.inHardirq != 0 {
			return
		}
		ch := lockChain{key, *at}
		ld.setUsage(&u.inHardirq, ch)
		if u.irqsOn != 0 {
			ld.report(c, "inconsistent-lock-state", "irq:"+cl.String(),
				fmt.Sprintf("inconsistent {HARDIRQ-ON-W} -> {IN-HARDIRQ-W} usage: %s takes %s in hardirq context; it was taken with hardirqs enabled by %s",
					ch, cl, ld.usageChain(u.irqsOn)))
			return
		}
		if bad, path := ld.reachUsage(cl, true); path != nil {
			ld.reportSafeUnsafe(c, path, cl, bad)
		}
		return
	}
	if u.irqsOn != 0 {
		return
	}
	ch := lockChain{key, *at}
	ld.setUsage(&u.irqsOn, ch)
	if u.inHardirq != 0 {
		ld.report(c, "inconsistent-lock-state", "irq:"+cl.String(),
			fmt.Sprintf("inconsistent {IN-HARDIRQ-W} -> {HARDIRQ-ON-W} usage: %s takes %s with hardirqs enabled; it was taken in hardirq context by %s",
				ch, cl, ld.usageChain(u.inHardirq)))
		return
	}
	if safe, path := ld.reachUsage(cl, false); path != nil {
		ld.reportSafeUnsafe(c, path, safe, cl)
	}
}

// checkIrqEdge is check_irq_usage() for a new dependency prev -> next: no
// HARDIRQ-safe class at or before prev may reach a HARDIRQ-unsafe one at or
// after next.
// kernel/locking/lockdep.c: check_irq_usage()
func (ld *Lockdep) checkIrqEdge(c *cpu.CPU, prev, next ClassID) {
	unsafe, fwd := ld.reachUsage(next, true)
	if fwd == nil {
		return
	}
	safe, back := ld.reachUsage(prev, false)
	if back == nil {
		return
	}
	// back runs safe ... prev, fwd runs next ... unsafe.
	ld.reportSafeUnsafe(c, append(back, fwd...), safe, unsafe)
}

// reachUsage searches from cl (included) forwards for a HARDIRQ-unsafe
// class (forward true), or backwards for a HARDIRQ-safe one, and returns it
// with the path between them in lock order (safe first), or nil.
func (ld *Lockdep) reachUsage(cl ClassID, forward bool) (ClassID, []ClassID) {
	var found ClassID
	var p []ClassID
	if forward {
		found, p = ld.bfs(cl, true, func(x ClassID) bool { return ld.cls[x].irqsOn != 0 })
	} else {
		found, p = ld.bfs(cl, false, func(x ClassID) bool { return ld.cls[x].inHardirq != 0 })
		slices.Reverse(p) // p ran cl ... x: the safe class first
	}
	return found, p
}

func (ld *Lockdep) reportSafeUnsafe(c *cpu.CPU, path []ClassID, safe, unsafe ClassID) {
	if len(path) < 2 {
		return // one class both ways: the inconsistent-lock-state report
	}
	msg := fmt.Sprintf("HARDIRQ-safe -> HARDIRQ-unsafe lock order detected: %s (taken in hardirq context by %s) reaches %s (taken with hardirqs enabled by %s) through",
		safe, ld.usageChain(ld.cls[safe].inHardirq), unsafe, ld.usageChain(ld.cls[unsafe].irqsOn))
	for i := 0; i+1 < len(path); i++ {
		msg += fmt.Sprintf(" %s then %s (%s);", path[i], path[i+1], ld.edgeChain(path[i], path[i+1]))
	}
	ld.report(c, "irq-safe-unsafe", "safe:"+safe.String()+">"+unsafe.String(), msg[:len(msg)-1])
}
