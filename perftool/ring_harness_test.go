package perftool

import (
	"pgregory.net/rapid"

	"perfsim/rb"
	"perfsim/sim"
	"perfsim/simrapid"
)

// interrupter is the simulated CPU context of a test: at every Step it asks the
// Chooser whether the next pending interruption (an NMI writer on this CPU, or a burst
// of writes on another CPU while a reader is descheduled) runs now. Interruptions do
// not nest. fireAt/fireOcc replace the Chooser with a hand-written schedule: fire at
// the fireOcc-th (from 1) step labelled fireAt.
type interrupter struct {
	ch      sim.Chooser
	pending []func(s rb.Stepper)
	busy    bool
	fired   []string
	labels  []string // every label stepped, outside interruptions
	observe func(label string)

	fireAt  string
	fireOcc int
	seen    int
}

func (in *interrupter) Step(label string) {
	if in.observe != nil {
		in.observe(label)
	}
	if in.busy {
		return
	}
	in.labels = append(in.labels, label)
	if len(in.pending) == 0 {
		return
	}
	if in.fireAt != "" {
		if label != in.fireAt {
			return
		}
		in.seen++
		if in.seen != in.fireOcc {
			return
		}
	} else if in.ch == nil || in.ch.Choose(2, label) == 0 {
		return
	}
	f := in.pending[0]
	in.pending = in.pending[1:]
	in.busy = true
	in.fired = append(in.fired, label)
	f(in)
	in.busy = false
}

// logger collects the trace of writers and readers in one order.
type logger struct{ log []rb.TraceEvent }

func (l *logger) trace(e rb.TraceEvent) { l.log = append(l.log, e) }

// hasAny reports whether vs has a violation of one of the names.
func hasAny(vs []rb.Violation, names ...string) bool {
	for _, v := range vs {
		for _, n := range names {
			if v.Invariant == n {
				return true
			}
		}
	}
	return false
}

func nonZero(ds []int) int {
	n := 0
	for _, d := range ds {
		if d != 0 {
			n++
		}
	}
	return n
}

// rapidFinds runs rapid (through sim.RapidFind, deterministic per name) on a
// property that builds its schedule from a sim.Rapid chooser and reports a
// violation by returning a non-empty string. It returns whether rapid found one
// and the decision list of the shrunk (last) failing run.
func rapidFinds(name string, prop func(ch sim.Chooser) string) (found bool, minimal []int, msg string) {
	report, findErr := simrapid.Find(name, simrapid.Options{Checks: 100}, func(t *rapid.T) { // rapid's default, under -short too
		rec := &sim.Recorder{Inner: &simrapid.Chooser{T: t}}
		if m := prop(rec); m != "" {
			minimal, msg = append([]int(nil), rec.Decisions...), m
			t.Fatalf("%s", m)
		}
	})
	if findErr != nil {
		panic(findErr) // only a go test binary calls this helper, where rapid runs
	}
	return report != "", minimal, msg
}

// randomFinds tries seeds 1..maxSeeds with the sim.Random chooser and returns the
// decision list of the first schedule that shows a violation.
func randomFinds(maxSeeds int, prop func(ch sim.Chooser) string) (seed int, decisions []int, msg string) {
	for s := 1; s <= maxSeeds; s++ {
		rec := &sim.Recorder{Inner: sim.NewRandom(uint64(s))}
		if m := prop(rec); m != "" {
			return s, rec.Decisions, m
		}
	}
	return 0, nil, ""
}
