package cpu

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
