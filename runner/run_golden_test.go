package runner

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"perfsim/scenarios"
	"perfsim/sim"
)

// TestRunErrorsGolden loads each broken file of testdata/run-errors against the
// simulator's registry (as simrun check does) and compares the messages, with
// their snippets, with NAME.golden.
func TestRunErrorsGolden(t *testing.T) {
	for _, path := range glob(t, "testdata/run-errors/*.sim") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := scenarios.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			src.Name = filepath.Base(path)
			_, err = Load(src)
			var list scenarios.ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("Load = %v, want an ErrorList", err)
			}
			golden(t, strings.TrimSuffix(path, ".sim")+".golden", stableNames(list.Error())+"\n")
		})
	}
}

// TestValidateGolden checks each file of testdata/validate, which parses and
// checks, as simrun check does after that (Validate: what a run refuses
// before it starts), and compares what it says with NAME.golden: the
// refusals with their snippets, or perf's messages.
func TestValidateGolden(t *testing.T) {
	for _, path := range glob(t, "testdata/validate/*.sim") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := scenarios.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			src.Name = filepath.Base(path)
			f, err := Load(src)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			msgs, err := Validate(f, Options{})
			var b strings.Builder
			var list scenarios.ErrorList
			var se *scenarios.Error
			switch {
			case errors.As(err, &list):
				b.WriteString("# refused\n" + list.Error() + "\n")
			case errors.As(err, &se):
				b.WriteString("# refused\n" + se.Snippet() + "\n")
			case err != nil:
				t.Fatalf("Validate = %v, want a *scenarios.Error or an ErrorList", err)
			default:
				b.WriteString("# accepted\n")
				for _, m := range msgs {
					b.WriteString(m + "\n")
				}
			}
			golden(t, strings.TrimSuffix(path, ".sim")+".golden", b.String())
		})
	}
}

// knownNames matches the part of an "unknown NAME" message that lists (or
// counts) what the registry knows, which grows with every model.
var knownNames = regexp.MustCompile(`(; known [a-z ]+: [^\n]*| \(\d+ [a-z ]+ are known(; simrun names [a-zA-Z]+ lists them)?\))`)

// stableNames keeps the golden files of run errors independent of how many
// knobs, actions or step points the models register.
func stableNames(s string) string { return knownNames.ReplaceAllString(s, " (known names elided)") }

// TestTimelineGolden compares the --timeline output of the scheduler built-ins
// (seed 1) with testdata/run-timeline/NAME.golden.
func TestTimelineGolden(t *testing.T) {
	for _, name := range []string{"sched-migrate-timeline", "sched-forced-interleavings", "task-work-nmi-race"} {
		t.Run(name, func(t *testing.T) {
			f := loadBuiltin(t, name)
			r, _, err := RunOnce(f, Options{Chooser: ScheduleChooser(1, 0), KeepTrace: true})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "testdata/run-timeline/"+name+".golden", r.Timeline(60))
		})
	}
}

// TestOutcomeStatuses runs testdata/run-outcomes/quantifiers.sim and checks the
// status of every outcome.
func TestOutcomeStatuses(t *testing.T) {
	src, err := scenarios.Open("testdata/run-outcomes/quantifiers.sim")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Load(src)
	if err != nil {
		t.Fatal(err)
	}
	_, res, err := RunOnce(f, Options{Chooser: sim.NewReplay(nil)})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]string{}
	for _, o := range res.Outcomes {
		got[o.Line] = o.Status
	}
	want := map[int]string{16: Held, 17: Failed, 18: Failed, 19: Held, 20: Seen, 21: NotSeen,
		22: Held, 23: EvalError, 24: NotApplicable, 25: Held}
	if d := diffMaps(want, got); d != "" {
		t.Errorf("statuses (-want +got):\n%s", d)
	}
	if !res.Failed {
		t.Error("result not failed")
	}
	for _, o := range res.Outcomes {
		if o.Line == 17 && o.Values["task.b.computed"] != int64(2*sim.Millisecond) {
			t.Errorf("failed outcome values = %v", o.Values)
		}
	}
}
