// Package sim is perfsim's engine: virtual time, the timed event queue, execution
// contexts as coroutines with labelled step points, the Chooser (the only source of
// nondeterminism) and the trace.
package sim

import "pgregory.net/rapid"

// Chooser makes every nondeterministic decision of a run: "pick one of these n".
// Option 0 is always the undisturbed course (no interrupt now, the same CPU keeps
// running, no migration), so a schedule that is all zeros is the quiet one and
// shrinking towards zero removes disturbances.
type Chooser interface {
	// Choose returns a value in [0, n); n >= 2. what names the decision (for rapid's
	// draw labels and for humans reading a replay file). A strategy that records
	// a schedule must not decide by it: a decision list means the same whatever
	// the labels. (explore's shrinker uses it only to place candidate
	// disturbances, and keeps the plain list that the replay recorded.)
	Choose(n int, what string) int
}

// Random is the seeded random strategy. It owns its generator (splitmix64), so no
// global state and no library version can change a schedule.
type Random struct{ state uint64 }

// NewRandom returns a Random chooser for seed.
func NewRandom(seed uint64) *Random { return &Random{state: seed} }

// Uint64 returns the next value of the generator (splitmix64).
func (r *Random) Uint64() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Choose implements Chooser with a uniform draw.
func (r *Random) Choose(n int, what string) int {
	return int((r.Uint64() >> 32) * uint64(n) >> 32)
}

// Replay returns a recorded decision list in order. Past the end of the list it
// answers 0, the undisturbed course, so a truncated (shrunk) list is still a schedule.
// A recorded value that is out of range for the question asked is clamped to n-1 and
// counted in Mismatches: the replay is then not of the same run.
type Replay struct {
	decisions  []int
	pos        int
	Mismatches int
}

// NewReplay returns a chooser that replays decisions.
func NewReplay(decisions []int) *Replay { return &Replay{decisions: decisions} }

// Choose implements Chooser.
func (r *Replay) Choose(n int, what string) int {
	if r.pos >= len(r.decisions) {
		return 0
	}
	d := r.decisions[r.pos]
	r.pos++
	if d < 0 || d >= n {
		r.Mismatches++
		if d < 0 {
			return 0
		}
		return n - 1
	}
	return d
}

// Consumed reports how many recorded decisions were used.
func (r *Replay) Consumed() int { return r.pos }

// Rapid draws the schedule from a *rapid.T, so rapid explores schedules and
// shrinks a failing one. The schedule is drawn as a short list of disturbances,
// each "let Skip decisions take the undisturbed course, then take option Pick":
// rapid shrinks lists by deleting elements and lowering values, which here means
// fewer disturbances, earlier, with smaller option numbers, the shape a human
// wants to read. Every decision past the list is 0.
type Rapid struct {
	T *rapid.T
	// Max bounds the number of disturbances in one schedule (default 16).
	Max int
	// Horizon, when set, is the number of decisions of the undisturbed run:
	// skips are drawn up to it, so a disturbance lands somewhere in the run
	// (rapid favours small numbers, and 0..2^20 leaves most of a run of a
	// hundred decisions undisturbed or past its end).
	Horizon int

	plan  []disturbance
	drawn bool
	skip  int
}

type disturbance struct{ Skip, Pick int }

func disturbanceGen(maxSkip int) *rapid.Generator[disturbance] {
	return rapid.Custom(func(t *rapid.T) disturbance {
		return disturbance{
			Skip: rapid.IntRange(0, maxSkip).Draw(t, "skip"),
			Pick: rapid.IntRange(1, 64).Draw(t, "pick"),
		}
	})
}

// Choose implements Chooser.
func (r *Rapid) Choose(n int, what string) int {
	if !r.drawn {
		max := r.Max
		if max <= 0 {
			max = 16
		}
		maxSkip := 1 << 20
		if r.Horizon > 0 {
			maxSkip = r.Horizon
		}
		r.plan = rapid.SliceOfN(disturbanceGen(maxSkip), 0, max).Draw(r.T, "schedule")
		r.drawn = true
		if len(r.plan) > 0 {
			r.skip = r.plan[0].Skip
		}
	}
	if len(r.plan) == 0 {
		return 0
	}
	if r.skip > 0 {
		r.skip--
		return 0
	}
	p := r.plan[0].Pick
	r.plan = r.plan[1:]
	if len(r.plan) > 0 {
		r.skip = r.plan[0].Skip
	}
	return 1 + (p-1)%(n-1)
}

// Recorder wraps a Chooser and keeps the decision list of the run: the replay token.
type Recorder struct {
	Inner     Chooser
	Decisions []int
}

// Choose implements Chooser.
func (r *Recorder) Choose(n int, what string) int {
	d := r.Inner.Choose(n, what)
	r.Decisions = append(r.Decisions, d)
	return d
}

// Limited stops disturbing after Budget non-zero decisions: every later question is
// answered 0 without asking Inner. It bounds how many disturbances a random schedule
// makes, which keeps found schedules short.
type Limited struct {
	Inner  Chooser
	Budget int
}

// Choose implements Chooser.
func (l *Limited) Choose(n int, what string) int {
	if l.Budget <= 0 {
		return 0
	}
	d := l.Inner.Choose(n, what)
	if d != 0 {
		l.Budget--
	}
	return d
}
