// Package sim is perfsim's engine: virtual time, the timed event queue, execution
// contexts as coroutines with labelled step points, the Chooser (the only source of
// nondeterminism) and the trace.
package sim

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

// Settler is a Chooser that can tell it has settled: from now on it answers
// 0, the undisturbed course, to every question, whatever its options and its
// label, and reads no agents. Whoever asks may then leave the question out
// (the tied lanes, the agents) and ask Pass, which counts the question as
// Choose would have and answers 0. A busy run with many CPUs tied at every
// step point asks millions of decisions after a random schedule's budget
// is spent: building each one for a chooser that answers 0 was a good part
// of a syscall's cost (explore's BenchmarkSyscallCPUs).
type Settler interface {
	Chooser
	// Settled reports whether it has settled: the next question, and
	// every one after it, would be answered 0 without a look at it.
	Settled() bool
	// Pass is a question Choose would have answered 0 while settled,
	// counted as Choose counts it. It only counts, and never panics: the
	// engine may pass a tie in a lane's code (Engine.PickNext), where a
	// panic would unwind the model's.
	Pass()
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

// Settled implements Settler: with its budget spent Limited answers 0
// without asking Inner.
func (l *Limited) Settled() bool { return l.Budget <= 0 }

// Pass implements Settler: Choose with no budget counts nothing.
func (l *Limited) Pass() {}
