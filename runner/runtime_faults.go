package runner

import "perfsim/faultinject"

// buildFaults makes the run's fault plan from the file's fail lines and
// binds the ones that name a task; a session's perf is bound when the
// backend starts it (PMUPerf.Start). A file without fail lines has no plan:
// no allocation asks anything.
func (r *Run) buildFaults() {
	if len(r.File.Fails) == 0 {
		return
	}
	rules := make([]*faultinject.Rule, len(r.File.Fails))
	for i, fl := range r.File.Fails {
		rules[i] = &faultinject.Rule{Site: fl.Site.Name, Who: fl.Who.Name, Nth: fl.Occurrence, Any: fl.Any}
	}
	// the scheduler keeps the plan: the kernel's should_fail() asks it
	// (sched.Sched.ShouldFail)
	r.S.Faults = faultinject.NewPlan(rules)
	r.S.Faults.Choose = r.M.Eng.Choose // occurrence any: a decision at each call
	for _, fl := range r.File.Fails {
		if t := r.Tasks[fl.Who.Name]; t != nil {
			r.S.Faults.Bind(fl.Who.Name, t)
		}
	}
}
