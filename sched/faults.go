package sched

import (
	"perfsim/cpu"
	"perfsim/faultinject"
	"perfsim/sim"
)

// ShouldFail is should_fail() at an allocation site the scenario may fail
// ("fail SITE in TASK", package faultinject): t's call of site fails when
// a rule says so. Every call counts against the rules (a write of the
// plan, annotated when t is current in task context); a failure is a note
// on the timeline, where the error path it takes can be read.
// lib/fault-inject.c: should_fail_ex()
func (s *Sched) ShouldFail(t *Task, site string) bool {
	if s.Faults == nil || t == nil {
		return false
	}
	c := t.CPU()
	if s.M.FootprintListening() && c != nil && c.Context() == cpu.CtxTask && TaskOf(c.Curr()) == t {
		c.AccessMarkedOnly(faultinject.PlanKey{P: s.Faults}, "current->fail_nth", cpu.MarkedWrite, "should_fail_ex") // lib/fault-inject.c: should_fail_ex(): fail_nth--, WRITE_ONCE(current->fail_nth, fail_nth)
	}
	if !s.Faults.ShouldFail(site, t) {
		return false
	}
	if tr := s.M.Trace(); tr.On() {
		id := -1
		if c != nil {
			id = c.ID
		}
		tr.Add(sim.Record{T: s.M.Now(), CPU: id, Kind: sim.KNote, Name: "fault", Detail: site + " fails in " + t.Comm})
	}
	return true
}
