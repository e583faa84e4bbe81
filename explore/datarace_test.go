package explore

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDataRaceReportsAcrossSchedules: pin-count-open-race on the kernel
// before 6c605f837115 declares the race (sometimes !data-race), so its
// schedules pass and the exploration counts the KCSAN reports in every one,
// first in schedule 1 (the openers' pins and the victim's exit pin each race
// an unlocked unpin); two shards merged add up to one search. On today's
// kernel no schedule reports anything.
func TestDataRaceReportsAcrossSchedules(t *testing.T) {
	f := loadBuiltin(t, "pin-count-open-race")
	old := map[string]string{"unpin-ctx-lock": "pre-6c605f837115"}
	ex, err := Explore(f, Options{Runs: 4, Seed: 1, Jobs: 1, Knobs: old})
	if err != nil {
		t.Fatal(err)
	}
	reps := reportCounts
	// The victim's exit pins its context too (perf_event_exit_task_context():
	// perf_pin_task_context(), as in the kernels before the fix), against the
	// openers' unlocked unpins.
	want := []reportCount{{"BUG: KCSAN: data-race in find_get_context / perf_unpin_context: read-write to ctx->pin_count", 4, 1},
		{"BUG: KCSAN: data-race in perf_pin_task_context / perf_unpin_context: read-write to ctx->pin_count", 4, 1}}
	if d := cmp.Diff(want, reps(ex.DataRaceReports)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if ex.Failed {
		t.Errorf("the declared race failed the search: %+v", ex.Found)
	}
	var parts []*Result
	for i := 0; i < 2; i++ {
		p, err := Explore(f, Options{Runs: 4, Seed: 1, Jobs: 1, Knobs: old, Shard: i, Shards: 2})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	m, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, reps(m.DataRaceReports)); d != "" {
		t.Errorf("merged shards (-want +got):\n%s", d)
	}
	today, err := Explore(f, Options{Runs: 4, Seed: 1, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(today.DataRaceReports) != 0 || today.Failed {
		t.Errorf("today's kernel: %d data-race reports, failed %v", len(today.DataRaceReports), today.Failed)
	}
}

// TestDataRaceMmapRBToday: mmap-rb-vs-sched-out shows syzbot's KCSAN report
// on today's kernel (perf_mmap_rb() folds the times without ctx->lock), in
// every schedule (perf_event_update_time()'s read and write of event->tstamp,
// one read-modify-write on each side); under
// mmap-update-time=proposed (ctx->lock around the update) nothing.
func TestDataRaceMmapRBToday(t *testing.T) {
	f := loadBuiltin(t, "mmap-rb-vs-sched-out")
	ex, err := Explore(f, Options{Runs: 4, Seed: 1, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := reportCounts(ex.DataRaceReports)
	want := []reportCount{{"BUG: KCSAN: data-race in perf_event_set_state / perf_mmap_rb: read-write to event->tstamp", 4, 1}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if ex.Failed {
		t.Errorf("the declared race failed the search: %+v", ex.Found)
	}
	fixed, err := Explore(f, Options{Runs: 4, Seed: 1, Jobs: 1, Knobs: map[string]string{"mmap-update-time": "proposed"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(fixed.DataRaceReports) != 0 || fixed.Failed {
		t.Errorf("mmap-update-time=proposed: %d data-race reports, failed %v", len(fixed.DataRaceReports), fixed.Failed)
	}
}

// TestDataRaceCorkOrdersTheWorkload: perf's mmap() of its rings happens
// before the workload's exec enables the events: the child reads the cork
// pipe under pipe->mutex, which perf's write released, even when the byte
// is there before the child reads (no sleep, so no wake-up edge). Every
// schedule of munmap-ring-twice with at most two disturbances (621 of them
// found a false perf_mmap_rb / perf_event_set_state race without the edge).
func TestDataRaceCorkOrdersTheWorkload(t *testing.T) {
	f := loadBuiltin(t, "munmap-ring-twice")
	ex, err := Explore(f, Options{Strategy: "bounded", Budget: 2, Runs: 5000, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Failed || len(ex.DataRaceReports) != 0 || ex.CompleteUpTo != 2 {
		t.Errorf("failed %v (%+v), %d data-race reports, complete up to %d after %d schedules", ex.Failed, ex.Found, len(ex.DataRaceReports), ex.CompleteUpTo, ex.Schedules)
	}
}
