package pmu_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestOutputReadFootprints: a PMI's sample with PERF_SAMPLE_READ annotates
// perf_output_read() (pmu/footprint_output_read.go) instead of marking it:
// the PMI's fragment has no mark, and what it reads of the event or its
// group, right after perf_prepare_sample()'s perf_sample_data, is exactly
// this (the sibling a software event, not ACTIVE on the PMU read: its
// count only).
func TestOutputReadFootprints(t *testing.T) {
	const (
		readSize = "perf_sample_data w, event->read_size r"
		times    = ", ctx->is_active r, ctx->time w, event->tstamp w"
		value    = ", event->count r, event->child_count r"
		member   = ", event->state r, event->oncpu r" + value
		group    = ", event->group_leader r, event->sibling_list r" + member + member
	)
	for _, tc := range []struct {
		name       string
		readFormat uint64
		sibling    bool
		want       string
	}{
		{name: "one event", want: readSize + value},
		{name: "one event, times", readFormat: uapi.PERF_FORMAT_TOTAL_TIME_ENABLED | uapi.PERF_FORMAT_TOTAL_TIME_RUNNING, want: readSize + times + value},
		{name: "a group", readFormat: uapi.PERF_FORMAT_GROUP | uapi.PERF_FORMAT_ID, sibling: true, want: readSize + group},
		{name: "a group, lost", readFormat: uapi.PERF_FORMAT_GROUP | uapi.PERF_FORMAT_LOST, sibling: true,
			want: readSize + strings.ReplaceAll(group, value, value+", event->lost_samples r")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mc := newMachine(t, 1, nil, pmu.Knobs{})
			l := &fragLog{}
			mc.m.OnSegments(l)
			mc.s.Spawn("sampled", sched.MaskOf(0), sched.Call(func(t2 *sched.Task) {
				leader := cyclesAttr(20000)
				leader.SampleType |= uapi.PERF_SAMPLE_READ
				leader.ReadFormat = tc.readFormat
				fd, err := mc.k.PerfEventOpen(t2, &leader, 0, -1, -1, 0)
				if err != nil {
					panic(err)
				}
				if tc.sibling {
					a := swAttr(uapi.PERF_COUNT_SW_PAGE_FAULTS)
					a.ReadFormat = tc.readFormat
					if _, err := mc.k.PerfEventOpen(t2, &a, 0, -1, fd, 0); err != nil {
						panic(err)
					}
				}
				t2.Spend(50 * sim.Microsecond)
			}))
			if err := mc.m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			pmis := 0
			for _, f := range l.frags {
				if f[0] != "enter:PMI" {
					continue
				}
				pmis++
				if i := slices.IndexFunc(f, func(s string) bool { return strings.HasPrefix(s, "UNAUDITED ") }); i >= 0 {
					t.Errorf("the PMI's fragment is marked: %s", f[i])
				}
				i := slices.Index(f, "perf_sample_data w")
				if i < 0 {
					t.Fatalf("the PMI's fragment prepares no sample: %v", f)
				}
				n := strings.Count(tc.want, ", ") + 1
				got := strings.Join(f[i:min(i+n, len(f))], ", ")
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Fatalf("perf_output_read()'s footprint (-want +got):\n%s", diff)
				}
			}
			if pmis == 0 {
				t.Fatal("no PMI")
			}
		})
	}
}
