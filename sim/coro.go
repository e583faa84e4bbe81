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
//
// A suspended coroutine can also hand the run straight to another suspended
// one (YieldTo): one goroutine switch where going back to the goroutine that
// called Resume and from there to the next coroutine takes two. The
// coroutine that at last yields (or ends) goes back to that goroutine, and
// Resume says which one it was.
type Coroutine struct {
	body   func()
	w      *coroWorker
	done   bool
	killed bool // Kill is unwinding it: every Yield panics with unwind
	// home is the goroutine the run goes back to: the one that called
	// Resume on this coroutine, or on the one that handed over to it.
	home *resumer
	res  resumer // home for a Resume of this coroutine
}

// resumer is a goroutine that called Resume, while it waits for a
// coroutine to come back.
type resumer struct {
	g    gctx
	back *Coroutine // the coroutine that came back
}

// unwind is the panic value that unwinds a coroutine that is being killed.
type unwind struct{}

// A switch between goroutines is one runtime coroswitch, which the Go
// runtime exports only to package iter (the linker refuses other users of
// runtime.coroswitch): each worker's iter.Pull gives a pull slot whose next
// and yield are each one coroswitch on that Pull's coro. A coro holds one
// waiting goroutine: a coroswitch on it runs that goroutine and leaves the
// caller waiting there in its place, whichever goroutine the caller is. So
// any goroutine can switch to any waiting one by calling next or yield of
// the slot it waits in, and then waits there itself: goroutines and slots
// are a permutation, kept in gctx.in. What iter.Pull checks on top (next
// and yield of one Pull alternate; neither after stop) holds as long as
// pullSlot.swap alternates them and a slot is stopped only with its own
// goroutine in it (putWorker). TestCoroutineYieldTo hands runs around
// rings of coroutines, kills and panics in between, and fails (iter.Pull's
// own panics, or a goroutine that runs when it should not) if iter.Pull or
// the runtime stops behaving so; handoff = false in package cpu turns every
// YieldTo off (the engine's goroutine takes every step).

// pullSlot is one iter.Pull: a place where one goroutine waits.
type pullSlot struct {
	next     func() (struct{}, bool)
	stop     func()
	yield    func(struct{}) bool // set by the Pull's own goroutine when it starts
	yieldDue bool                // the last switch on it was next: yield is next
}

// swap runs the goroutine waiting in s and leaves the caller waiting there.
func (s *pullSlot) swap() {
	if s.yieldDue {
		s.yieldDue = false
		s.yield(struct{}{})
		return
	}
	s.yieldDue = true
	s.next()
}

// gctx is a goroutine of the coroutine machinery: the slot it waits in, nil
// while it runs.
type gctx struct{ in *pullSlot }

// switchTo suspends from, the running goroutine, and runs to, a waiting
// one; it returns when a switch comes back to from.
func switchTo(from, to *gctx) {
	s := to.in
	to.in, from.in = nil, s
	s.swap()
}

// coroWorker is a goroutine that runs the bodies of coroutines, one after the
// other: its loop runs a body, then goes back to its home (the body ended)
// and waits for the next.
type coroWorker struct {
	g        gctx
	own      *pullSlot // the Pull whose goroutine this is
	co       *Coroutine
	pv       any  // what the body panicked with (not an unwind), or nil
	stopping bool // putWorker is ending it
}

// maxIdleWorkers bounds the pool: a worker over it ends, once its goroutine
// waits in its own slot; one that waits in another worker's slot (after a
// YieldTo) stays pooled, as stopping it would wake whoever waits in its
// own, so the pool can hold as many workers as coroutines were ever alive
// at once.
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
	s := &pullSlot{}
	s.next, s.stop = iter.Pull(func(yield func(struct{}) bool) {
		s.yield = yield
		w.loop()
	})
	w.own, w.g.in = s, s // not started: its goroutine waits in its own coro
	return w
}

func putWorker(w *coroWorker) {
	coroPool.Lock()
	if len(coroPool.idle) < maxIdleWorkers || w.g.in != w.own {
		// One waiting in another Pull's slot stays: stop would wake
		// whoever waits in its own.
		coroPool.idle = append(coroPool.idle, w)
		coroPool.Unlock()
		return
	}
	coroPool.Unlock()
	w.stopping = true
	w.own.stop() // wakes w's goroutine in its own slot: its loop returns
}

// loop is the worker's goroutine: each switch to it after a body ended
// starts the next body (w.co).
func (w *coroWorker) loop() {
	for {
		co := w.co
		w.run(co)
		h := co.home
		h.back = co
		w.idle(h)
		if w.stopping {
			return
		}
	}
}

// idle goes back to h after a body ended and waits there, pooled, for the
// next body, in a frame that keeps idlePad bytes of the stack in use. The
// garbage collector halves the stack of a goroutine that uses less than a
// quarter of it (runtime.shrinkstack), and an idle worker waiting in a
// shallow frame would lose, collection after collection, the stack its
// bodies grew, then copy it back up frame by frame (runtime.newstack) in
// the next body's deep call chains: 6% of an exploration's CPU time.
//
//go:noinline
func (w *coroWorker) idle(h *resumer) {
	var pad [idlePad]byte
	switchTo(&w.g, &h.g)
	keepPad(&pad)
}

// idlePad is the part of its stack an idle worker keeps in use: a stack of
// up to 4 times as much is not shrunk while it waits.
const idlePad = 8 << 10

//go:noinline
func keepPad(*[idlePad]byte) {}

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

// Resume runs the coroutine until it, or a coroutine it handed the run to
// (YieldTo), yields or returns, and returns that one. A panic in the
// coroutine propagates to the caller of Resume.
func (co *Coroutine) Resume() *Coroutine {
	if co.done {
		return co
	}
	if co.w == nil {
		co.w = getWorker()
		co.w.co = co
	}
	return co.switchIn()
}

// switchIn runs the coroutine on its worker until it or one it handed over
// to yields or its body ends; then that one's worker goes back to the pool,
// and a panic of the body is raised here.
func (co *Coroutine) switchIn() *Coroutine {
	h := &co.res
	co.home = h
	switchTo(&h.g, &co.w.g)
	back := h.back
	h.back = nil
	if !back.done {
		return back
	}
	w := back.w
	back.w, w.co = nil, nil
	pv := w.pv
	w.pv = nil
	putWorker(w)
	if pv != nil { // recover() is never nil for a panic: panic(nil) is a *runtime.PanicNilError
		panic(pv)
	}
	return back
}

// Yield suspends the running coroutine; it must be called from inside it.
func (co *Coroutine) Yield() {
	if co.killed {
		panic(unwind{})
	}
	h := co.home
	h.back = co
	switchTo(&co.w.g, &h.g)
	if co.killed {
		panic(unwind{})
	}
}

// YieldTo suspends the running coroutine co and runs next in its place, as
// if next's resumer had resumed it: next must be suspended in Yield or
// YieldTo (Suspended). It must be called from inside co, and returns when
// co is resumed.
func (co *Coroutine) YieldTo(next *Coroutine) {
	if co.killed {
		panic(unwind{})
	}
	next.home = co.home
	switchTo(&co.w.g, &next.w.g)
	if co.killed {
		panic(unwind{})
	}
}

// Suspended reports whether the coroutine has run and waits in Yield or
// YieldTo: YieldTo may run it.
func (co *Coroutine) Suspended() bool { return co.w != nil && !co.done && !co.killed }

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
