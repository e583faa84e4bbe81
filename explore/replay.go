package explore

import (
	"fmt"
	"strings"
	"time"

	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// ReplayOptions say how Replay runs a replay file.
type ReplayOptions struct {
	// Force replays a file whose scenario or knobs changed since it was
	// written, or a format 1 file that cannot tell: Replayed.Changes says what.
	Force bool
	// Perf is the perf backend (nil: runner.DefaultPerf).
	Perf runner.PerfBackend
	// MaxSteps, MaxWall and MaxMemory bound the run as runner.Options do;
	// its time limit is the file's.
	MaxSteps  int64
	MaxWall   time.Duration
	MaxMemory int64
}

// ChangedError is Replay's refusal of a file whose scenario or knobs are
// not what they were when it was written.
type ChangedError struct {
	File    string
	Changes []string
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("%s: not replayed: %s (--force replays it anyway)", e.File, strings.Join(e.Changes, "; "))
}

// Divergence is where a replay stopped: the first decision whose question
// differs from the recorded one.
type Divergence struct {
	Decision  int // its number, from 0 as in "(decision #N)"
	Want, Got Question
}

func (d *Divergence) String() string {
	return fmt.Sprintf("decision #%d asked %s; the recorded run asked %s", d.Decision, d.Got, d.Want)
}

// Replayed is what a replay did.
type Replayed struct {
	Run    *runner.Run    // nil when it diverged
	Result *runner.Result // nil when it diverged
	// Changes is what changed since the file was written (replayed with Force).
	Changes []string
	// Notes: another version wrote the file; the run made fewer or more
	// decisions than the recorded one.
	Notes []string
	// Diverged is set when the run asked another question than the recorded
	// run at some decision; the replay stopped there.
	Diverged *Divergence
	// Signature is the replay's failure signature ("" when it held; when it
	// diverged, that of an invariant violated before); Recurred is whether it
	// is the file's.
	Signature string
	Recurred  bool
}

// Changes says what differs between the file's identity and the scenario f
// and its knobs now (with perf; nil: runner.DefaultPerf). An unknown knob in
// the file's kernel lines is an error naming its line.
func (f *ReplayFile) Changes(sc *scenarios.File, perf runner.PerfBackend) ([]string, error) {
	overrides, err := f.Overrides()
	if err != nil {
		return nil, err
	}
	now, err := resolvedKnobs(sc, overrides, perf)
	if err != nil {
		return nil, f.errorf("kernel", "kernel: %v", err)
	}
	if f.Format < 2 {
		return []string{"the file was written by an older simrun and records neither a hash of the scenario nor its knobs, so a change cannot be told (explore again to write a new one)"}, nil
	}
	var out []string
	if h := ScenarioSHA256(sc); h != f.ScenarioSHA256 {
		out = append(out, fmt.Sprintf("the scenario changed since the file was written: %s hashes to sha256 %s, the file records %s (line %d)",
			sc.Name, h[:12], f.ScenarioSHA256[:12], f.Line("scenario-sha256")))
	}
	out = append(out, knobChanges(f.Knobs, now)...)
	return out, nil
}

// Overrides are the file's kernel lines as a map.
func (f *ReplayFile) Overrides() (map[string]string, error) {
	m := map[string]string{}
	for _, k := range f.Kernel {
		n, v, err := runner.ParseKnobArg(k)
		if err != nil {
			return nil, f.errorf("kernel", "kernel: %v", err)
		}
		m[n] = v
	}
	return m, nil
}

// Replay re-runs the schedule of rf on sc, which must be the scenario it
// names. It refuses (a *ChangedError) a file whose scenario or knobs changed
// unless o.Force; it stops at the first decision whose question differs from
// the recorded one (Replayed.Diverged); and it says whether the recorded
// violation recurred. A run stopped at the file's time limit is a
// *LimitStopError.
func Replay(sc *scenarios.File, rf *ReplayFile, o ReplayOptions) (*Replayed, error) {
	changes, err := rf.Changes(sc, o.Perf)
	if err != nil {
		return nil, err
	}
	if len(changes) > 0 && !o.Force {
		return nil, &ChangedError{File: rf.name, Changes: changes}
	}
	overrides, _ := rf.Overrides()
	out := &Replayed{Changes: changes}
	if rf.Format >= 2 && rf.Version != Version {
		out.Notes = append(out.Notes, fmt.Sprintf("simrun %s wrote the file; this is %s", rf.Version, Version))
	}
	if rf.Format >= 2 && rf.LimitSHA256 == "" { // format 2 only: format 3 requires it
		out.Notes = append(out.Notes, unhashedLimitNote(rf))
	}
	check := &questionCheck{inner: sim.NewReplay(rf.Decisions), want: rf.Questions}
	opts := runner.Options{Knobs: overrides, Chooser: check, Limit: rf.Limit, KeepTrace: true, StopAtViolation: true, Perf: o.Perf,
		MaxSteps: o.MaxSteps, MaxWall: o.MaxWall, MaxMemory: o.MaxMemory}
	r, res, stopped, err := runStoppable(sc, opts)
	if err != nil {
		return nil, limitStop(rf, err, check.i)
	}
	if stopped != nil {
		// The engine stops a run at a violation once the running CPU yields,
		// so the violation may have come before the divergence.
		out.Diverged = stopped.div
		out.Signature = violationSignature(r)
		out.Recurred = out.Signature != "" && out.Signature == rf.Signature
		return out, nil
	}
	out.Run, out.Result = r, res
	if want := rf.Questions; want != nil && check.i != want.Len() {
		if check.i < want.Len() {
			out.Notes = append(out.Notes, fmt.Sprintf("the run ended after %d decisions; the recorded run made %d", check.i, want.Len()))
		} else {
			out.Notes = append(out.Notes, fmt.Sprintf("the run went on past the %d decisions of the recorded run, to %d", want.Len(), check.i))
		}
	}
	out.Signature = signature(r, res)
	out.Recurred = out.Signature != "" && out.Signature == rf.Signature
	return out, nil
}

// questionCheck replays a decision list and stops the run (a stopRun panic,
// which the engine lets through as it lets rapid's) at the first question
// that is not the recorded one. Past the recorded questions it lets the run
// go on.
type questionCheck struct {
	inner *sim.Replay
	want  *Questions
	i     int
}

// Choose implements sim.Chooser.
func (c *questionCheck) Choose(n int, what string) int {
	if c.want != nil && c.i < c.want.Len() {
		if w := c.want.At(c.i); w.N != n || w.What != what {
			panic(stopRun{&Divergence{Decision: c.i, Want: w, Got: Question{what, n}}})
		}
	}
	c.i++
	return c.inner.Choose(n, what)
}

// violationSignature is the signature of the first invariant violation that
// fails a run r by itself (see signature), or "".
func violationSignature(r *runner.Run) string {
	if r == nil {
		return ""
	}
	for _, v := range r.Violations() {
		if !r.Judged(v.Invariant) {
			return "invariant " + v.Invariant
		}
	}
	return ""
}

// stopRun is the panic value a chooser raises to end a run at once: not an
// error, so the engine does not take it for a model crash. div is the
// divergence that stopped a replay; nil: an interrupted exploration.
type stopRun struct{ div *Divergence }

// runStoppable builds and runs one run of sc; stopped is set when a chooser
// ended it with a stopRun panic (r is then the run as far as it got, and res
// nil).
func runStoppable(sc *scenarios.File, opts runner.Options) (r *runner.Run, res *runner.Result, stopped *stopRun, err error) {
	defer func() {
		if x := recover(); x != nil {
			s, ok := x.(stopRun)
			if !ok {
				panic(x)
			}
			res, stopped, err = nil, &s, nil
		}
	}()
	r, err = runner.Build(sc, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := r.Execute(); err != nil {
		return nil, nil, nil, err
	}
	return r, r.Result(), nil, nil
}
