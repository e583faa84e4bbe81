package cpu

import "perfsim/sim"

// ExpediteIRQ marks the first pending irq named name to be taken now: at
// this step point if irqs are on, else at the first step point after it where
// they are (a scenario's "ipi cpuN at LABEL" and "irq_work cpuN at LABEL").
// It reports whether such an irq was pending.
func (c *CPU) ExpediteIRQ(name string) bool {
	for i, it := range c.pendingIRQ {
		if it.Name != name {
			continue
		}
		it.Now = true
		// Move it to the front: the Now irqs are delivered in order.
		copy(c.pendingIRQ[1:i+1], c.pendingIRQ[:i])
		c.pendingIRQ[0] = it
		c.updateAttn()
		return true
	}
	return false
}

// IrqWorkName is the name of the irq_work self-IPI.
const IrqWorkName = "irq_work"

// heldIRQ is a name of irq held back on a CPU and how many holders hold it.
type heldIRQ struct {
	name string
	n    int
}

// HoldIRQ holds back the irqs named name pending on c, and those raised later,
// until ReleaseIRQ: a held irq is not delivered at step points, time advances
// or when irqs are enabled, unless it was expedited (ExpediteIRQ). A
// scenario's "ipi cpuN at LABEL" holds the call_function_single IPI until
// cpuN reaches LABEL, so that one raised earlier is taken exactly there.
// Holds nest: each HoldIRQ needs its ReleaseIRQ.
func (c *CPU) HoldIRQ(name string) {
	for i := range c.held {
		if c.held[i].name == name {
			c.held[i].n++
			return
		}
	}
	c.held = append(c.held, heldIRQ{name: name, n: 1})
	c.updateAttn()
}

// ReleaseIRQ drops one hold of name (HoldIRQ). When the last goes, the irqs
// of that name still pending are delivered as usual again.
func (c *CPU) ReleaseIRQ(name string) {
	for i := range c.held {
		if c.held[i].name != name {
			continue
		}
		if c.held[i].n--; c.held[i].n == 0 {
			c.held = append(c.held[:i:i], c.held[i+1:]...)
		}
		break
	}
	c.updateAttn()
	c.kick()
}

// Held reports whether an irq named name is pending on c and held back.
func (c *CPU) Held(name string) bool {
	if !c.isHeld(name) {
		return false
	}
	for _, it := range c.pendingIRQ {
		if it.Name == name && !it.Now {
			return true
		}
	}
	return false
}

func (c *CPU) isHeld(name string) bool {
	for _, h := range c.held {
		if h.name == name {
			return true
		}
	}
	return false
}

// nextIRQ is the index of the first pending irq that may be delivered: held
// irqs are skipped unless expedited. -1: none.
func (c *CPU) nextIRQ() int {
	for i, it := range c.pendingIRQ {
		if it.Now || len(c.held) == 0 || !c.isHeld(it.Name) {
			return i
		}
	}
	return -1
}

// releaseHeldIdle is the way out of a hold whose label c does not reach before
// it goes idle: with nothing else to run c would wait for an interrupt that
// only it can take (the sender of a held IPI spins for it), so the held irqs
// pending are expedited, with a note. It reports whether there were any.
func (c *CPU) releaseHeldIdle() bool {
	if len(c.held) == 0 {
		return false
	}
	any := false
	for i := range c.pendingIRQ {
		if it := &c.pendingIRQ[i]; !it.Now && c.isHeld(it.Name) {
			it.Now = true
			any = true
			c.m.note(c, sim.KNote, "hold", "held "+it.Name+" released: cpu idle before its label", 0)
		}
	}
	if any {
		c.updateAttn()
	}
	return any
}
