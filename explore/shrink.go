package explore

import (
	"fmt"
	"time"

	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// shrink minimises a failing decision list, keeping each change while a replay
// still fails the same way (sig), until nothing more goes or the replay budget
// is spent. A disturbance (a non-zero decision) is named three ways, because
// removing one can change how many choice points follow it, which shifts the
// meaning of every later position in a dense list:
//
//   - by position in the decision list (dense): right when the number of
//     choice points before the later disturbances does not change;
//   - by skip distance, "Skip undisturbed choice points after the previous
//     disturbance, then Pick", as sim.Rapid draws a schedule, counted at replay
//     time: right when the removed one only added or dropped choice points
//     before the next;
//   - by step point: the k-th time a CPU asks a question at a virtual time
//     (see anchor): right when the removed one moved the later ones in the
//     list but not in time.
//
// It cuts the tail and zeroes chunks of disturbances (ddmin) in the dense form,
// then tries to remove each disturbance alone in all three forms, and lowers
// its option to 1, to a fixed point; then it tries neighbouring pairs (a switch
// to another CPU and the switch back often matter only together) and goes back
// to single ones after any progress. Unless the budget runs out the result is
// 1-minimal: no single disturbance can be removed in any form. A change is kept
// only when the replay's own decision list is smaller (see smaller), so
// shrinking terminates; every kept list is the one the replay recorded,
// without trailing zeros (a replay answers 0 past the end of its list), so it
// replays as it is. Shrinking is deterministic.
func shrink(f *scenarios.File, o Options, decisions []int, sig string) (*Found, error) {
	began := time.Now()
	s := &shrinker{f: f, o: o, sig: sig}
	orig, origDisturbing := len(decisions), disturbing(decisions)
	ok, err := s.offer(sim.NewReplay(trimZeros(decisions)))
	if err != nil {
		return nil, err
	}
	if !ok && s.interrupted {
		s.cur = trimZeros(decisions) // kept unshrunk: no replay finished
	} else if !ok {
		// The schedule, replayed as recorded, did not fail the same way:
		// what failed was not the model's run of it (a strategy's own
		// chooser crashed inside it, or the run is not deterministic).
		// No verdict: a violation nobody can replay says nothing.
		return nil, fmt.Errorf("%s: schedule of %d decisions failed (%s) but did not fail so when replayed as recorded: no violation reported (a fault of the search, not of the model; please report it)", f.Name, orig, sig)
	}
	for progress := true; progress && s.more(); {
		progress = false
		// Cut the tail: the shortest prefix that still fails (binary search).
		lo, hi := 0, len(s.cur)
		for lo < hi && s.more() {
			mid := (lo + hi) / 2
			failed, ok, err := s.failsWith(sim.NewReplay(s.cur[:mid]))
			if err != nil {
				return nil, err
			}
			if failed {
				hi = mid
				progress = progress || ok
				hi = min(hi, len(s.cur))
			} else {
				lo = mid + 1
			}
		}
		// Zero out disturbing decisions, in chunks that halve (ddmin); single
		// ones are left to the pass below.
		for chunk := countNonZero(s.cur) / 2; chunk >= 2 && s.more(); chunk /= 2 {
			for start := 0; s.more(); {
				idx := nonZero(s.cur)
				if start >= len(idx) {
					break
				}
				ok, err := s.offer(sim.NewReplay(s.dense(idx[start:min(start+chunk, len(idx))]...)))
				if err != nil {
					return nil, err
				}
				if ok {
					progress = true
					continue
				}
				start += chunk
			}
		}
		// One disturbance at a time, to a fixed point.
		for k := 0; k < countNonZero(s.cur) && s.more(); {
			ok, err := s.reduce(k, 1)
			if err != nil {
				return nil, err
			}
			if ok {
				progress = true
				continue // the disturbance now at k is the next one
			}
			k++
		}
		if progress {
			continue // single ones again before pairs
		}
		// Two neighbouring disturbances at once.
		for k := 0; k+1 < countNonZero(s.cur) && s.more(); {
			ok, err := s.reduce(k, 2)
			if err != nil {
				return nil, err
			}
			if ok {
				progress = true
				continue
			}
			k++
		}
	}
	fd, err := describeSchedule(f, o, s.cur)
	if err != nil {
		return nil, err
	}
	fd.Original, fd.OriginalDisturbing, fd.ShrinkRuns, fd.ShrinkInterrupted = orig, origDisturbing, s.runs, s.interrupted
	fd.ShrinkElapsed = time.Since(began)
	return fd, nil
}

type shrinker struct {
	f    *scenarios.File
	o    Options
	sig  string
	runs int
	// interrupted: the exploration was interrupted while shrinking.
	interrupted bool

	cur     []int    // the smallest failing decision list so far
	anchors []anchor // where its disturbances were taken
}

// more reports whether replays are left in the budget and the exploration
// was not interrupted.
func (s *shrinker) more() bool {
	if s.o.stopped() {
		s.interrupted = true
		return false
	}
	return s.runs < s.o.MaxShrinkRuns
}

// reduce tries to remove the n disturbances of s.cur from the k-th, in the
// three forms, and for a single one to lower its option to 1. It keeps the
// first smaller list that fails the same way.
func (s *shrinker) reduce(k, n int) (bool, error) {
	idx := nonZero(s.cur)[k : k+n]
	cands := []func() sim.Chooser{
		func() sim.Chooser { return &sparseReplay{plan: remove(sparse(s.cur), k, n)} },
		func() sim.Chooser { return sim.NewReplay(s.dense(idx...)) },
		func() sim.Chooser { return &anchoredReplay{plan: remove(s.anchors, k, n)} },
	}
	if i := idx[0]; n == 1 && s.cur[i] > 1 {
		cands = append(cands, func() sim.Chooser {
			d := append([]int(nil), s.cur...)
			d[i] = 1
			return sim.NewReplay(d)
		})
	}
	for _, c := range cands {
		if !s.more() {
			break
		}
		if ok, err := s.offer(c()); ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// dense returns s.cur with the decisions at idx zeroed.
func (s *shrinker) dense(idx ...int) []int {
	d := append([]int(nil), s.cur...)
	for _, i := range idx {
		d[i] = 0
	}
	return d
}

// offer replays ch and keeps its decision list when it fails the same way and
// is smaller than s.cur (or s.cur is unset).
func (s *shrinker) offer(ch sim.Chooser) (bool, error) {
	_, ok, err := s.failsWith(ch)
	return ok, err
}

// failsWith replays ch and reports whether it failed the same way and whether
// its decision list was kept.
func (s *shrinker) failsWith(ch sim.Chooser) (failed, kept bool, err error) {
	s.runs++
	t := &anchorLog{inner: ch}
	r, err := runner.Build(s.f, s.o.runOptions(interruptible{t, &s.o}, false))
	if err != nil {
		return false, false, err
	}
	t.eng = r.M.Eng
	stopped, err := executeStoppable(r)
	if runner.IsLimit(err) {
		return false, false, nil // it stopped at a limit: it did not fail the same way
	}
	if stopped || err != nil {
		s.interrupted = s.interrupted || stopped
		return false, false, err
	}
	if signature(r, r.Result()) != s.sig {
		return false, false, nil
	}
	got := trimZeros(r.Decisions())
	if s.cur != nil && !smaller(got, s.cur) {
		return true, false, nil
	}
	s.cur, s.anchors = got, t.marks
	return true, true, nil
}

// anchor names a disturbance by its step point: the Occ-th question What that
// the CPU asked at virtual time T (CPU -1: the engine, or before the run
// started), answered Pick.
type anchor struct {
	T    sim.Time
	CPU  int
	What string
	Occ  int
	Pick int
}

type anchorKey struct {
	T    sim.Time
	CPU  int
	What string
}

// anchorCounter counts the questions of a run by step point.
type anchorCounter struct {
	eng  *sim.Engine // nil while the run is being built
	seen map[anchorKey]int
}

func (c *anchorCounter) next(what string) (anchorKey, int) {
	k := anchorKey{CPU: -1, What: what}
	if c.eng != nil {
		k.T = c.eng.Now()
		if l := c.eng.Running(); l != nil {
			k.CPU = l.ID
		}
	}
	if c.seen == nil {
		c.seen = map[anchorKey]int{}
	}
	c.seen[k]++
	return k, c.seen[k]
}

// anchorLog wraps the chooser of a shrinking replay and keeps the anchor of
// every disturbing decision.
type anchorLog struct {
	inner sim.Chooser
	anchorCounter
	marks []anchor
}

// Choose implements sim.Chooser.
func (l *anchorLog) Choose(n int, what string) int {
	if a, ok := l.inner.(*anchoredReplay); ok {
		a.eng = l.eng
	}
	d := l.inner.Choose(n, what)
	k, occ := l.next(what)
	if d != 0 {
		l.marks = append(l.marks, anchor{T: k.T, CPU: k.CPU, What: k.What, Occ: occ, Pick: d})
	}
	return d
}

// anchoredReplay answers 0 but at the step points of its plan.
type anchoredReplay struct {
	plan []anchor
	anchorCounter
}

// Choose implements sim.Chooser.
func (a *anchoredReplay) Choose(n int, what string) int {
	k, occ := a.next(what)
	for _, p := range a.plan {
		if p.T == k.T && p.CPU == k.CPU && p.What == k.What && p.Occ == occ {
			return min(p.Pick, n-1)
		}
	}
	return 0
}

// disturbance is one disturbing decision in sparse form: let Skip choice
// points take the undisturbed course (0), then take option Pick.
type disturbance struct{ Skip, Pick int }

// sparse returns the disturbances of the decision list d.
func sparse(d []int) []disturbance {
	var out []disturbance
	last := -1
	for i, x := range d {
		if x != 0 {
			out = append(out, disturbance{Skip: i - last - 1, Pick: x})
			last = i
		}
	}
	return out
}

// remove returns s without its n elements from the k-th.
func remove[T any](s []T, k, n int) []T {
	return append(append([]T(nil), s[:k]...), s[k+n:]...)
}

// sparseReplay is the chooser of a sparse plan, counting choice points at
// replay time: 0 everywhere but at the disturbances. An option out of range is
// clamped to n-1, as sim.Replay does; the run's decision list says what was
// taken.
type sparseReplay struct {
	plan []disturbance
	skip int
}

// Choose implements sim.Chooser.
func (p *sparseReplay) Choose(n int, what string) int {
	if len(p.plan) == 0 {
		return 0
	}
	if p.skip < p.plan[0].Skip {
		p.skip++
		return 0
	}
	d := p.plan[0].Pick
	p.plan, p.skip = p.plan[1:], 0
	return min(d, n-1)
}

// smaller orders decision lists for shrinking: fewer disturbances, then a
// smaller sum of options, then shorter, then lexicographically smaller. It is
// a well-order on lists of non-negative decisions, so shrinking terminates.
func smaller(a, b []int) bool {
	if x, y := countNonZero(a), countNonZero(b); x != y {
		return x < y
	}
	if x, y := sum(a), sum(b); x != y {
		return x < y
	}
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func sum(d []int) int {
	s := 0
	for _, x := range d {
		s += x
	}
	return s
}

// describeSchedule replays d with the trace kept and describes its failure,
// with every decision's question for the replay file. It is not interrupted:
// it is the one run that makes what was found replayable.
func describeSchedule(f *scenarios.File, o Options, d []int) (*Found, error) {
	q := &questionLog{inner: sim.NewReplay(d)}
	r, res, err := runner.RunOnce(f, o.runOptions(q, true))
	if err != nil {
		return nil, err
	}
	sig := signature(r, res)
	fd := &Found{Decisions: d, Result: res, Violation: describeFailure(r, res, sig), Timeline: r.Timeline(60), Signature: sig, Questions: &q.q}
	fd.Lines = choiceLines(r)
	return fd, nil
}

// choiceLines prints the disturbing decisions of r as trace lines, with what
// the step point did when the trace says it.
func choiceLines(r *runner.Run) []string {
	recs := r.Trace().Records
	var out []string
	for _, d := range r.Disturbing() {
		line := d.String()
		for i := range recs {
			x := &recs[i]
			if x.Kind == sim.KChoice && x.T == d.T && x.CPU == d.CPU && x.Name == d.What {
				line += ": " + x.Detail
				break
			}
		}
		out = append(out, line)
	}
	return out
}

func trimZeros(d []int) []int {
	n := len(d)
	for n > 0 && d[n-1] == 0 {
		n--
	}
	return append([]int(nil), d[:n]...)
}

func nonZero(d []int) []int {
	var out []int
	for i, x := range d {
		if x != 0 {
			out = append(out, i)
		}
	}
	return out
}

func countNonZero(d []int) int { return len(nonZero(d)) }
