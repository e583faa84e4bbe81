package sim

import (
	"fmt"
	"runtime/debug"
	"strconv"
	"time"
)

// Lane is one thing the engine advances in virtual time: a simulated CPU. Each lane
// has its own clock; the engine runs the lane that is furthest behind (the smallest
// Next), and a tie between lanes is a decision for the Chooser.
type Lane struct {
	ID   int
	Name string
	next Time
	run  func()
}

// Next returns when the lane next needs to run.
func (l *Lane) Next() Time { return l.next }

// Oops is a model-level crash (a NULL pointer the model dereferenced, a refcount
// going below zero, a model bug caught by the engine). Model code raises it with
// panic(Oops{...}); the engine stops the run and returns it, never crashing.
type Oops struct {
	Msg   string
	Lane  int
	Time  Time
	Stack string
}

func (o *Oops) Error() string {
	return fmt.Sprintf("kernel oops on cpu%d at %s: %s", o.Lane, o.Time, o.Msg)
}

// Crash raises a model-level oops from model code: the run stops and reports it
// with its schedule.
func Crash(format string, args ...any) {
	panic(Oops{Msg: fmt.Sprintf(format, args...), Lane: -1})
}

// Engine drives lanes through virtual time. It is single-threaded: exactly one lane
// runs at a time, and only the Chooser decides between equal alternatives.
type Engine struct {
	// Chooser is asked every decision. It is set by NewEngine and not
	// changed once a decision was asked: the engine keeps what it said of
	// itself (settled).
	Chooser Chooser
	Trace   *Trace

	// settled is Chooser as a Settler once it said it settled (nil until
	// then): settling is for good (Settler), so Pass, asked at nearly
	// every step point of CPUs in lock step, neither asserts the Chooser's
	// type nor asks it again (a third of a passed tie's cost at 64 CPUs,
	// explore's BenchmarkSyscallCPUs).
	settled Settler

	lanes     []*Lane
	heap      laneHeap // every lane's next, by (next, lane): no step scans every CPU
	now       Time
	running   *Lane
	forced    *Lane
	contended bool
	stopped   bool
	agents    []Agent // pick's agents of a tie
	until     Time    // Run's until: no lane advances past it
	// Decisions counts Choose calls made through the engine (ties and step points).
	Decisions int
	// Runs counts the lane runs: a resume of a lane by the engine (for a
	// CPU, a coroutine switch in and one out), or one a lane's code handed
	// over to (EnterPicked: one switch, counted in Handoffs too).
	Runs uint64
	// Handoffs counts the lane runs a lane's code entered itself
	// (EnterPicked): one coroutine switch each, where a run from Run is two.
	Handoffs uint64
	// picked is the lane PickNext picked for Run to run (the step to it
	// taken); pickPanic what its Chooser panicked with, for Run to raise.
	picked    *Lane
	pickPanic any // never nil for a panic (panic(nil) is a *runtime.PanicNilError)
	// asking is set while the Chooser is asked (askN options, askWhat): a
	// runtime error raised then is the strategy's (chooser_crash.go).
	asking  bool
	askN    int
	askWhat string

	// steps counts the engine steps (Tick); at nextCheck the limits are looked at.
	steps     uint64
	nextCheck uint64
	limits    Limits
	started   time.Time // when Run began, for Limits.MaxWall
	lastCheck time.Time // the last look at the wall clock and the heap
	heapCheck uint64    // steps between two looks at the wall clock and the heap
}

// NewEngine returns an engine that asks ch for every decision.
func NewEngine(ch Chooser) *Engine {
	if ch == nil {
		ch = NewReplay(nil)
	}
	return &Engine{Chooser: ch, Trace: &Trace{}, nextCheck: noCheck}
}

// AddLane registers a lane; run is called whenever the lane is scheduled.
func (e *Engine) AddLane(name string, run func()) *Lane {
	l := &Lane{ID: len(e.lanes), Name: name, next: Never, run: run}
	e.lanes = append(e.lanes, l)
	e.heap.push(l.ID, l.next)
	return l
}

// Lanes returns the registered lanes.
func (e *Engine) Lanes() []*Lane { return e.lanes }

// Now returns the current virtual time (the clock of the running lane).
func (e *Engine) Now() Time { return e.now }

// Running returns the lane being run, or nil between lanes.
func (e *Engine) Running() *Lane { return e.running }

// Contended reports whether another lane is due at the same instant as the running
// one, so that a step point has a real choice of which lane goes on.
func (e *Engine) Contended() bool { return e.contended }

// SetNext sets when l next needs to run. Setting another lane due now makes the
// running lane contended.
func (e *Engine) SetNext(l *Lane, t Time) {
	if t < e.now && e.running != nil {
		Crash("%s scheduled in the past (%s < %s)", l.Name, t, e.now)
	}
	l.next = t
	e.heap.set(l.ID, t)
	if e.running != nil && l != e.running && t == e.now {
		e.contended = true
	}
}

// TiedCount is how many other lanes are due at the current instant (a
// count, not a list: TiedLane names the one an option picks).
func (e *Engine) TiedCount() int {
	n := e.heap.dueAt(e.now).count(e.runningID())
	if n == 0 {
		e.contended = false
	}
	return n
}

// PassTied is a step point's question when the only options are the
// lanes tied with the running one (cpu's Step): with none tied (no
// longer contended) there is nothing to decide; with some, a settled
// Chooser's decision is passed (Pass). It reports whether the step point is
// done; false: lanes are tied and the Chooser has not settled, the caller
// asks the question in full (TiedCount, Choose). It is TiedCount and Pass
// in one: in lock step nearly every step point of a syscall is a tie, 15 a
// syscall at 64 CPUs, and the running lane's bucket is the instant's (it
// was picked as due now, and its next stays there while it runs).
func (e *Engine) PassTied() bool {
	s := e.settled
	r := e.running
	if s == nil || r == nil {
		return e.TiedCount() == 0 || e.Pass()
	}
	var n int
	if b := e.heap.of[r.ID]; b.t == e.now {
		n = b.n - 1
	} else {
		n = e.heap.dueAt(e.now).count(r.ID)
	}
	if n == 0 {
		e.contended = false
		return true
	}
	e.Decisions++
	e.Tick()
	s.Pass()
	return true
}

// AppendTiedAgents appends the agents (CPUAgent) of the TiedCount lanes to
// ag, in lane order.
func (e *Engine) AppendTiedAgents(ag []Agent) []Agent {
	return e.heap.dueAt(e.now).appendAgents(ag, e.runningID())
}

// TiedLane is the k-th (from 0) of the TiedCount lanes, in lane order.
func (e *Engine) TiedLane(k int) *Lane { return e.lanes[e.heap.dueAt(e.now).nth(k, e.runningID())] }

func (e *Engine) runningID() int {
	if e.running == nil {
		return -1
	}
	return e.running.ID
}

// TryAdvance moves the running lane l straight on to t when no other lane is due
// at or before t: nothing could happen in between, so yielding to the engine
// would only come back here. It reports whether it advanced. An advance is a
// step (Tick): a lane that runs on without yielding is still counted.
func (e *Engine) TryAdvance(l *Lane, t Time) bool {
	if e.stopped || e.running != l || t < e.now || t > e.until {
		return false // stopped, or past until: the lane yields and Run ends there
	}
	if e.heap.minOther(l.ID) <= t {
		return false
	}
	e.now = t
	e.SetNext(l, t)
	e.contended = false
	e.Tick() // a time advance that does not go back to the engine is a step too
	return true
}

// SwitchTo makes the engine run l next (the caller must then yield its lane).
func (e *Engine) SwitchTo(l *Lane) { e.forced = l }

// Choose asks the Chooser, counting the decision (and a step).
func (e *Engine) Choose(n int, what string) int {
	e.Decisions++
	e.Tick()
	e.ask(n, what)
	d := e.Chooser.Choose(n, what)
	e.asking = false
	return e.answer(d, n, what)
}

// Pass passes a decision to a settled Chooser (Settler: it answers 0 to
// every question from now on), as Choose would ask it: the decision counted
// (and its step), its answer 0. It reports false, having done nothing, when
// the Chooser has not settled: the caller asks the question in full. A step
// point or a tie passed builds no question (no options, no agents).
func (e *Engine) Pass() bool {
	s := e.settled
	if s == nil {
		if s = e.settles(); s == nil {
			return false
		}
	}
	e.Decisions++
	e.Tick()
	s.Pass()
	return true
}

// settles asks the Chooser whether it has settled, and keeps it as settled
// when it has (nil: not yet, or it is no Settler).
func (e *Engine) settles() Settler {
	s, ok := e.Chooser.(Settler)
	if !ok || !s.Settled() {
		return nil
	}
	e.settled = s
	return s
}

// Stop ends Run after the running lane yields.
func (e *Engine) Stop() { e.stopped = true }

// StopBy lowers the time the current Run stops at to t (never raises it): a
// watchdog that wants a look at t. No lane advances past t; Run returns
// with the lanes as they are, and a later Run goes on from there as if it
// had not stopped (a lane alone before its next event never yields twice).
func (e *Engine) StopBy(t Time) {
	if t < e.until {
		e.until = t
	}
}

// Run advances the lanes until none has anything to do before until, or Stop. A
// model crash is returned as an *Oops, a run that reaches one of its Limits as
// a *LimitError; the simulator itself never panics.
func (e *Engine) Run(until Time) (err error) {
	defer func() {
		if r := recover(); r != nil {
			// No lane runs after a crash or a limit: a coroutine Kill
			// unwinds later must find nothing running or picked (after
			// the oops has named the CPU it crashed on).
			defer func() {
				e.running, e.picked = nil, nil
				e.pickPanic = nil
			}()
			if l, ok := r.(*LimitError); ok {
				err = l
				return
			}
			if s := e.strategyError(r); s != nil {
				err = s // the Chooser's bug: no oops of the model
				return
			}
			if !isModelCrash(r) {
				// Not the model's: a strategy's own control flow (rapid stops a
				// test case by panicking from a draw). Let it through.
				panic(r)
			}
			err = e.toOops(r)
		}
	}()
	e.stopped, e.asking = false, false
	e.until = until
	e.started, e.lastCheck = time.Now(), time.Time{}
	for !e.stopped {
		if e.pickPanic != nil { // PickNext's Chooser panicked: as pick's would here
			p := e.pickPanic
			e.pickPanic = nil
			panic(p)
		}
		l := e.picked
		if l != nil { // PickNext took the step up to here
			e.enterFirst(l)
		} else {
			e.Tick()
			l = e.forced
			e.forced = nil
			e.contended = false
			if l == nil {
				if l = e.pick(); l == nil {
					return nil
				}
				e.enterFirst(l)
			} else {
				e.contended = e.heap.dueAt(l.next).count(l.ID) > 0
				e.enter(l)
			}
		}
		l.run()
		e.running = nil
	}
	return nil
}

// PickNext takes, in the code of from (the running lane) at the end of its
// run, the step Run would take next when it is plain: not stopped, no lane
// forced (SwitchTo), no look at the limits due, a lane due by until. from's
// run ends and the lane due first is picked, a tie decided by the Chooser
// as pick does. It returns the lane, which the caller may run itself
// (EnterPicked) and hand its coroutine over to, one switch where going back
// to the engine and from there on takes two; or the caller yields and Run
// runs it (its step taken). nil: Run takes the step itself (nothing was
// done); or the lane picked is from itself, or the Chooser panicked, which
// Run raises where pick would have.
func (e *Engine) PickNext(from *Lane) *Lane {
	if e.running != from || e.stopped || e.forced != nil || e.steps+2 >= e.nextCheck || len(e.heap.bk) == 0 {
		return nil // +2: its Tick and a tie's Choose's look at no limit
	}
	first := e.heap.bk[0]
	if first.t == Never || first.t > e.until {
		return nil
	}
	// What Run does from the end of a lane run to its pick.
	e.running = nil
	e.Tick()
	e.contended = false
	var l *Lane
	if first.b.n == 1 {
		l = e.lanes[first.b.first()]
	} else if e.Pass() {
		// pick's answer 0, without pickTie's recover: a settled
		// Chooser's Pass only counts, and the Tick looks at no limit.
		l = e.lanes[first.b.first()]
	} else if l = e.pickTie(); l == nil {
		return nil
	}
	e.picked = l
	if l == from {
		return nil
	}
	return l
}

// pickTie is pick's decision between the lanes due first, in a lane's code:
// a panic of the Chooser (a strategy's control flow, or the oops of an
// answer out of range) is kept for Run to raise, not raised through the
// lane's model code.
func (e *Engine) pickTie() (l *Lane) {
	defer func() {
		if r := recover(); r != nil {
			e.pickPanic, l = r, nil
		}
	}()
	return e.pick()
}

// EnterPicked begins the run of l, which PickNext picked, as Run does: the
// caller runs l (its run function is not called).
func (e *Engine) EnterPicked(l *Lane) {
	e.enterFirst(l)
	e.Handoffs++
}

// enterFirst begins the run of l, picked as due first (pick, PickNext):
// its ties are every lane due at its time.
func (e *Engine) enterFirst(l *Lane) {
	e.picked = nil
	e.contended = e.heap.bk[0].b.n > 1
	e.enter(l)
}

// enter begins the run of l: the clock is l's, and l runs.
func (e *Engine) enter(l *Lane) {
	e.now = l.next
	e.running = l
	e.Runs++
}

// Pending reports whether some lane still has something to do (after Run
// returned: beyond its until, or after Stop).
func (e *Engine) Pending() bool {
	return e.heap.min() != Never
}

// pick is the lane to run next, due by the run's until (which StopBy may
// have lowered); nil when none is. A tie between the lanes due first is a
// decision ("tie"): option k runs the k-th of them in lane order.
func (e *Engine) pick() *Lane {
	min := e.heap.min()
	if min == Never || min > e.until {
		return nil
	}
	first := e.heap.bk[0].b
	n := first.n
	if n == 1 {
		return e.lanes[first.first()]
	}
	var d int
	switch {
	case e.Pass(): // a settled Chooser's 0: no agents listed
	case e.WantsAgents():
		e.agents = first.appendAgents(e.agents[:0], -1)
		d = e.ChooseAgents("tie", e.agents)
	default:
		d = e.Choose(n, "tie")
	}
	return e.lanes[first.nth(d, -1)]
}

// isModelCrash tells a model crash (an Oops, or a Go runtime error or error value
// raised in model code) from other panics.
func isModelCrash(r any) bool {
	switch r.(type) {
	case Oops, *Oops, error:
		return true
	}
	return false
}

func (e *Engine) toOops(r any) *Oops {
	lane := -1
	if e.running != nil {
		lane = e.running.ID
	}
	switch v := r.(type) {
	case Oops:
		if v.Lane < 0 {
			v.Lane, v.Time = lane, e.now
		}
		return &v
	case error:
		return &Oops{Msg: "model crash: " + v.Error(), Lane: lane, Time: e.now, Stack: string(debug.Stack())}
	default:
		return &Oops{Msg: "model crash: " + fmt.Sprint(v), Lane: lane, Time: e.now, Stack: string(debug.Stack())}
	}
}

// LaneName returns "cpuN" style names for traces.
func LaneName(id int) string { return "cpu" + strconv.Itoa(id) }
