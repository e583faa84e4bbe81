package pmu

import (
	"perfsim/sched"
)

// shouldFail is should_fail() at an allocation site the scenario may fail
// (package faultinject: "fail SITE in TASK"): the scheduler's, which keeps
// the run's plan (sched.Sched.ShouldFail).
// lib/fault-inject.c: should_fail_ex()
func (k *Kernel) shouldFail(t *sched.Task, site string) bool { return k.S.ShouldFail(t, site) }

// ShouldFail is shouldFail for a driver's allocation (another package) in
// the current task's context: a PMU's setup_aux, run from that task's
// mmap().
// lib/fault-inject.c: should_fail_ex()
func (k *Kernel) ShouldFail(site string) bool { return k.shouldFail(k.current(), site) }

func init() {
	observables["faults.injected"] = func(k *Kernel) int64 {
		if k.S.Faults == nil {
			return 0
		}
		return int64(len(k.S.Faults.Injected))
	}
	observables["faults.unfired"] = func(k *Kernel) int64 { return int64(len(k.S.Faults.Unfired())) }
	observableHlp["faults.injected"] = "allocations the scenario's fail lines made fail (fail SITE in TASK)"
	observableHlp["faults.unfired"] = "fail lines whose call never came: the task reached the site fewer than nth times"
}
