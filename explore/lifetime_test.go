package explore

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLifetimeKey: a report without its numbers and places, so the same
// bug in two schedules counts once.
func TestLifetimeKey(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{"unreferenced object (leak): event 2 (cpu, DEAD) has refcount 1 at the end, 0 held (inherited from event 1, its task exited); last reference taken by x on cpu0 at 1.667us",
			"unreferenced object (leak): event N (cpu, DEAD) has refcount N at the end, N held (inherited from event N, its task exited)"},
		{"unreferenced object (leak): the perf_buffer event 1 mapped (allocated by rb_alloc on cpu0 by perf/102 in mmap at 0) has refcount 1 at the end, 0 events attached; last put",
			"unreferenced object (leak): the perf_buffer event N mapped has refcount N at the end, N events attached"},
		{"refcount_t: addition on 0; use-after-free: event->mmap_count of event 4 taken from 0 by perf_mmap_aux on cpu2 by perf/104 in mmap at 10us",
			"refcount_t: addition on N; use-after-free: event->mmap_count of event N taken from N by perf_mmap_aux"},
		{"BUG: KASAN: slab-use-after-free in perf_ioctl: event 1 (software) freed by free_event_rcu() at 200us, its last reference dropped by put_event on cpu0 by t/101",
			"BUG: KASAN: slab-use-after-free in perf_ioctl: event N (software) freed by free_event_rcu() at N, its last reference dropped by put_event"},
	} {
		if got := lifetimeKey(tc.msg); got != tc.want {
			t.Errorf("lifetimeKey(%q)\n got %q\nwant %q", tc.msg, got, tc.want)
		}
	}
}

// TestLifetimeReportsAcrossSchedules: pt-throttle-group declares the
// upstream AUX leak (sometimes !object-lifetime), so its schedules pass and
// the exploration says how many showed the leaked ring buffer: every one,
// first in schedule 1; two shards merged add up.
func TestLifetimeReportsAcrossSchedules(t *testing.T) {
	f := loadBuiltin(t, "pt-throttle-group")
	ex, err := Explore(f, Options{Runs: 4, Seed: 1, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := reportCounts(ex.LifetimeReports)
	want := []reportCount{{"unreferenced object (leak): the perf_buffer event N mapped has refcount N at the end, N events attached, its AUX area still allocated (aux_refcount N, aux_mmap_count N)", 4, 1}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if ex.Failed {
		t.Errorf("the declared leak failed the search: %+v", ex.Found)
	}
	var tally lifetimeTally
	tally.count(&LifetimeReport{Key: "k", Schedules: 3, First: 7, Example: "b"})
	tally.count(&LifetimeReport{Key: "k", Schedules: 2, First: 2, Example: "a"})
	if d := cmp.Diff([]*LifetimeReport{{Key: "k", Schedules: 5, First: 2, Example: "a"}}, tally.Reports); d != "" {
		t.Errorf("merged shards (-want +got):\n%s", d)
	}
}

// reportCount is what the report tests compare of an exploration's
// lifetime or data-race report: its key, how many schedules showed it and
// the first.
type reportCount struct {
	Key              string
	Schedules, First int
}

func reportCounts(rs []*LifetimeReport) []reportCount {
	var out []reportCount
	for _, r := range rs {
		out = append(out, reportCount{r.Key, r.Schedules, r.First})
	}
	return out
}
