package scenarios

import (
	"perfsim/sim"
)

// shrink minimises a failing decision list by delta debugging: it cuts the tail
// and zeroes disturbing (non-zero) decisions, keeping each change while a replay
// still fails the same way (sig), until nothing more goes or the replay budget
// is spent. Every kept list is the one the replay recorded, without trailing
// zeros (a replay answers 0 past the end of its list).
func shrink(f *File, o ExploreOptions, decisions []int, sig string) (*Found, error) {
	s := &shrinker{f: f, o: o, sig: sig}
	cur := trimZeros(decisions)
	orig := len(decisions)
	if got, ok, err := s.try(cur); err != nil {
		return nil, err
	} else if ok {
		cur = got
	}
	for progress := true; progress && s.runs < o.MaxShrinkRuns; {
		progress = false
		// Cut the tail: the shortest prefix that still fails (binary search).
		lo, hi := 0, len(cur)
		for lo < hi && s.runs < o.MaxShrinkRuns {
			mid := (lo + hi) / 2
			got, ok, err := s.try(cur[:mid])
			if err != nil {
				return nil, err
			}
			if ok {
				hi = mid
				if len(got) < len(cur) {
					cur, progress = got, true
				}
				hi = min(hi, len(cur))
			} else {
				lo = mid + 1
			}
		}
		// Zero out disturbing decisions, in chunks that halve (ddmin).
		for chunk := max(countNonZero(cur)/2, 1); chunk >= 1 && s.runs < o.MaxShrinkRuns; chunk /= 2 {
			for start := 0; s.runs < o.MaxShrinkRuns; {
				idx := nonZero(cur)
				if start >= len(idx) {
					break
				}
				cand := append([]int(nil), cur...)
				for _, i := range idx[start:min(start+chunk, len(idx))] {
					cand[i] = 0
				}
				got, ok, err := s.try(cand)
				if err != nil {
					return nil, err
				}
				if ok && !sameList(got, cur) {
					cur, progress = got, true
					continue
				}
				start += chunk
			}
		}
		// Lower what is left to option 1 (the first disturbance of each kind).
		for _, i := range nonZero(cur) {
			if s.runs >= o.MaxShrinkRuns || i >= len(cur) || cur[i] <= 1 {
				continue
			}
			cand := append([]int(nil), cur...)
			cand[i] = 1
			if got, ok, err := s.try(cand); err != nil {
				return nil, err
			} else if ok && !sameList(got, cur) {
				cur, progress = got, true
			}
		}
	}
	fd, err := describeSchedule(f, o, cur)
	if err != nil {
		return nil, err
	}
	fd.Original, fd.ShrinkRuns = orig, s.runs
	return fd, nil
}

type shrinker struct {
	f    *File
	o    ExploreOptions
	sig  string
	runs int
}

// try replays d and reports whether it fails the same way, with the decisions
// the replay actually took.
func (s *shrinker) try(d []int) ([]int, bool, error) {
	s.runs++
	r, res, err := RunOnce(s.f, s.o.runOptions(sim.NewReplay(d), false))
	if err != nil {
		return nil, false, err
	}
	if signature(r, res) != s.sig {
		return nil, false, nil
	}
	return trimZeros(r.Decisions()), true, nil
}

// describeSchedule replays d with the trace kept and describes its failure.
func describeSchedule(f *File, o ExploreOptions, d []int) (*Found, error) {
	r, res, err := RunOnce(f, o.runOptions(sim.NewReplay(d), true))
	if err != nil {
		return nil, err
	}
	fd := &Found{Decisions: d, Result: res, Violation: describeFailure(r, res, signature(r, res)), Timeline: r.Timeline(60)}
	fd.Lines = choiceLines(r)
	return fd, nil
}

// choiceLines prints the disturbing decisions of r as trace lines, with what
// the step point did when the trace says it.
func choiceLines(r *Run) []string {
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

func sameList(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
