package runner

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"perfsim/scenarios"
	"perfsim/sched"
	"perfsim/sim"
)

// The default limits of a run (an Options field left 0). Every one is a
// limit, not a verdict: a run that reaches it stops there with a *LimitError
// and no outcome is judged. The defaults stop a runaway scenario (a repeat
// of a billion zero-time statements, a billion system calls under perf
// record, perf record -a with no workload recording its own writes) within
// a minute and a few GB, and leave every built-in far below them (the
// largest, seed-close-benchmark, takes about 7 s, 10 M steps and 60 MB).
const (
	// DefaultLimit is the virtual time a run may last (--time). A run normally
	// ends earlier, when every task has exited and nothing is left to do.
	DefaultLimit = 10 * sim.Second
	// DefaultMaxSteps bounds the engine steps of a run (--max-steps): lane
	// runs, decisions and repeat-loop rounds (sim.Limits).
	DefaultMaxSteps = 100_000_000
	// DefaultMaxWall bounds the wall-clock time of a run (--max-wall).
	DefaultMaxWall = 30 * time.Second
	// DefaultMaxMemory bounds the heap of the process while a run executes
	// (--max-memory), in bytes.
	DefaultMaxMemory = 2 << 30
	// MaxTimeLimit is the largest virtual time limit: beyond it a time
	// plus a duration could overflow.
	MaxTimeLimit = sim.Time(1) << 61
)

// Limit names, as LimitError.Limit holds them.
const (
	TimeLimit   = "time"
	StepLimit   = sim.StepLimit
	WallLimit   = sim.WallLimit
	MemoryLimit = sim.MemoryLimit
	// HangLimit is no limit one sets: the run stopped because no task can
	// ever run again (every task left is blocked on a pipe, futex or wait4
	// that nothing will wake, and no timer is armed): a deadlock.
	HangLimit = "hang"
)

// LimitFlags maps each limit to the simrun flag that raises it.
var LimitFlags = map[string]string{
	TimeLimit:   "--time",
	StepLimit:   "--max-steps",
	WallLimit:   "--max-wall",
	MemoryLimit: "--max-memory",
}

// LimitError is the error of a run that reached one of its limits: it
// stopped there, without a verdict (simrun exits with status 3). It is not a
// scenario error; callers tell them apart with errors.As.
type LimitError struct {
	Limit  string   // TimeLimit, StepLimit, WallLimit or MemoryLimit
	Value  string   // the limit as set: "10s", "100000000 steps", "30s", "2G"
	Flag   string   // the simrun flag that raises it: --time, --max-steps, ...
	At     sim.Time // the virtual time the run stopped at
	Steps  uint64   // the steps it took
	Detail string   // what was still going on ("tasks not exited: ...") or seen ("heap 2.1G")
	// Token is the replay token of the decisions taken so far.
	Token string
}

func (e *LimitError) Error() string {
	var b strings.Builder
	if e.Limit == HangLimit {
		fmt.Fprintf(&b, "hang at %s: no task can ever run again, %s (replay token %s)", e.At, e.Detail, e.Token)
		return b.String()
	}
	fmt.Fprintf(&b, "stopped at the %s limit of %s", e.Limit, e.Value)
	if e.Limit != TimeLimit {
		fmt.Fprintf(&b, " at %s", e.At)
	}
	if e.Detail != "" {
		fmt.Fprintf(&b, ", %s", e.Detail)
	}
	fmt.Fprintf(&b, " (raise it with %s)", e.Flag)
	return b.String()
}

// IsLimit reports whether err is (or wraps) a *LimitError.
func IsLimit(err error) bool {
	var l *LimitError
	return errors.As(err, &l)
}

// limits are the resolved limits of a run.
type limits struct {
	time   sim.Time
	engine sim.Limits
}

// resolveLimits applies the defaults: 0 is the default, a negative value no
// limit (the time limit is always set: MaxTimeLimit at most).
func resolveLimits(o Options) limits {
	var l limits
	switch {
	case o.Limit == 0:
		l.time = DefaultLimit
	case o.Limit < 0 || o.Limit > MaxTimeLimit:
		l.time = MaxTimeLimit
	default:
		l.time = o.Limit
	}
	pick := func(v, def int64) uint64 {
		switch {
		case v == 0:
			return uint64(def)
		case v < 0:
			return 0
		}
		return uint64(v)
	}
	l.engine.MaxSteps = pick(o.MaxSteps, DefaultMaxSteps)
	l.engine.MaxWall = time.Duration(pick(int64(o.MaxWall), int64(DefaultMaxWall)))
	l.engine.MaxHeap = pick(o.MaxMemory, DefaultMaxMemory)
	return l
}

// limitError turns the engine's *sim.LimitError into the runner's.
func (r *Run) limitError(le *sim.LimitError) *LimitError {
	e := &LimitError{Limit: le.Kind, Flag: LimitFlags[le.Kind], At: le.At, Steps: le.Steps, Token: r.log.token()}
	switch le.Kind {
	case StepLimit:
		e.Value = fmt.Sprintf("%d steps", le.Limits.MaxSteps)
	case WallLimit:
		e.Value = le.Limits.MaxWall.String()
		e.Detail = fmt.Sprintf("after %d steps and %s", le.Steps, le.Wall.Round(time.Millisecond))
	case MemoryLimit:
		e.Value = FormatSize(int64(le.Limits.MaxHeap))
		e.Detail = "heap " + FormatSize(int64(le.Heap))
	}
	return e
}

// timeLimitError is the error of a run that reached its virtual time limit
// with tasks still to finish.
func (r *Run) timeLimitError() *LimitError {
	var alive []string
	for _, t := range r.S.Tasks {
		if t.State != sched.Dead {
			alive = append(alive, fmt.Sprintf("%s (%s)", t.Comm, stateName(t.State)))
		}
	}
	detail := "tasks not exited: " + strings.Join(alive, ", ")
	if len(alive) > 6 {
		detail = fmt.Sprintf("tasks not exited: %s and %d more", strings.Join(alive[:6], ", "), len(alive)-6)
	}
	return &LimitError{Limit: TimeLimit, Value: scenarios.FormatDuration(time.Duration(r.limit)), Flag: LimitFlags[TimeLimit],
		At: r.limit, Steps: r.M.Eng.Steps(), Detail: detail, Token: r.log.token()}
}

// hangError is the error of a run whose tasks are all blocked with nothing
// left that could wake them.
func (r *Run) hangError() *LimitError {
	var blocked []string
	for _, t := range r.S.Blocked() {
		on := r.S.WaitingOn(t)
		if on == "" {
			on = "sleeping"
		}
		blocked = append(blocked, fmt.Sprintf("%s/%d (%s)", t.Comm, t.TID, on))
	}
	detail := "deadlock: blocked forever: " + strings.Join(blocked, ", ")
	if len(blocked) > 6 {
		detail = fmt.Sprintf("deadlock: blocked forever: %s and %d more", strings.Join(blocked[:6], ", "), len(blocked)-6)
	}
	return &LimitError{Limit: HangLimit, Value: "no runnable task", At: r.M.Now(), Steps: r.M.Eng.Steps(), Detail: detail,
		Token: r.log.token()}
}

func stateName(s sched.State) string {
	switch s {
	case sched.Runnable:
		return "runnable"
	case sched.Sleeping:
		return "sleeping"
	}
	return "dead"
}

// FormatSize writes a byte count as simrun's size flags take it: 2G, 512M,
// 4K or bytes.
func FormatSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dG", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dM", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dK", n>>10)
	case n >= 1<<30:
		return fmt.Sprintf("%.1fG", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1fM", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// checkTimes refuses an action or an outcome at a time after the run's time
// limit: the run would stop before it (the limit is a limit, not the end of
// the scenario). A time before the limit but after every task has exited is
// fine: the run goes on until then.
func checkTimes(f *scenarios.File, limit sim.Time) error {
	var list scenarios.ErrorList
	late := func(pos scenarios.Pos, what string, at time.Duration) {
		list = append(list, f.Errorf(pos, "%s at %s is after the run's time limit of %s: the run would stop before it (raise the limit with --time)",
			what, scenarios.FormatDuration(at), scenarios.FormatDuration(time.Duration(limit))))
	}
	for _, a := range f.Actions {
		if sim.Time(a.At) > limit {
			late(a.AtPos, "the action", a.At)
		}
	}
	for _, o := range f.Outcomes {
		if o.At != nil && sim.Time(*o.At) > limit {
			late(o.AtPos, "the outcome", *o.At)
		}
	}
	if len(list) == 0 {
		return nil
	}
	sort.SliceStable(list, func(i, j int) bool {
		return list[i].Line < list[j].Line || list[i].Line == list[j].Line && list[i].Col < list[j].Col
	})
	return list
}

// clampDur bounds a task's duration by MaxTimeLimit: no run lasts that long,
// so a longer one behaves the same (it runs into the time limit) and a time
// plus it cannot overflow.
func clampDur(d time.Duration) sim.Duration {
	return sim.Duration(min(d, time.Duration(MaxTimeLimit)))
}
