package sim

import (
	"fmt"
	"math"
	"runtime"
	"runtime/metrics"
	"time"
)

// Limits bound the work of a run besides its virtual time (Engine.Run's
// until): the steps it takes, the wall-clock time it runs and the heap the
// process holds. A zero field is no limit.
//
// A step is one lane run, one decision (Choose), one time advance a lane
// makes without yielding (TryAdvance) or one Tick from the models (the
// runner ticks once per iteration of a task's repeat loop, so a loop of
// zero-time statements, which never gives the engine back its lane, is
// counted too). The step count is exact; the wall clock and the heap are
// looked at about every 50 ms of the run (every so many steps, at the pace
// of the last ones), which costs one comparison per step otherwise. A
// stretch of model code that takes no step is not looked at.
type Limits struct {
	MaxSteps uint64        // steps
	MaxWall  time.Duration // wall-clock time from the start of Run
	// MaxHeap bounds the bytes of the process's heap objects
	// (runtime/metrics /memory/classes/heap/objects:bytes, after a
	// collection when it looks over): it is the whole process's, so runs
	// executing at once share it.
	MaxHeap uint64
}

// The wall clock and the heap are looked at every few steps: at first
// after checkFirst steps (few: a step of a machine with thousands of tasks
// takes milliseconds), then as many as took about checkPeriod of wall
// clock last time (between checkMin and checkMax), so a run of quick steps
// (a repeat of zero-time statements, ~20 ns a step) and one of slow ones
// (two hundred sessions on one machine, ~1 ms a step) are both looked at
// about every checkPeriod.
const (
	checkFirst  = checkMin
	checkMin    = 16
	checkMax    = 1 << 20
	checkPeriod = 50 * time.Millisecond
)

// noCheck is nextCheck without limits: never.
const noCheck = math.MaxUint64

// Limit kinds of a LimitError.
const (
	StepLimit   = "step"
	WallLimit   = "wall-clock"
	MemoryLimit = "memory"
)

// LimitError is what Run returns when the run reaches one of its Limits: the
// run stopped there and has no verdict.
type LimitError struct {
	Kind   string // StepLimit, WallLimit or MemoryLimit
	Limits Limits
	Steps  uint64        // steps taken
	At     Time          // the virtual time the run stopped at
	Wall   time.Duration // wall-clock time spent
	Heap   uint64        // heap bytes seen (MemoryLimit)
}

func (e *LimitError) Error() string {
	switch e.Kind {
	case StepLimit:
		return fmt.Sprintf("stopped at the step limit of %d steps at %s", e.Limits.MaxSteps, e.At)
	case WallLimit:
		return fmt.Sprintf("stopped at the wall-clock limit of %s at %s, after %d steps and %s", e.Limits.MaxWall, e.At, e.Steps, e.Wall.Round(time.Millisecond))
	}
	return fmt.Sprintf("stopped at the memory limit of %d bytes (heap %d bytes) at %s", e.Limits.MaxHeap, e.Heap, e.At)
}

// SetLimits sets the limits Run enforces from now on.
func (e *Engine) SetLimits(l Limits) {
	e.limits = l
	e.heapCheck = checkFirst
	e.schedule()
}

// Steps returns the steps taken so far.
func (e *Engine) Steps() uint64 { return e.steps }

// Tick counts one step; at a limit it stops the run (Run returns a
// *LimitError). Model code that may loop without yielding its lane or asking
// a question (a task's repeat of zero-time statements) ticks on each round.
func (e *Engine) Tick() {
	e.steps++
	if e.steps >= e.nextCheck {
		e.check()
	}
}

// schedule sets the step of the next look at the limits.
func (e *Engine) schedule() {
	l := e.limits
	next := uint64(noCheck)
	if l.MaxWall > 0 || l.MaxHeap > 0 {
		next = e.steps + e.heapCheck
	}
	if l.MaxSteps > 0 && l.MaxSteps < next {
		next = l.MaxSteps
	}
	e.nextCheck = next
}

func (e *Engine) check() {
	l := e.limits
	stop := func(kind string, heap uint64) {
		e.nextCheck = noCheck
		panic(&LimitError{Kind: kind, Limits: l, Steps: e.steps, At: e.now, Wall: time.Since(e.started), Heap: heap})
	}
	if l.MaxSteps > 0 && e.steps >= l.MaxSteps {
		stop(StepLimit, 0)
	}
	now := time.Now()
	if l.MaxWall > 0 && !e.started.IsZero() && now.Sub(e.started) > l.MaxWall {
		stop(WallLimit, 0)
	}
	if !e.lastCheck.IsZero() {
		// Aim the next look checkPeriod ahead at the pace of the last steps.
		took := max(now.Sub(e.lastCheck), time.Microsecond)
		e.heapCheck = min(max(uint64(float64(e.heapCheck)*float64(checkPeriod)/float64(took)), checkMin), checkMax)
	}
	e.lastCheck = now
	if l.MaxHeap > 0 {
		if h := heapBytes(); h > l.MaxHeap {
			// Dead objects count until a collection sweeps them: look
			// again after one.
			runtime.GC()
			if h = heapBytes(); h > l.MaxHeap {
				stop(MemoryLimit, h)
			}
		}
	}
	e.schedule()
}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

// heapBytes reads the bytes of the heap's objects, live or not yet swept.
func heapBytes() uint64 {
	s := []metrics.Sample{heapSample[0]}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
