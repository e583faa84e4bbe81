package explore

import (
	"strings"
	"testing"

	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// TestOopsExpectedIsNoViolation: mmap-map-range-fail states today's oops as
// its expected result ("always kernel.oops"), so exploring it finds no
// violation and the outcome is Always; the same file saying "never
// kernel.oops" instead finds the oops at once, named as an oops.
func TestOopsExpectedIsNoViolation(t *testing.T) {
	f := loadBuiltin(t, "mmap-map-range-fail")
	ex, err := Explore(f, Options{Strategy: "random", Runs: 20, Seed: 1, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Found != nil {
		t.Fatalf("found %q at schedule %d; want no violation", ex.Found.Violation, ex.Found.Schedule)
	}
	var verdict string
	for _, o := range ex.Outcomes {
		if strings.HasSuffix(o.Outcome, "always kernel.oops") {
			verdict = o.Verdict
		}
	}
	if verdict != "Always" {
		t.Errorf("always kernel.oops: verdict %q; want Always (every schedule oopses)", verdict)
	}

	src, err := scenarios.Open("mmap-map-range-fail")
	if err != nil {
		t.Fatal(err)
	}
	src.Src = []byte(strings.Replace(string(src.Src), "  always kernel.oops ", "  never kernel.oops ", 1))
	f, err = runner.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	ex, err = Explore(f, Options{Strategy: "random", Runs: 20, Seed: 1, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Found == nil || ex.Found.Schedule != 1 || !strings.HasPrefix(ex.Found.Violation, "kernel oops on cpu0 at ") ||
		!strings.HasSuffix(ex.Found.Violation, ": possible recursive locking detected: perf/102 already holds event->mmap_mutex") {
		t.Fatalf("never kernel.oops: found %+v; want the oops at schedule 1", ex.Found)
	}
}

// TestFaultSearchFindsMapRangeDeadlock: with "fail any in pr occurrence
// any" every allocation perf record's setup makes is a decision, and the
// bounded search at budget 1 fails each in turn (syzkaller's fail-nth loop):
// on today's kernel it finds the map_range() self-deadlock and shrinks it to
// that one failure; with f74b9f4ba63f's order every error path gives back
// what it took, and the search says it ran every schedule of one failure.
func TestFaultSearchFindsMapRangeDeadlock(t *testing.T) {
	const src = `scenario perf-alloc-search
cpus 2
task app cpu1
  repeat 20
    syscall getpid
    sleep 10us
record pr: -e syscalls:sys_enter_getpid --no-bpf-event -- app
fail any in pr occurrence any
always perf.error == 0 || faults.injected == 1
always mmap.locked-vm == 0
always rb.count == 0
`
	f, err := runner.Load(&scenarios.Source{Name: "perf-alloc-search.sim", Src: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := Explore(f, Options{Strategy: "bounded", Budget: 1, Runs: 1000, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Found == nil || !strings.HasSuffix(ex.Found.Violation, "possible recursive locking detected: perf/102 already holds event->mmap_mutex") {
		t.Fatalf("found %+v; want the map_range() self-deadlock", ex.Found)
	}
	if got := strings.Join(ex.Found.Lines, "\n"); !strings.Contains(got, "should_fail:remap_pfn_range: option 1 of 2") {
		t.Errorf("the shrunk schedule's disturbing choices:\n%s\nwant the one failure of remap_pfn_range", got)
	}
	ex, err = Explore(f, Options{Strategy: "bounded", Budget: 1, Runs: 1000, Jobs: 1, Knobs: map[string]string{"map-range-fail": "pre-77de62ad3de3"}})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Found != nil || ex.CompleteUpTo != 1 || ex.Schedules != 36 {
		t.Errorf("pre-77de62ad3de3: found %v, complete up to %d, %d schedules; want no violation in the 36 schedules of at most one disturbing decision (each allocation of perf's failed in turn, or a tie or interrupt decided otherwise)",
			ex.Found, ex.CompleteUpTo, ex.Schedules)
	}
}

// TestOopsExpectedInSomeSchedules: mmap-fail-vs-mmap states today's
// deadlock for the schedules that reach it ("always kernel.oops || ..."):
// the schedules where parent's failing mmap() is the event's first oops,
// the others meet the rest of the outcome, and neither fails the run or the
// search. Without the oops term the first oops is the search's violation.
func TestOopsExpectedInSomeSchedules(t *testing.T) {
	f := loadBuiltin(t, "mmap-fail-vs-mmap")
	oopsed, clean := 0, 0
	for seed := uint64(1); seed <= 20; seed++ {
		_, res, err := runner.RunOnce(f, runner.Options{Chooser: sim.NewRandom(seed)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed {
			t.Fatalf("seed %d: the run failed (oops %v)", seed, res.Oops)
		}
		switch {
		case res.Oops == nil:
			clean++
		case strings.HasSuffix(res.Oops.Message, "possible recursive locking detected: parent/102 already holds event->mmap_mutex"):
			oopsed++
		default:
			t.Fatalf("seed %d: oops %q; want today's recursive locking of event->mmap_mutex", seed, res.Oops.Message)
		}
	}
	if oopsed == 0 || clean == 0 {
		t.Errorf("20 seeds: %d oopsed, %d did not; want both (the deadlock needs parent's mapping first)", oopsed, clean)
	}

	src, err := scenarios.Open("mmap-fail-vs-mmap")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src.Src)
	if !strings.Contains(text, "always kernel.oops || ") {
		t.Fatal("mmap-fail-vs-mmap no longer states the oops as a disjunction")
	}
	src.Src = []byte(strings.Replace(text, "always kernel.oops || ", "always ", 1))
	if f, err = runner.Load(src); err != nil {
		t.Fatal(err)
	}
	ex, err := Explore(f, Options{Strategy: "random", Runs: 20, Seed: 1, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Found == nil || !strings.HasSuffix(ex.Found.Violation, "possible recursive locking detected: parent/102 already holds event->mmap_mutex") {
		t.Fatalf("without the oops term: found %+v; want the deadlock as the violation", ex.Found)
	}
}

// TestRacedCloseFreesNewRing: mmap-vs-last-munmap on today's kernel. Some
// schedules put child's mmap() between parent's close's two decrements:
// the object-lifetime oracle reports child's new ring freed while its VMA
// maps it, and child's munmap() oopses on event->rb == NULL; the file
// states both as expected, so no run fails. With mmap-raced-close=
// pre-59741451b49c no schedule does either.
func TestRacedCloseFreesNewRing(t *testing.T) {
	f := loadBuiltin(t, "mmap-vs-last-munmap")
	for _, knob := range []string{"today", "pre-59741451b49c"} {
		raced := 0
		for seed := uint64(1); seed <= 20; seed++ {
			_, res, err := runner.RunOnce(f, runner.Options{Chooser: sim.NewRandom(seed), Knobs: map[string]string{"mmap-raced-close": knob}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Failed {
				t.Fatalf("%s, seed %d: the run failed (oops %v, violations %v)", knob, seed, res.Oops, res.Violations)
			}
			uaf := false
			for _, v := range res.Violations {
				uaf = uaf || v.Invariant == "object-lifetime" && strings.Contains(v.Message, "use after free: the perf_buffer event 1 mapped") && strings.Contains(v.Message, "while 1 VMA(s) still map its pages")
			}
			oops := res.Oops != nil && strings.HasSuffix(res.Oops.Message, "BUG: kernel NULL pointer dereference in perf_mmap_close: ring_buffer_get(event) is NULL (rb->mmap_user)")
			if uaf != oops || res.Oops != nil && !oops {
				t.Fatalf("%s, seed %d: use after free %v, oops %v; want both or neither", knob, seed, uaf, res.Oops)
			}
			if uaf {
				raced++
			}
		}
		if knob == "today" && raced == 0 || knob != "today" && raced != 0 {
			t.Errorf("mmap-raced-close=%s: %d of 20 seeds freed the new ring under its mapping", knob, raced)
		}
	}
}
