package explore

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// preFix is task-work-nmi-race's old kernel with kernel work free: there the
// quiet schedule is clean and one disturbance shows the race (under this
// machine's costs even the quiet schedule loses the work).
var preFix = map[string]string{"task-work-nmi": "pre-ef1ea98c8fff", "cost-model": "free"}

// TestDeterminism: the same scenario, knobs and seed give a byte-identical JSON
// result and trace.
func TestDeterminism(t *testing.T) {
	for _, name := range []string{"sched-forced-interleavings", "task-work-nmi-race", "sched-migrate-timeline"} {
		f := loadBuiltin(t, name)
		for seed := uint64(1); seed <= 5; seed++ {
			var outs [2]string
			var traces [2]string
			for i := range outs {
				r, res, err := runner.RunOnce(f, runner.Options{Chooser: runner.ScheduleChooser(seed, 0), KeepTrace: true})
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				if err := res.WriteJSON(&b); err != nil {
					t.Fatal(err)
				}
				outs[i], traces[i] = b.String(), r.Trace().Text()
			}
			if outs[0] != outs[1] {
				t.Errorf("%s seed %d: JSON differs:\n%s", name, seed, cmp.Diff(outs[0], outs[1]))
			}
			if traces[0] != traces[1] {
				t.Errorf("%s seed %d: trace differs", name, seed)
			}
		}
	}
}

// TestExploreFindsAndShrinks: with the pre-fix task_work behaviour both
// strategies find the lost task_work, shrink it to one disturbing decision (the
// NMI taken inside __schedule with irqs off), and its replay reproduces the
// violation identically, twice.
func TestExploreFindsAndShrinks(t *testing.T) {
	f := loadBuiltin(t, "task-work-nmi-race")
	for _, strategy := range []string{"random", "rapid"} {
		t.Run(strategy, func(t *testing.T) {
			ex, err := Explore(f, Options{Strategy: strategy, Runs: 200, Seed: 1, Knobs: preFix})
			if err != nil {
				t.Fatal(err)
			}
			if ex.Found == nil || !ex.Failed {
				t.Fatal("no violation found")
			}
			fd := ex.Found
			if got := countNonZero(fd.Decisions); got != 1 || len(fd.Lines) != 1 {
				t.Errorf("shrunk schedule has %d disturbing decisions (%v), want 1", got, fd.Lines)
			}
			if want := "invariant task-work-before-user-return at 1.5ms on cpu0: app/101 returns to user mode with 1 task_work(s) queued and TIF_NOTIFY_RESUME clear"; fd.Violation != want {
				t.Errorf("violation = %q, want %q", fd.Violation, want)
			}
			rf := ex.ReplayFile()
			var b bytes.Buffer
			if _, err := rf.WriteTo(&b); err != nil {
				t.Fatal(err)
			}
			back, err := ParseReplayFile("x.replay", &b)
			if err != nil {
				t.Fatal(err)
			}
			var outs [2]string
			for i := range outs {
				r, res, err := runner.RunOnce(f, runner.Options{Knobs: preFix, Chooser: sim.NewReplay(back.Decisions), KeepTrace: true, StopAtViolation: true})
				if err != nil {
					t.Fatal(err)
				}
				var j bytes.Buffer
				_ = res.WriteJSON(&j)
				outs[i] = j.String() + r.Trace().Text() + r.Timeline(60)
				if len(res.Violations) == 0 || res.Violations[0].String() != fd.Violation[len("invariant "):] {
					t.Errorf("replay %d: violations %v, want %s", i, res.Violations, fd.Violation)
				}
			}
			if outs[0] != outs[1] {
				t.Errorf("two replays differ:\n%s", cmp.Diff(outs[0], outs[1]))
			}
		})
	}
}

// TestExploreCountsToday: today's kernel has no violation; the outcome counts
// follow herd7's verdicts ("sometimes mmap.munmap-empty > 0" holds in every
// schedule: a munmap() of a ring takes about 7us, so the second thread
// always meets the first inside it).
func TestExploreCountsToday(t *testing.T) {
	f := loadBuiltin(t, "munmap-ring-twice")
	ex, err := Explore(f, Options{Runs: 300, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Found != nil || ex.Failed || ex.Schedules != 300 {
		t.Fatalf("found %v failed %v schedules %d", ex.Found, ex.Failed, ex.Schedules)
	}
	var got []string
	for _, c := range ex.Outcomes {
		got = append(got, c.Verdict)
		if c.Positive+c.Negative != 300 {
			t.Errorf("%s: %d+%d schedules", c.Outcome, c.Positive, c.Negative)
		}
	}
	if diff := cmp.Diff([]string{"Never", "Always", "Always", "Always", "Always", "Always", "Always", "Always", "Always", "Always"}, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

// TestShrinkKeepsTheViolation: shrinking never returns a schedule that fails
// another way, and a quiet schedule (all zeros) does not fail at all.
func TestShrinkKeepsTheViolation(t *testing.T) {
	f := loadBuiltin(t, "task-work-nmi-race")
	r, res, err := runner.RunOnce(f, runner.Options{Knobs: preFix, StopAtViolation: true})
	if err != nil {
		t.Fatal(err)
	}
	if sig := signature(r, res); sig != "" {
		t.Fatalf("the quiet schedule fails: %s", sig)
	}
	if _, err := Explore(f, Options{Strategy: "bogus"}); err == nil {
		t.Error("unknown strategy accepted")
	}
	if _, err := Explore(f, Options{Knobs: map[string]string{"nope": "x"}}); err == nil {
		t.Error("unknown knob accepted")
	}
}

func BenchmarkExploreTaskWorkRace(b *testing.B) {
	src, _ := scenarios.Open("task-work-nmi-race")
	f, _ := runner.Load(src)
	for i := 0; i < b.N; i++ {
		if _, _, err := runner.RunOnce(f, runner.Options{Chooser: runner.ScheduleChooser(uint64(i), 0), StopAtViolation: true}); err != nil {
			b.Fatal(err)
		}
	}
}
