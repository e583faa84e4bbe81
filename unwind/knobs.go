package unwind

import "perfsim/sim"

// KnobSpecs are the deferred unwind's kernel knobs.
var KnobSpecs = []sim.KnobSpec{{
	Name:   "unwind-buffer",
	Values: []string{"per-task", "rfc-per-cpu"},
	Help: "where the deferred user unwind is written: today a per-task cache (info->cache, unwind_user_faultable()); " +
		"rfc-per-cpu: the RFC's per-CPU task-context callchain entry, which the next task to unwind on that CPU rewrites " +
		"when the first one is preempted mid-unwind (a faulting user stack read sleeps)",
	Source: "[PATCH RFC 04/10] perf: Introduce deferred user callchains (Josh Poimboeuf, 2023-11-08) and its review: " +
		"\"if it gets preempted, the new task might also need to do an unwind. But there's only one task-context callchain per CPU\" (2023-11-11); " +
		"merged design: kernel/unwind/deferred.c, v6.17",
	Package: "unwind",
}}

// ApplyKnob sets an unwind knob in cfg; it reports whether the name is this
// package's.
func ApplyKnob(cfg *Config, name, value string) (bool, error) {
	for _, k := range KnobSpecs {
		if k.Name != name {
			continue
		}
		if err := k.Check(value); err != nil {
			return true, err
		}
		switch name {
		case "unwind-buffer":
			cfg.PerCPUBuffer = value == "rfc-per-cpu"
		}
		return true, nil
	}
	return false, nil
}
