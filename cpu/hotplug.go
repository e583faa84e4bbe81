package cpu

import "perfsim/sim"

// SetOnline marks c online or offline (set_cpu_online()). Going offline, its
// armed timers move to to, as hrtimers_cpu_dying() migrates a dead CPU's
// hrtimers to an online CPU: a timer's handler then runs there. An offline
// CPU takes no interrupt: one raised to it is dropped (the trace says so).
// kernel/cpu.c: take_cpu_down(); kernel/time/hrtimer.c: hrtimers_cpu_dying()
func (c *CPU) SetOnline(online bool, to *CPU) {
	c.offline = !online
	if online || to == nil || to == c {
		return
	}
	for _, tm := range c.owned {
		armed, when := tm.Armed()
		tm.Cancel() // off c's queue
		tm.c = to
		to.owned = append(to.owned, tm)
		if armed {
			tm.arm(tm.soft, when) // on to's, with its range
		}
	}
	c.owned, c.ranged = nil, nil
}

// Online reports whether c is online (cpu_online()).
func (c *CPU) Online() bool { return !c.offline }

// dropOffline reports whether an interrupt raised to c is dropped because c
// is offline, noting it in the trace.
func (c *CPU) dropOffline(it Interrupt) bool {
	if !c.offline {
		return false
	}
	c.m.note(c, sim.KTimer, it.Name, "dropped: cpu offline", 0)
	return true
}
