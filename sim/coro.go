package sim

import (
	"iter"
	"sync"
)

// Coroutine runs straight-line model code that can suspend itself anywhere in its
// call stack (Yield) and be resumed later by the engine. Only one coroutine runs at
// a time, so the simulation stays single-threaded and deterministic.
//
// A coroutine runs on a worker (a goroutine under iter.Pull) taken from a pool
// when it is first resumed and given back when its body returns or is killed:
// an exploration builds a machine per schedule, and a new goroutine's stack
// starts small and is copied each time the model's deep call chains (a
// syscall, its tracepoint, an NMI taken at one of its step points, the ring
// buffer output under it) outgrow it. A pooled worker keeps its grown stack.
type Coroutine struct {
	body   func()
	w      *coroWorker
	done   bool
	killed bool // Kill is unwinding it: every Yield panics with unwind
}

// unwind is the panic value that unwinds a coroutine that is being killed.
type unwind struct{}

// coroWorker is a goroutine that runs the bodies of coroutines, one after the
// other: its loop runs a body, then yields (the body ended) and waits for the
// next.
type coroWorker struct {
	next  func() (struct{}, bool)
	stop  func()
	yield func(struct{}) bool
	co    *Coroutine // the coroutine it runs now
	pv    any        // what the body panicked with (not an unwind), or nil
}

// maxIdleWorkers bounds the pool: a worker over it ends.
const maxIdleWorkers = 256

var coroPool struct {
	sync.Mutex
	idle []*coroWorker
}

func getWorker() *coroWorker {
	coroPool.Lock()
	if n := len(coroPool.idle); n > 0 {
		w := coroPool.idle[n-1]
		coroPool.idle[n-1] = nil
		coroPool.idle = coroPool.idle[:n-1]
		coroPool.Unlock()
		return w
	}
	coroPool.Unlock()
	w := &coroWorker{}
	w.next, w.stop = iter.Pull(iter.Seq[struct{}](w.loop))
	return w
}

func putWorker(w *coroWorker) {
	coroPool.Lock()
	if len(coroPool.idle) < maxIdleWorkers {
		coroPool.idle = append(coroPool.idle, w)
		coroPool.Unlock()
		return
	}
	coroPool.Unlock()
	w.stop()
}

// loop is the worker's goroutine: each resume after a body ended starts the
// next body (w.co).
func (w *coroWorker) loop(yield func(struct{}) bool) {
	w.yield = yield
	for {
		w.run(w.co)
		if !yield(struct{}{}) {
			return // stopped: the pool is full
		}
	}
}

// run runs a body to its end: it returns, is unwound by Kill, or panics (the
// value goes to the caller of Resume).
func (w *coroWorker) run(co *Coroutine) {
	defer func() {
		co.done = true
		if r := recover(); r != nil {
			if _, ok := r.(unwind); !ok {
				w.pv = r
			}
		}
	}()
	co.body()
}

// NewCoroutine returns a suspended coroutine that will run body on first Resume.
func NewCoroutine(body func()) *Coroutine {
	return &Coroutine{body: body}
}

// Resume runs the coroutine until it yields or returns. A panic in the coroutine
// propagates to the caller of Resume.
func (co *Coroutine) Resume() {
	if co.done {
		return
	}
	if co.w == nil {
		co.w = getWorker()
		co.w.co = co
	}
	co.switchIn()
}

// switchIn runs the coroutine on its worker until it yields or its body ends;
// then the worker goes back to the pool, and a panic of the body is raised
// here.
func (co *Coroutine) switchIn() {
	w := co.w
	w.next()
	if !co.done {
		return
	}
	co.w, w.co = nil, nil
	pv := w.pv
	w.pv = nil
	putWorker(w)
	if pv != nil { // recover() is never nil for a panic: panic(nil) is a *runtime.PanicNilError
		panic(pv)
	}
}

// Yield suspends the running coroutine; it must be called from inside it.
func (co *Coroutine) Yield() {
	if co.killed || !co.w.yield(struct{}{}) || co.killed {
		panic(unwind{})
	}
}

// Done reports whether the body returned (or was killed).
func (co *Coroutine) Done() bool { return co.done }

// Kill unwinds a suspended coroutine and returns its worker to the pool.
func (co *Coroutine) Kill() {
	if co.done {
		return
	}
	if co.w == nil { // never resumed: its body never ran
		co.done = true
		return
	}
	co.killed = true
	co.switchIn()
}

// Unwinding reports whether Kill is unwinding the coroutine: the deferred
// functions of the model code it was suspended in run after the run is over
// (a run a lockup ended in the middle of a system call), and must not run
// kernel code any more.
func (co *Coroutine) Unwinding() bool { return co.killed }
