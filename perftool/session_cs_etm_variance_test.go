package perftool

import (
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"perfsim/pmu/coresight"
	"perfsim/sim"
)

// randomSchedule is dd's life under a scheduler that places it: n periods of
// 1..10 ms, each on one of 4 CPUs.
func randomSchedule(rng *rand.Rand, n int) []csPeriod {
	ps := make([]csPeriod, n)
	for i := range ps {
		ps[i] = csPeriod{cpu: rng.IntN(4), d: sim.Duration(1+rng.IntN(10)) * sim.Millisecond}
	}
	return ps
}

// spread is min, median and max of snapshot sizes in bytes.
type spread struct{ Min, Med, Max int }

func spreadOf(sizes []int) spread {
	s := slices.Clone(sizes)
	slices.Sort(s)
	return spread{s[0], s[len(s)/2], s[len(s)-1]}
}

// TestCSEtmSnapshotVariance is the "from several MBs to ~20MBs" exploration:
// 16 schedules of 40 periods (dd traced at 300 MB/s, 4 MiB AUX per CPU, ETR
// of the same size), a snapshot at the end of each. It reports the spread of
// the snapshot size under each kernel/tool pair and checks its shape: the
// tool before 2f01c200d440 dumps every wrapped buffer whole (16 MiB, the
// four buffers, nearly always), today's tool takes what came since the last
// read modulo the buffer (anything up to 16 MiB), and the is-active patch
// leaves only the running period, at most the sink's size.
func TestCSEtmSnapshotVariance(t *testing.T) {
	const MiB = 1 << 20
	rng := rand.New(rand.NewPCG(4, 0xde8a6caef56a4498))
	var schedules [][]csPeriod
	for range 16 {
		schedules = append(schedules, randomSchedule(rng, 40))
	}
	got := map[string]spread{}
	tools := []string{FindSnapshotRemoved, FindSnapshotPre}
	for _, kernel := range []string{coresight.SyncEveryStop, coresight.SyncIsActive} {
		sizes := map[string][]int{}
		for _, ps := range schedules {
			// the tool knob only changes how the snapshot is read: one
			// kernel run, read by each tool from the same AUX buffers
			r := newCSRun(t, 4, coresight.Config{Sink: coresight.SinkETR, Rate: 300 << 20,
				Knobs: coresight.Knobs{SnapshotSync: kernel}}, 4*MiB)
			r.replay(ps)
			for _, tool := range tools {
				rep := r.dev.NewAnalyzer().Analyze(r.freshMmaps().read(tool))
				if rep.Dups != 0 || rep.OutOrder != 0 {
					t.Errorf("%s/%s: %v", kernel, tool, rep)
				}
				sizes[tool] = append(sizes[tool], rep.Bytes)
			}
		}
		for _, tool := range tools {
			sp := spreadOf(sizes[tool])
			got[csKnobName(kernel, tool)] = sp
			t.Logf("%-28s snapshot size min %s median %s max %s", csKnobName(kernel, tool),
				coresight.MiB(int64(sp.Min)), coresight.MiB(int64(sp.Med)), coresight.MiB(int64(sp.Max)))
		}
	}
	today, pre := got["every-stop/removed"], got["every-stop/pre-2f01c200d440"]
	if pre.Min < 12*MiB || pre.Max != 16*MiB {
		t.Errorf("pre-2f01c200d440 should dump (nearly) all four wrapped 4 MiB buffers: %+v", pre)
	}
	if today.Max-today.Min < 4*MiB {
		t.Errorf("today's tool should still vary by more than a buffer: %+v", today)
	}
	for _, tool := range []string{FindSnapshotRemoved, FindSnapshotPre} {
		if sp := got[csKnobName(coresight.SyncIsActive, tool)]; sp.Max > 3*MiB+MiB/8 {
			t.Errorf("is-active keeps at most one 10 ms period (3 MiB): %+v", sp)
		}
	}
}

// TestCSEtmSinkSmallerThanAux is Mathieu Poirier's case: a 4 MiB AUX buffer
// behind a 1 MiB ETR. dd runs on CPU0 only, scheduled out every 5 ms (1.5
// MiB of trace per stint). Today every sched-out commits the ETR's last MiB,
// so the AUX buffer holds 4 MiB of history (four stints, each with a gap and
// a barrier packet); with the is-active gate only the ETR's 1 MiB survives.
func TestCSEtmSinkSmallerThanAux(t *testing.T) {
	const MiB = 1 << 20
	ps := make([]csPeriod, 8)
	for i := range ps {
		ps[i] = csPeriod{cpu: 0, d: 5 * sim.Millisecond}
	}
	tests := []struct {
		kernel  string
		bytes   int
		periods []int
		contig  bool
	}{
		{coresight.SyncEveryStop, 4 * MiB, []int{5, 6, 7, 8}, false},
		{coresight.SyncIsActive, 1 * MiB, []int{8}, true},
	}
	for _, tc := range tests {
		t.Run(tc.kernel, func(t *testing.T) {
			r := newCSRun(t, 4, coresight.Config{Sink: coresight.SinkETR, SinkSize: MiB, Rate: 300 << 20,
				Knobs: coresight.Knobs{SnapshotSync: tc.kernel}}, 4*MiB)
			rep := r.dev.NewAnalyzer().Analyze(r.run(ps, FindSnapshotRemoved))
			got := []any{rep.Bytes, rep.PeriodList(), rep.Contiguous()}
			want := []any{tc.bytes, tc.periods, tc.contig}
			if !slices.EqualFunc(got, want, func(a, b any) bool { return fmtAny(a) == fmtAny(b) }) {
				t.Errorf("got bytes, periods, contiguous %v, want %v (%v)", got, want, rep)
			}
		})
	}
}

// TestCSEtmSnapshotNoDupNoReorder is the snapshot invariant as a rapid
// property: whatever the placement, under today's kernel and either tool, a
// single snapshot never holds a trace byte twice or out of order, and under
// the is-active gate it holds only the last period.
func TestCSEtmSnapshotNoDupNoReorder(t *testing.T) {
	const MiB = 1 << 20
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 12).Draw(rt, "periods")
		ps := make([]csPeriod, n)
		for i := range ps {
			ps[i] = csPeriod{cpu: rapid.IntRange(0, 3).Draw(rt, "cpu"),
				d: sim.Duration(rapid.IntRange(1, 8).Draw(rt, "ms")) * sim.Millisecond}
		}
		kernel := rapid.SampledFrom([]string{coresight.SyncEveryStop, coresight.SyncIsActive}).Draw(rt, "kernel")
		tool := rapid.SampledFrom([]string{FindSnapshotRemoved, FindSnapshotPre}).Draw(rt, "tool")
		r := newCSRun(rt, 4, coresight.Config{Sink: coresight.SinkETR, Rate: 100 << 20,
			Knobs: coresight.Knobs{SnapshotSync: kernel}}, MiB)
		rep := r.dev.NewAnalyzer().Analyze(r.run(ps, tool))
		if rep.Dups != 0 || rep.OutOrder != 0 || rep.Garbage != 0 {
			rt.Fatalf("%s/%s: %v", kernel, tool, rep)
		}
		if kernel == coresight.SyncIsActive && (len(rep.PerPer) != 1 || rep.PerPer[n] == 0) {
			rt.Fatalf("is-active snapshot holds periods %v, want only P%d", rep.PeriodList(), n)
		}
	})
}
