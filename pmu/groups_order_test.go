package pmu

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGroupsInTreeOrder: perf_event_groups_for_each()'s walk of a group
// tree sorts by CPU (-1 first), then by the PMU's address (the measured
// order: tracepoint, software, task_clock, cpu_clock, then the rest by
// registration), then by group_index (the order the leaders were added),
// whatever order perf opened them in.
func TestGroupsInTreeOrder(t *testing.T) {
	sw, tp, tc, cc, hw := &swPMU{}, &tpPMU{}, &clockPMU{name: "task_clock"}, &clockPMU{name: "cpu_clock"}, &hwPMU{}
	sw.index, cc.index, tc.index, tp.index, hw.index = 0, 1, 2, 3, 4
	names := map[*Event]string{}
	ev := func(name string, cpu int, p PMU) *Event {
		e := &Event{pmu: p, cpu: cpu}
		names[e] = name
		return e
	}
	for _, tc := range []struct {
		name   string
		groups []*Event
		want   []string
	}{
		{
			// perf record -e fork,exit,task-clock -- cmd: each event on
			// cpu0 then cpu1, event by event
			"perf record's open order",
			[]*Event{ev("fork0", 0, tp), ev("fork1", 1, tp), ev("exit0", 0, tp), ev("exit1", 1, tp), ev("clock0", 0, tc), ev("clock1", 1, tc)},
			[]string{"fork0", "exit0", "clock0", "fork1", "exit1", "clock1"},
		},
		{
			"any CPU first, PMUs by address",
			[]*Event{ev("cycles0", 0, hw), ev("cpu-clock0", 0, cc), ev("task-clock0", 0, tc), ev("faults0", 0, sw), ev("tp0", 0, tp), ev("any", -1, cc)},
			[]string{"any", "tp0", "faults0", "task-clock0", "cpu-clock0", "cycles0"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range groupsInTreeOrder(tc.groups) {
				got = append(got, names[e])
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tree order (-want +got):\n%s", diff)
			}
			var in []string
			for _, e := range tc.groups {
				in = append(in, names[e])
			}
			if fmt.Sprint(in) == fmt.Sprint(got) {
				t.Errorf("the walk kept the insertion order %v", in)
			}
		})
	}
}
