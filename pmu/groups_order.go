package pmu

import "slices"

// pmuAddrOrder ranks the PMUs by the address of their struct pmu, which the
// groups' rb-tree compares after the CPU (perf_event_groups_cmp():
// left_pmu < right->pmu_ctx->pmu). The kernel's order is the linker's, so
// it is measured, not derived: on this machine's 6.18 kernel an inherited
// context lists its events (head first, the reverse of the rb-tree walk that
// inherited them) tracepoint last, then software, task_clock and cpu_clock
// first (perf record -s -e sched:sched_process_exit,page-faults,cpu-clock,
// task-clock,dummy: the paired case realperf/testdata/inherit-stat-pmu-order). PMUs this machine
// cannot show (no hardware counters, PT or CoreSight) follow the measured
// ones in the order they were registered.
var pmuAddrOrder = []string{"tracepoint", "software", "task_clock", "cpu_clock"}

// pmuAddrRank is p's place in pmuAddrOrder (or after it, by registration).
func pmuAddrRank(p PMU) int {
	if i := slices.Index(pmuAddrOrder, p.Name()); i >= 0 {
		return i
	}
	return len(pmuAddrOrder) + p.base().index
}

// groupsInTreeOrder is perf_event_groups_for_each() over one of a context's
// group trees: the leaders by CPU (-1 first), then PMU address, then (for a
// CPU context's cgroup events, none here: a task context has no cgroup
// events) cgroup id, then group_index, which is their order in groups
// (perf_event_groups_insert() gives each the next ++groups->index).
// kernel/events/core.c: perf_event_groups_cmp(), perf_event_groups_for_each()
func groupsInTreeOrder(groups []*Event) []*Event {
	out := slices.Clone(groups)
	slices.SortStableFunc(out, func(a, b *Event) int {
		if a.cpu != b.cpu {
			return a.cpu - b.cpu
		}
		return pmuAddrRank(a.pmu) - pmuAddrRank(b.pmu)
	})
	return out
}
