package sched

import (
	"fmt"

	"perfsim/cpu"
)

// lockUsage is a lock class's hardirq usage state, as lockdep's
// LOCK_USED_IN_HARDIRQ and LOCK_ENABLED_HARDIRQ bits, each with the first
// acquisition that set it (for the report).
type lockUsage struct {
	inHardirq *lockChain // taken in hardirq context: the class is HARDIRQ-safe
	irqsOn    *lockChain // taken with hardirqs enabled: HARDIRQ-unsafe
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
func (ld *Lockdep) markIrqUsage(c *cpu.CPU, cl LockClass, ch lockChain) {
	if c == nil || c.InNMI() {
		return
	}
	inIRQ := c.InIRQ()
	if !inIRQ && c.IrqsDisabled() {
		return // task context, irqs off: neither
	}
	if ld.usage == nil {
		ld.usage = map[LockClass]*lockUsage{}
	}
	u := ld.usage[cl]
	if u == nil {
		u = &lockUsage{}
		ld.usage[cl] = u
	}
	if inIRQ {
		if u.inHardirq != nil {
			return
		}
		chain := ch
		u.inHardirq = &chain
		if u.irqsOn != nil {
			ld.report(c, "inconsistent-lock-state", "irq:"+cl.String(),
				fmt.Sprintf("inconsistent {HARDIRQ-ON-W} -> {IN-HARDIRQ-W} usage: %s takes %s in hardirq context; it was taken with hardirqs enabled by %s",
					ch, cl, u.irqsOn))
			return
		}
		if bad, path := ld.reachUsage(cl, true); path != nil {
			ld.reportSafeUnsafe(c, path, cl, bad)
		}
		return
	}
	if u.irqsOn != nil {
		return
	}
	chain := ch
	u.irqsOn = &chain
	if u.inHardirq != nil {
		ld.report(c, "inconsistent-lock-state", "irq:"+cl.String(),
			fmt.Sprintf("inconsistent {IN-HARDIRQ-W} -> {HARDIRQ-ON-W} usage: %s takes %s with hardirqs enabled; it was taken in hardirq context by %s",
				ch, cl, u.inHardirq))
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
func (ld *Lockdep) checkIrqEdge(c *cpu.CPU, prev, next LockClass) {
	if ld.usage == nil {
		return
	}
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
func (ld *Lockdep) reachUsage(cl LockClass, forward bool) (LockClass, []LockClass) {
	has := func(x LockClass) bool {
		u := ld.usage[x]
		if u == nil {
			return false
		}
		if forward {
			return u.irqsOn != nil
		}
		return u.inHardirq != nil
	}
	prev := map[LockClass]LockClass{cl: cl}
	queue := []LockClass{cl}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		if has(x) {
			var p []LockClass
			for z := x; z != cl; z = prev[z] {
				p = append(p, z)
			}
			p = append(p, cl)
			if forward { // p runs x ... cl: reverse it
				for i, j := 0, len(p)-1; i < j; i, j = i+1, j-1 {
					p[i], p[j] = p[j], p[i]
				}
			}
			return x, p
		}
		for _, y := range ld.neighbours(x, forward) {
			if _, seen := prev[y]; !seen {
				prev[y] = x
				queue = append(queue, y)
			}
		}
	}
	return LockClass{}, nil
}

// neighbours lists x's successors (forward) or predecessors, in the order
// the dependencies were first taken.
func (ld *Lockdep) neighbours(x LockClass, forward bool) []LockClass {
	if forward {
		return ld.order[x]
	}
	var out []LockClass
	for _, a := range ld.fromOrder {
		for _, b := range ld.order[a] {
			if b == x {
				out = append(out, a)
			}
		}
	}
	return out
}

func (ld *Lockdep) reportSafeUnsafe(c *cpu.CPU, path []LockClass, safe, unsafe LockClass) {
	if len(path) < 2 {
		return // one class both ways: the inconsistent-lock-state report
	}
	msg := fmt.Sprintf("HARDIRQ-safe -> HARDIRQ-unsafe lock order detected: %s (taken in hardirq context by %s) reaches %s (taken with hardirqs enabled by %s) through",
		safe, ld.usage[safe].inHardirq, unsafe, ld.usage[unsafe].irqsOn)
	for i := 0; i+1 < len(path); i++ {
		msg += fmt.Sprintf(" %s then %s (%s);", path[i], path[i+1], ld.after[path[i]][path[i+1]])
	}
	ld.report(c, "irq-safe-unsafe", "safe:"+safe.String()+">"+unsafe.String(), msg[:len(msg)-1])
}
