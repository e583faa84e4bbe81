package sim

import "iter"

// Coroutine runs straight-line model code that can suspend itself anywhere in its
// call stack (Yield) and be resumed later by the engine. Only one coroutine runs at
// a time, so the simulation stays single-threaded and deterministic.
type Coroutine struct {
	next  func() (struct{}, bool)
	stop  func()
	yield func(struct{}) bool
	done  bool
	kill  bool // Kill is unwinding it
}

// unwind is the panic value that unwinds a coroutine that is being killed.
type unwind struct{}

// NewCoroutine returns a suspended coroutine that will run body on first Resume.
func NewCoroutine(body func()) *Coroutine {
	co := &Coroutine{}
	seq := func(yield func(struct{}) bool) {
		co.yield = yield
		defer func() {
			co.done = true
			if r := recover(); r != nil {
				if _, ok := r.(unwind); !ok {
					panic(r)
				}
			}
		}()
		body()
	}
	co.next, co.stop = iter.Pull(iter.Seq[struct{}](seq))
	return co
}

// Resume runs the coroutine until it yields or returns. A panic in the coroutine
// propagates to the caller of Resume.
func (co *Coroutine) Resume() {
	if co.done {
		return
	}
	if _, ok := co.next(); !ok {
		co.done = true
	}
}

// Yield suspends the running coroutine; it must be called from inside it.
func (co *Coroutine) Yield() {
	if !co.yield(struct{}{}) {
		panic(unwind{})
	}
}

// Done reports whether the body returned (or was killed).
func (co *Coroutine) Done() bool { return co.done }

// Kill unwinds a suspended coroutine and releases its goroutine.
func (co *Coroutine) Kill() {
	if !co.done {
		co.kill = true
		co.stop()
		co.done = true
	}
}

// Unwinding reports whether Kill is unwinding the coroutine: the deferred
// functions of the model code it was suspended in run after the run is over
// (a run a lockup ended in the middle of a system call), and must not run
// kernel code any more.
func (co *Coroutine) Unwinding() bool { return co.kill }
