package runner

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/perftool"
	"perfsim/scenarios"
	"perfsim/sim"
)

// TestCoresightTimelineGolden compares the --timeline of
// coresight-snapshot-sched-out (seed 1) with its golden file: the scheduler's
// rows show dd on CPU0, CPU3, CPU1, CPU2, CPU1 and the cs_etm rows label the
// periods P1..P5 (and P6, after the snapshot re-enabled the event) the way
// seed 004's diagram does.
func TestCoresightTimelineGolden(t *testing.T) {
	f := loadBuiltin(t, "coresight-snapshot-sched-out")
	r, _, err := RunOnce(f, Options{Chooser: ScheduleChooser(1, 0), KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/run-timeline/coresight-snapshot-sched-out.golden", r.Timeline(60))
}

// TestCoresightSnapshotTwice takes a second SIGUSR2 snapshot 5 ms after seed
// 004's: today's tool writes only what came since the first (P6's start);
// cs_etm_find_snapshot() (before 2f01c200d440) takes every wrapped buffer
// whole again, so trace the first snapshot wrote appears twice and
// cs-snapshot-no-dup-no-reorder is violated.
func TestCoresightSnapshotTwice(t *testing.T) {
	b, ok := scenarios.LookupBuiltin("coresight-snapshot-sched-out")
	if !ok {
		t.Fatal("no coresight-snapshot-sched-out")
	}
	src := &scenarios.Source{Name: "twice.sim", Src: append(append([]byte(nil), b.Src...), "at 59119us snapshot etm\n"...)}
	f, err := Load(src)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		Snapshots int64
		Dups      bool
		Violated  bool
	}
	for _, tc := range []struct {
		tool string
		want result
	}{
		{perftool.FindSnapshotRemoved, result{Snapshots: 2, Dups: false, Violated: false}},
		{perftool.FindSnapshotPre, result{Snapshots: 2, Dups: true, Violated: true}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			// cost-model=free: under this machine's costs perf is still copying the
			// first snapshot's 10 MiB (2.7 us a KiB: about 28 ms) when dd exits, so
			// a second SIGUSR2 at 55 ms is never taken (the tool logic is the test).
			knobs := map[string]string{perftool.ToolKnobFindSnapshot: tc.tool, "cost-model": "free"}
			r, _, err := RunOnce(f, Options{Knobs: knobs, Chooser: sim.NewRandom(1)})
			if err != nil {
				t.Fatal(err)
			}
			n, _ := r.Perf.Observe("cs.snapshot.count")
			dups, _ := r.Perf.Observe("cs.snapshot.dups")
			got := result{Snapshots: n, Dups: dups > 0, Violated: r.violated(perftool.InvCSSnapshotNoDup)}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestCoresightVarianceSpread runs coresight-snapshot-variance over 16
// random schedules per behaviour (unbounded disturbances, as explore
// --budget 1000 draws them) and checks the shape of the snapshot size's
// spread: today it varies by whole buffers, from several MiB to about 20
// (seed 004's range), the tool before 2f01c200d440
// takes at least one whole 4 MiB buffer and more than today's tool, and the
// is-active gate never more than the running period's 3 MiB.
func TestCoresightVarianceSpread(t *testing.T) {
	const MiB = 1 << 20
	f := loadBuiltin(t, "coresight-snapshot-variance")
	spread := func(knobs map[string]string) (lo, med, hi int64) {
		var sizes []int64
		for seed := uint64(1); seed <= 16; seed++ {
			r, _, err := RunOnce(f, Options{Knobs: knobs, Chooser: ScheduleChooser(seed, 1000)})
			if err != nil {
				t.Fatal(err)
			}
			v, _ := r.Perf.Observe("cs.snapshot.bytes")
			sizes = append(sizes, v)
		}
		slices.Sort(sizes)
		return sizes[0], sizes[len(sizes)/2], sizes[len(sizes)-1]
	}
	mib := func(n int64) string { return fmt.Sprintf("%.1fMiB", float64(n)/MiB) }
	tLo, tMed, tHi := spread(nil)
	pLo, pMed, pHi := spread(map[string]string{perftool.ToolKnobFindSnapshot: perftool.FindSnapshotPre})
	iLo, iMed, iHi := spread(map[string]string{"coresight-snapshot-sync": "is-active"})
	t.Logf("snapshot size min/median/max: today %s/%s/%s, pre-2f01c200d440 %s/%s/%s, is-active %s/%s/%s",
		mib(tLo), mib(tMed), mib(tHi), mib(pLo), mib(pMed), mib(pHi), mib(iLo), mib(iMed), mib(iHi))
	if tHi-tLo < 4*MiB {
		t.Errorf("today's snapshot should vary by a buffer or more: %s..%s", mib(tLo), mib(tHi))
	}
	// Seed 004 on its 6-CPU Juno with -S's default 4 MiB per CPU: "from
	// several MBs to ~20MBs".
	if tLo >= 8*MiB || tHi < 12*MiB || tHi > 24*MiB {
		t.Errorf("today's snapshot sizes %s..%s: want several MiB up to ~20 MiB, as seed 004", mib(tLo), mib(tHi))
	}
	if pLo < 4*MiB || pMed <= tMed {
		t.Errorf("pre-2f01c200d440 should take whole wrapped buffers: %s/%s vs today's median %s", mib(pLo), mib(pMed), mib(tMed))
	}
	if iHi > 3*MiB {
		t.Errorf("is-active keeps at most the running period: max %s", mib(iHi))
	}
}
