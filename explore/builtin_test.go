package explore

import (
	"strings"
	"testing"

	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// builtinTestOverrides shrink the built-ins that are benchmarks so the suite
// stays fast: seed-close-benchmark keeps 3,000,000 calls as its default
// (simrun run), go test runs 30,000.
var builtinTestOverrides = map[string][][2]string{
	"seed-close-benchmark": {{"repeat 3_000_000", "repeat 30_000"}, {"samples == 6_000_001", "samples == 60_001"}},
}

// loadBuiltinForTest loads a built-in with its test overrides applied.
func loadBuiltinForTest(t *testing.T, name string) *scenarios.File {
	t.Helper()
	src, err := scenarios.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	text := string(src.Src)
	for _, o := range builtinTestOverrides[name] {
		if !strings.Contains(text, o[0]) {
			t.Fatalf("%s: test override %q matches nothing", name, o[0])
		}
		text = strings.ReplaceAll(text, o[0], o[1])
	}
	src.Src = []byte(text)
	f, err := runner.Load(src)
	if err != nil {
		t.Fatalf("load:\n%v", err)
	}
	return f
}

// isDefaultVariant: the knob values of v are the file's own (today's code).
func isDefaultVariant(f *scenarios.File, v map[string]string) bool {
	knobs, err := runner.ResolveKnobs(f, nil, nil)
	if err != nil {
		return false
	}
	for k, val := range v {
		if knobs[k] != val {
			return false
		}
	}
	return true
}

// TestBuiltins runs every built-in scenario in every knob variant its outcomes
// mention, on the quiet schedule and a few seeds. With the file's own knobs
// (today's code) every run must meet its outcomes. With an older knob value the
// bug may show, as an invariant violation or an oops (that is the point of the
// variant), but no outcome that applies may fail, and each of its sometimes
// outcomes must be seen in one of the runs.
func TestBuiltins(t *testing.T) {
	t.Parallel() // beside the write audits: its runs share nothing mutable
	bs := scenarios.Builtins()
	if len(bs) == 0 {
		t.Fatal("no built-in scenarios")
	}
	for _, b := range bs {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			if b.Title == "" {
				t.Errorf("%s has no title", b.Name)
			}
			f := loadBuiltinForTest(t, b.Name)
			if f.Scenario == nil || f.Scenario.Name != b.Name {
				t.Errorf("scenario name does not match the file name %s", b.Name)
			}
			for _, v := range runner.Variants(f) {
				today := isDefaultVariant(f, v)
				seen := map[int]bool{}
				choosers := []sim.Chooser{nil, sim.NewRandom(1), sim.NewRandom(2), sim.NewRandom(3)}
				for i, ch := range choosers {
					_, res, err := runner.RunOnce(f, runner.Options{Knobs: v, Chooser: ch})
					if err != nil {
						t.Fatalf("knobs %v run %d: %v", v, i, err)
					}
					failed := res.Failed
					if !today {
						failed = false
						for _, o := range res.Outcomes {
							failed = failed || o.Failure()
						}
					}
					for _, o := range res.Outcomes {
						if o.Status == runner.Seen {
							seen[o.Line] = true
						}
					}
					if failed {
						var b strings.Builder
						res.WriteText(&b, f)
						t.Errorf("knobs %v run %d: outcomes not met:\n%s", v, i, b.String())
					}
				}
				var unseen []*scenarios.Outcome
				for _, o := range f.Outcomes {
					// With an older knob a sometimes outcome may need exploring to be
					// seen (TestBuiltinsOldKnobsFound); today's must be reachable.
					if today && o.Quant == scenarios.Sometimes && appliesTo(o, f, v) && !seen[o.Pos.Line] {
						unseen = append(unseen, o)
					}
				}
				if len(unseen) > 0 {
					// Not in these runs: a sometimes outcome is met when some explored
					// schedule shows it. Every schedule with one disturbing decision.
					ex, err := Explore(f, Options{Strategy: "bounded", Budget: 1, Runs: 5000, Knobs: v, Jobs: 1})
					if err != nil {
						t.Fatal(err)
					}
					// Then random schedules with many disturbances (the search a
					// scenario like coresight-snapshot-variance names in its header).
					var rnd *Result
					for _, o := range unseen {
						for _, c := range ex.Outcomes {
							if c.Line != o.Pos.Line || c.Positive != 0 {
								continue
							}
							if rnd == nil {
								if rnd, err = Explore(f, Options{Strategy: "random", Budget: 1000, Runs: 40, Seed: 1, Knobs: v, Jobs: 1}); err != nil {
									t.Fatal(err)
								}
							}
							for _, rc := range rnd.Outcomes {
								if rc.Line == o.Pos.Line && rc.Positive == 0 {
									t.Errorf("knobs %v: line %d (sometimes) seen in none of %d runs nor %d bounded schedules nor %d random ones", v, o.Pos.Line, len(choosers), ex.Schedules, rnd.Schedules)
								}
							}
						}
					}
				}
			}
		})
	}
}

// appliesTo reports whether o's when conditions hold under the variant v.
func appliesTo(o *scenarios.Outcome, f *scenarios.File, v map[string]string) bool {
	knobs, err := runner.ResolveKnobs(f, v, nil)
	if err != nil {
		return false
	}
	for _, s := range o.When {
		if knobs[s.Name] != s.Value {
			return false
		}
	}
	return true
}

// TestBuiltinsOldKnobsFound: exploring a built-in with the older value of its
// knob finds a violation (the bug, shrunk), and exploring it with today's
// values finds none.
func TestBuiltinsOldKnobsFound(t *testing.T) {
	if testing.Short() {
		t.Skip("explores")
	}
	for _, tc := range []struct {
		name  string
		old   map[string]string
		clean []map[string]string
		// strategy, when set, explores with it (both the old and today's
		// values); noSkid: the shrunk schedule need not hold a PMI by its skid.
		strategy string
		noSkid   bool
		runs     int // schedules to explore with the old value (0: 1000)
		// want is how the violation the old value causes begins: the invariant
		// it breaks or the oops it raises, not just "some violation".
		want string
	}{
		{"rb-backward-read-race", map[string]string{"overwrite-reader": "unpaused"},
			[]map[string]string{{}, {"overwrite-reader": "verify"}}, "", false, 0, "invariant read-record-was-written"},
		// The shipped file, no forced NMI: the cycles PMI lands inside the
		// tracepoint's aux_resume (seed 000).
		{"aux-pause-resume-nmi", map[string]string{"aux-pause-guard": "off"}, []map[string]string{{}}, "", false, 0, "invariant pmu-pause-resume-exclusive"},
		{"rb-data-head-backwards", map[string]string{"rb-put-handle": "pre-1b038c6e05ff"}, []map[string]string{{}}, "", false, 0, "invariant read-record-was-written"},
		{"pmu-pause-output-rb-check", map[string]string{"pause-output-rb-check": "posted"}, []map[string]string{{}}, "", false, 0, "kernel oops on cpu0 at 713.868us: BUG: kernel NULL pointer dereference in rb_toggle_paused()"},
		{"pt-pause-vs-pmi", map[string]string{"pt-pause-resume": "pre-08c7454ceb94"}, []map[string]string{{}}, "", false, 0, "invariant aux-write-in-transaction"},
		{"aux-sample-vs-sched", map[string]string{"pt-snapshot-stop": "pre-d92792a4b26e"}, []map[string]string{{}}, "", false, 0, "invariant aux-sample-is-newest"},
		{"pmu-overflow-vs-sched-out", map[string]string{"pebs-disable-order": "pre-6f55967ad9d9"}, []map[string]string{{}}, "", false, 0, "kernel oops on cpu0 at 313.02us: BUG: kernel NULL pointer dereference in perf_prepare_sample"},
		// No forced NMI: the PMI's skid lands it in the sched-out path.
		{"pmu-overflow-vs-sched-out-skid", map[string]string{"pebs-disable-order": "pre-6f55967ad9d9"}, []map[string]string{{}}, "", false, 0, "kernel oops on cpu0 at 247.105us: BUG: kernel NULL pointer dereference in perf_prepare_sample"},
		// No forced NMI either: the PMI held by its skid and taken in the
		// sched-out, which sparse finds at schedule 21.
		{"pt-pause-vs-pmi-sparse", map[string]string{"pt-pause-resume": "pre-08c7454ceb94"}, []map[string]string{{}}, "sparse", true, 0, "invariant aux-write-in-transaction"},
		{"pmu-overflow-vs-sched-out-skid", map[string]string{"pebs-disable-order": "pre-6f55967ad9d9"}, []map[string]string{{}}, "sparse", false, 0, "kernel oops on cpu0 at 600.686us: BUG: kernel NULL pointer dereference in perf_prepare_sample"},
		// Two disturbances that line up: the PT PMI held by its skid, then
		// taken ~22 step points later, inside the next RESUME (sparse's
		// clustered pairs find it at schedule 2136; the bounded search,
		// which runs every pair, at 102).
		{"pt-resume-vs-pmi", map[string]string{"pt-pause-resume": "pre-08c7454ceb94"}, []map[string]string{{}}, "bounded", false, 3000, "invariant aux-write-in-transaction"},
		{"pt-resume-vs-pmi", map[string]string{"pt-pause-resume": "pre-08c7454ceb94"}, []map[string]string{{}}, "sparse", false, 3000, "invariant aux-write-in-transaction"},
		{"aux-free-in-nmi", map[string]string{"aux-free": "pre-57ffc5ca679f"}, []map[string]string{{}}, "", false, 0, "invariant aux-refcount"},
		// A reader of the parent event wins child_mutex between the exiting
		// child's fold and its unlink: the child counted twice (pct finds it
		// at schedule 1, shrunk to the one decision at the fold).
		{"inherit-exit-vs-read", map[string]string{"exit-event": "pre-ef54c1a476ae"}, []map[string]string{{}}, "pct", true, 300, "invariant inherited-read-adds-up"},
		{"cpu-clock-refresh-lockup", map[string]string{"cpu-clock-stop": "pre-eb3182ef0405"}, []map[string]string{{}}, "", false, 0, "kernel oops on cpu0 at 549.957us: watchdog: Watchdog detected hard LOCKUP on cpu 0: hrtimer_cancel() in cpu_clock_event_stop()"},
		// A thread of perf and a process holding its fds: the last AUX
		// munmap and an AUX mmap through the SET_OUTPUT'd cycles fd, under
		// two different mmap_mutexes; the mapper's exit_mmap() then frees
		// the area a second time.
		{"aux-mmap-vs-munmap", map[string]string{"aux-mutex": "pre-2ab9d830262c"}, []map[string]string{{}}, "", false, 0, "invariant aux-pages-lifetime at 412.419us: ring buffer of event 3 (cpu 2): the AUX pages were freed while 1 user mapping(s) still map them: use after free"},
		// The object-lifetime oracle reports the AUX pages outliving their
		// buffer (rb_free_rcu() with aux_mmap_count stuck at 1) before the
		// end's aux-pages-lifetime.
		{"aux-munmap-split", map[string]string{"vma-split": "pre-b024d7b56c77"}, []map[string]string{{}}, "", false, 50, "invariant object-lifetime"},
		// No outcome names it: the object-lifetime oracle's leak at the end.
		{"sigtrap-inherit-vs-close", map[string]string{"child-release": "pre-3a5465418f5f"}, []map[string]string{{}}, "", false, 0, "invariant object-lifetime"},
		// CVE-2026-23248: another process's mmap() between the failed
		// mmap()'s unlock and its undo (one decision, at
		// perf_mmap_close:mmap_count-dec): the undo drops the buffer the
		// other just attached, freed under its mapping; today's order (the
		// expected deadlock in the schedules that reach it) and the
		// proposed fix are clean.
		{"mmap-fail-vs-mmap", map[string]string{"map-range-fail": "pre-77de62ad3de3"}, []map[string]string{{}, {"map-range-fail": "proposed"}}, "", false, 0, "invariant object-lifetime at 10.1us on cpu0: use after free: the perf_buffer event 1 mapped"},
		// The sampling PMI held by its skid, then taken inside pt_event_stop().
		{"pt-sample-vs-stop-skid", map[string]string{"pt-snapshot-stop": "pre-d92792a4b26e"}, []map[string]string{{}}, "", false, 0, "invariant aux-sample-is-newest"},
	} {
		t.Run(strings.TrimSuffix(tc.name+"/"+tc.strategy, "/"), func(t *testing.T) {
			t.Parallel()
			f := loadBuiltinForTest(t, tc.name)
			runs := tc.runs
			if runs == 0 {
				runs = 1000
			}
			ex, err := Explore(f, Options{Strategy: tc.strategy, Runs: runs, Seed: 1, Knobs: tc.old, MaxShrinkRuns: 300})
			if err != nil {
				t.Fatal(err)
			}
			if ex.Found == nil {
				t.Errorf("%v: no violation in %d schedules", tc.old, ex.Schedules)
			} else if !strings.HasPrefix(ex.Found.Violation, tc.want) {
				t.Errorf("%v: found %q, want the violation %q", tc.old, ex.Found.Violation, tc.want)
			} else if strings.HasSuffix(tc.name, "-skid") && !tc.noSkid && !strings.Contains(strings.Join(ex.Found.Lines, "\n"), "nmi-skid") {
				t.Errorf("%v: the shrunk schedule holds no PMI by its skid:\n%s", tc.old, strings.Join(ex.Found.Lines, "\n"))
			}
			for _, v := range tc.clean {
				ex, err := Explore(f, Options{Strategy: tc.strategy, Runs: 100, Seed: 1, Knobs: v})
				if err != nil {
					t.Fatal(err)
				}
				if ex.Failed {
					var b strings.Builder
					ex.WriteText(&b)
					t.Errorf("knobs %v: explore failed:\n%s", v, b.String())
				}
			}
		})
	}
}
