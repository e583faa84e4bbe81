package pmu

import (
	"fmt"

	"perfsim/sched"
	"perfsim/sim"
)

// cgroupLedger is the oracle of cgroup-time-adds-up: apart from the cgroup
// time the kernel keeps, it integrates, per cgroup event, the time its CPU
// context's time ran while the task current on the CPU (its cgroup taken
// from the scheduler at each perf_cgroup_switch(), and at the first enable
// of a cgroup event on the CPU) was in the event's cgroup or below it.
type cgroupLedger struct {
	last []sim.Time      // per CPU: the last advance
	view []*sched.Cgroup // per CPU: the cgroup of the task current there, as last sampled
	evs  [][]*ledgerEv   // per CPU: the cgroup events ever enabled there
	by   map[*Event]*ledgerEv
}

type ledgerEv struct {
	e       *Event
	cg      *sched.Cgroup // event->cgrp's cgroup (the event drops event->cgrp when freed)
	enabled bool
	exp     sim.Duration
}

func (l *cgroupLedger) init(k *Kernel) {
	if l.by == nil {
		n := len(k.M.CPUs)
		l.last, l.view, l.evs = make([]sim.Time, n), make([]*sched.Cgroup, n), make([][]*ledgerEv, n)
		l.by = map[*Event]*ledgerEv{}
	}
}

// advance integrates CPU n's enabled cgroup events up to now.
func (l *cgroupLedger) advance(k *Kernel, n int) {
	if l.by == nil || n < 0 {
		return
	}
	now := k.now()
	dt := now - l.last[n]
	l.last[n] = now
	if dt <= 0 || l.view[n] == nil || k.cpuCtx[n].ctx.isActive&EVENT_TIME == 0 {
		return
	}
	for _, le := range l.evs[n] {
		if le.enabled && l.view[n].IsDescendant(le.cg) {
			le.exp += dt
		}
	}
}

func (l *cgroupLedger) nrEnabled(n int) int {
	c := 0
	for _, le := range l.evs[n] {
		if le.enabled {
			c++
		}
	}
	return c
}

// enable: the event counts from now; the first on the CPU samples current.
func (l *cgroupLedger) enable(k *Kernel, e *Event, n int) {
	l.init(k)
	l.advance(k, n)
	if l.nrEnabled(n) == 0 {
		l.view[n] = k.S.CgroupOf(sched.TaskOf(k.M.CPUs[n].Curr()))
	}
	le := l.by[e]
	if le == nil {
		le = &ledgerEv{e: e, cg: e.cgrp.cg}
		l.by[e] = le
		l.evs[n] = append(l.evs[n], le)
	}
	le.enabled = true
}

func (l *cgroupLedger) disable(k *Kernel, e *Event) {
	le := l.by[e]
	if le == nil || !le.enabled {
		return
	}
	l.advance(k, e.cpu)
	le.enabled = false
}

// current samples the task about to run on CPU n.
func (l *cgroupLedger) current(k *Kernel, n int, t *sched.Task) {
	if l.by == nil {
		return
	}
	l.advance(k, n)
	l.view[n] = k.S.CgroupOf(t)
}

// timeStop and timeStart bracket a change of the CPU context's time.
func (l *cgroupLedger) timeStop(k *Kernel, n int)  { l.advance(k, n) }
func (l *cgroupLedger) timeStart(k *Kernel, n int) { l.advance(k, n) }

// ctxTimeChange is called before the CPU context's EVENT_TIME changes.
func (k *Kernel) cgroupCtxTimeChange(ctx *Context) {
	if ctx.task == nil && k.cgs.ledger.by != nil {
		k.cgs.ledger.advance(k, ctx.cpu)
	}
}

// CgroupCheck judges cgroup-time-adds-up for every cgroup event, at the end
// of a run: its enabled time as perf would report it now against the
// ledger's.
func (k *Kernel) CgroupCheck() []LifetimeViolation {
	l := &k.cgs.ledger
	if l.by == nil {
		return nil
	}
	var out []LifetimeViolation
	for n := range l.evs {
		l.advance(k, n)
		for _, le := range l.evs[n] {
			e := le.e
			got := e.totalTimeEnabled
			if e.state >= StateInactive && e.ctx != nil && e.cgrp != nil && !e.cgrp.freed {
				info := e.cgrp.info[e.cpu]
				now := info.time
				if info.active {
					now += k.now() - info.stamp // perf_cgroup_event_time_now()
				}
				got += now - e.tstamp
			}
			if got != le.exp {
				out = append(out, LifetimeViolation{Invariant: "cgroup-time-adds-up", T: k.now(), CPU: -1,
					Message: fmt.Sprintf("cgroup event %d (%s, cgroup %s, cpu%d): enabled time %s, but tasks of %s ran %s on cpu%d while it was enabled",
						e.id, e.pmuName(), le.cg, e.cpu, got, le.cg, le.exp, e.cpu)})
			}
		}
	}
	return out
}
