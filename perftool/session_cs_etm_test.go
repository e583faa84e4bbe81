package perftool

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu/coresight"
)

// csSnapshot is what a test compares of a snapshot.
type csSnapshot struct {
	Periods    []int
	MiB        string
	PerCPU     map[int]int
	Contiguous bool
	Dups       int
	OutOfOrder int
}

func summarize(dev *coresight.Device, chunks []coresight.Chunk) csSnapshot {
	r := dev.NewAnalyzer().Analyze(chunks)
	return csSnapshot{Periods: r.PeriodList(), MiB: coresight.MiB(int64(r.Bytes)), PerCPU: r.PerCPU,
		Contiguous: r.Contiguous(), Dups: r.Dups, OutOfOrder: r.OutOrder}
}

// TestCSEtmSnapshotSeed004 replays seed 004's schedule (dd at 300 MB/s of
// trace, 10 ms per period, 4 MiB AUX buffers behind an ETR of the same size)
// under both kernel and both tool behaviours.
func TestCSEtmSnapshotSeed004(t *testing.T) {
	const MiB = 1 << 20
	tests := []struct {
		kernel, tool string
		want         csSnapshot
	}{{
		// Today: every sched-out copied its period into that CPU's buffer;
		// CPU1's buffer got P3 then P5 (6 MiB into 4 MiB) and the tool takes
		// (6 MiB - 0) mod 4 MiB = 2 MiB of it: P3 is gone and so is P5's start.
		coresight.SyncEveryStop, FindSnapshotRemoved,
		csSnapshot{Periods: []int{1, 2, 4, 5}, MiB: "11.0MiB", PerCPU: map[int]int{0: 3 * MiB, 1: 2 * MiB, 2: 3 * MiB, 3: 3 * MiB}},
	}, {
		// Before 2f01c200d440: CPU1's buffer has wrapped, so the tool takes
		// all 4 MiB of it: P3's last MiB and P5.
		coresight.SyncEveryStop, FindSnapshotPre,
		csSnapshot{Periods: []int{1, 2, 3, 4, 5}, MiB: "13.0MiB", PerCPU: map[int]int{0: 3 * MiB, 1: 4 * MiB, 2: 3 * MiB, 3: 3 * MiB}},
	}, {
		// Leo Yan's is-active gate: sched-outs commit nothing, the snapshot's
		// disable commits the running period: P5 alone, whole and contiguous.
		coresight.SyncIsActive, FindSnapshotRemoved,
		csSnapshot{Periods: []int{5}, MiB: "3.0MiB", PerCPU: map[int]int{1: 3 * MiB}, Contiguous: true},
	}, {
		coresight.SyncIsActive, FindSnapshotPre,
		csSnapshot{Periods: []int{5}, MiB: "3.0MiB", PerCPU: map[int]int{1: 3 * MiB}, Contiguous: true},
	}}
	for _, tc := range tests {
		t.Run(csKnobName(tc.kernel, tc.tool), func(t *testing.T) {
			r := newCSRun(t, 4, coresight.Config{Sink: coresight.SinkETR, Rate: 300 << 20,
				Knobs: coresight.Knobs{SnapshotSync: tc.kernel}}, 4*MiB)
			got := summarize(r.dev, r.run(seed004, tc.tool))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("snapshot (-want +got):\n%s", diff)
			}
			if len(r.dev.Warnings) != 0 {
				t.Errorf("driver warnings: %v", r.dev.Warnings)
			}
		})
	}
}
