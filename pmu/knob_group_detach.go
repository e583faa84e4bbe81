package pmu

import "perfsim/sim"

// groupDetachKnob picks what perf_group_detach() leaves in the cached read
// sizes when a group's leader leaves it (close, remove_on_exec).
var groupDetachKnob = sim.KnobSpec{
	Name:   "group-detach-read-size",
	Values: []string{"recomputed", "stale"},
	Help: "a leader leaving its group (perf_group_detach()): recomputed: each promoted sibling's read_size is that of its new " +
		"singleton group and the leader's nr_siblings is 0, so read() of either returns nr 1 in 8+16 bytes with read_format GROUP|ID, " +
		"as the 6.18.44 kernel on the machine this was measured on does (realperf/testdata/group-detach); stale: the code of the " +
		"post-v6.19 source copy, where the closing \"for_each_sibling_event(tmp, leader) perf_event__header_size(tmp)\" walks the " +
		"list the loop just emptied, so each promoted sibling keeps the read_size of its old group (its samples are shorter than " +
		"their records, read() returns the old size) and the leader keeps nr_siblings",
	Source: "kernel/events/core.c: perf_group_detach() in yailabs/yai@5f6e5cf6 (stale) vs the measured 6.18.44-fc kernel (recomputed); " +
		"the commit between them is not identified",
	Package: "pmu",
}

func init() { KnobSpecs = append(KnobSpecs, groupDetachKnob) }

// groupDetachStale reports group-detach-read-size=stale.
func (k *Kernel) groupDetachStale() bool { return k.KnobIs(groupDetachKnob.Name, "stale") }
