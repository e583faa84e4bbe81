// Package faultinject is the kernel's fault injection as a scenario asks
// for it: the N-th time a named task reaches a named allocation site, the
// allocation fails, once, and the kernel takes its error path.
//
// The kernel's own facilities are per task: /proc/PID/make-it-fail with a
// fault_attr's task-filter, and /proc/thread-self/fail-nth ("the N-th call
// in this task fails", what syzkaller writes before each call). Both count
// every should_fail() call: every slab and page allocation the kernel
// makes, most of which the model does not make. So the model does not
// count allocations it does not have; a rule names the site instead (the
// allocation a kernel function makes, Sites lists them) and counts only
// that site's calls by the task. That is the question a fail-nth search
// answers one N at a time: what happens when this allocation fails here.
// lib/fault-inject.c: should_fail_ex()
package faultinject

import "fmt"

// Rule makes the Nth call of Site by the task bound to Who fail; with Any,
// the search decides which call fails (each call is a decision: fail or
// not), or none. A rule fails one call at most. Site "any" is every site:
// then Nth counts every allocation the model makes for the task, the
// kernel's fail-nth over the model's sites.
type Rule struct {
	Site string // a name in Sites, or AnySite
	Who  string // the task's (or the session's perf's) name in the scenario
	Nth  int    // 1: the first call fails
	Any  bool   // the search picks the call: Plan.Choose at each

	task  any // the task bound to Who (Plan.Bind)
	calls int // calls of Site by the task so far
	fired bool
}

// AnySite in a rule matches every site.
const AnySite = "any"

// Plan is a run's rules and what they did.
type Plan struct {
	rules []*Rule
	// Choose asks the run's scheduler a decision of n options (the
	// engine's Choose): a rule with Any asks it at each call, "fail this
	// one?" (option 1 fails). Nil: such rules fail nothing.
	Choose func(n int, what string) int
	// Injected lists the failures made, in order: "SITE in WHO (call N)".
	Injected []string
}

// NewPlan returns a plan of rules, each unbound until Bind names its task.
func NewPlan(rules []*Rule) *Plan {
	return &Plan{rules: rules}
}

// Bind says which task (a *sched.Task, compared by identity) the rules
// naming who are about: a scenario task once spawned, a session's perf.
func (p *Plan) Bind(who string, task any) {
	if p == nil {
		return
	}
	for _, r := range p.rules {
		if r.Who == who {
			r.task = task
		}
	}
}

// ShouldFail is should_fail() at site for task: it counts the call against
// every rule naming the site and the task and reports whether one of them
// fails it. A nil plan fails nothing.
// lib/fault-inject.c: should_fail_ex()
func (p *Plan) ShouldFail(site string, task any) bool {
	if p == nil || task == nil {
		return false
	}
	if _, ok := siteIndex[site]; !ok {
		panic(fmt.Sprintf("faultinject: the model asks about site %q, which Sites does not list", site))
	}
	fail := false
	for _, r := range p.rules {
		if r.Site != site && r.Site != AnySite || r.task != task || r.fired {
			continue
		}
		r.calls++
		if r.Any && p.Choose != nil && p.Choose(2, "should_fail:"+site) == 1 || !r.Any && r.calls == r.Nth {
			r.fired = true
			fail = true
			p.Injected = append(p.Injected, fmt.Sprintf("%s in %s (call %d)", site, r.Who, r.calls))
		}
	}
	return fail
}

// Unfired returns the rules whose call never came: the task reached the
// site fewer than Nth times (or was never bound), or with Any the search
// failed none of its calls.
func (p *Plan) Unfired() []*Rule {
	if p == nil {
		return nil
	}
	var out []*Rule
	for _, r := range p.rules {
		if !r.fired {
			out = append(out, r)
		}
	}
	return out
}

// Extent is where the plan keeps what ShouldFail changes (each rule's
// count and whether it fired, the log of failures made): explore's write
// audit checks that the model annotates those writes.
func (p *Plan) Extent() []any {
	out := []any{&p.Injected}
	for _, r := range p.rules {
		out = append(out, &r.calls, &r.fired)
	}
	return out
}

// PlanKey is the plan as the footprint oracles name it: the fail lines'
// counts of their tasks' calls (the kernel's current->fail_nth) and the
// log of failures made, one per run. Every call a plan is asked about
// counts as a write (a rule's count, or the decision of occurrence any).
type PlanKey struct{ P *Plan }

// FootprintKey implements the footprint oracles' key (cpu.FootprintKeyer).
func (PlanKey) FootprintKey() string { return "the fault plan (fail lines)" }

// FootprintExtent is where the plan keeps its counts (explore's write audit).
func (k PlanKey) FootprintExtent() []any { return k.P.Extent() }
