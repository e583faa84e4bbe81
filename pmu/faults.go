package pmu

import (
	"perfsim/cpu"
	"perfsim/faultinject"
	"perfsim/sched"
	"perfsim/sim"
)

// shouldFail is should_fail() at an allocation site the scenario may fail
// (package faultinject: "fail SITE in TASK"): t's call of site fails when
// a rule says so. The failure is a note on the timeline, where the error
// path it takes can be read.
// lib/fault-inject.c: should_fail_ex()
func (k *Kernel) shouldFail(t *sched.Task, site string) bool {
	if k.Opts.Faults == nil || t == nil {
		return false
	}
	if c := k.setupCPU(t); c != nil {
		c.AccessMarkedOnly(faultPlanKey{k.Opts.Faults}, "current->fail_nth", cpu.MarkedWrite, "should_fail_ex") // lib/fault-inject.c: should_fail_ex(): fail_nth--, WRITE_ONCE(current->fail_nth, fail_nth)
	}
	if !k.Opts.Faults.ShouldFail(site, t) {
		return false
	}
	if tr := k.M.Trace(); tr.On() {
		id := -1
		if c := t.CPU(); c != nil {
			id = c.ID
		}
		tr.Add(sim.Record{T: k.M.Now(), CPU: id, Kind: sim.KNote, Name: "fault", Detail: site + " fails in " + t.Comm})
	}
	return true
}

// faultPlanKey is the scenario's fault plan: the fail lines' counts of
// their tasks' calls (the kernel's current->fail_nth) and the log of the
// failures made, one per machine. Every call a plan is asked about counts
// as a write (a line's count, or the decision of occurrence any).
type faultPlanKey struct{ p *faultinject.Plan }

// FootprintKey implements cpu.FootprintKeyer.
func (faultPlanKey) FootprintKey() string { return "the fault plan (fail lines)" }

// FootprintExtent is where the plan keeps its counts (explore's write audit).
func (f faultPlanKey) FootprintExtent() []any { return f.p.Extent() }

// ShouldFail is shouldFail for a driver's allocation (another package) in
// the current task's context: a PMU's setup_aux, run from that task's
// mmap().
// lib/fault-inject.c: should_fail_ex()
func (k *Kernel) ShouldFail(site string) bool { return k.shouldFail(k.current(), site) }

func init() {
	observables["faults.injected"] = func(k *Kernel) int64 {
		if k.Opts.Faults == nil {
			return 0
		}
		return int64(len(k.Opts.Faults.Injected))
	}
	observables["faults.unfired"] = func(k *Kernel) int64 { return int64(len(k.Opts.Faults.Unfired())) }
	observableHlp["faults.injected"] = "allocations the scenario's fail lines made fail (fail SITE in TASK)"
	observableHlp["faults.unfired"] = "fail lines whose call never came: the task reached the site fewer than nth times"
}
