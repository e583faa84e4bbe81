package cpu

import "sync"

// Segments: what partial-order reduction (explore's dpor strategy) needs to
// know of a run besides its decisions. The code a CPU runs is cut into
// fragments at the places where another context could come in: step points,
// an interrupt handler's entry and return, and the engine resuming a lane
// (after a time advance, a tie, or a thread switch). A SegmentListener is
// told of every such boundary and of every footprint (footprint.go), the
// cross-CPU posts (an interrupt raised or a timer armed on a CPU) and the
// synchronisation (CPU.Release/Acquire) in between.
//
// A fragment's footprint is complete only when every access its code makes
// is annotated; that is a fact about the model's code, declared once per
// fragment start with DeclareComplete, and never assumed: a fragment whose
// start is not declared, or that touches an object with no stable key
// (FootprintKey), must count as touching everything.

// BoundaryKind says where a fragment starts.
type BoundaryKind uint8

// The boundaries.
const (
	BoundaryStep   BoundaryKind = iota // a step point: the label
	BoundaryEnter                      // an interrupt handler starts: the interrupt's name
	BoundaryExit                       // a handler returned: the interrupted context goes on
	BoundaryResume                     // the engine resumed a thread on the lane
)

// SegmentListener is told of every fragment boundary and every access.
type SegmentListener interface {
	// Boundary: a new fragment of c's context ctx starts here; th is the
	// thread c runs (the task context's owner).
	Boundary(c *CPU, kind BoundaryKind, ctx Context, th *Thread, label string)
	// Touch: the running code accesses field of obj (a write or a read).
	Touch(obj any, field string, write bool)
}

// AddListener is a SegmentListener that tells an add that commutes with
// other adds (AtomicAdd) from a write: a listener without it is told of an
// add as a write, which is never wrong, only less precise.
type AddListener interface {
	// TouchAdd: the running code adds to field of obj (AtomicAdd).
	TouchAdd(obj any, field string)
}

// OnSegments installs l on m: every boundary and access of every CPU goes
// to it. It makes every step point look around (a step hook), so it is for
// exploration, not for speed.
func (m *Machine) OnSegments(l SegmentListener) {
	m.seg = l
	add, _ := l.(AddListener)
	m.OnFootprint(func(_ *CPU, f Footprint) {
		if add != nil && f.Op.Commutes() {
			add.TouchAdd(f.Obj, f.Field)
			return
		}
		l.Touch(f.Obj, f.Field, f.Op.IsWrite())
	})
	m.AddStepHook(func(c *CPU, label string) {
		m.auditStart(c)
		l.Boundary(c, BoundaryStep, c.Context(), c.curr, label)
	})
}

// OtherListener is a SegmentListener told when code that is no CPU's runs:
// a lane of the engine's own (the runner's sampler of "at TIME" outcomes),
// which reads what it likes of the model. It is a fragment of its own, of
// no context of any CPU, that nobody annotated; the next boundary ends it.
type OtherListener interface {
	Other(lane int, name string)
}

// Other tells the listener, if it hears of them, that lane, no CPU's, runs
// name's code now (until the next boundary).
func (m *Machine) Other(lane int, name string) {
	if o, ok := m.seg.(OtherListener); ok {
		o.Other(lane, name)
	}
}

// boundary tells the listener, if any, that a fragment starts on c.
func (m *Machine) boundary(c *CPU, kind BoundaryKind, label string) {
	if m.seg != nil {
		if kind == BoundaryEnter {
			m.auditStart(c)
		}
		m.seg.Boundary(c, kind, c.Context(), c.curr, label)
		if kind == BoundaryResume || kind == BoundaryExit {
			m.auditGoesOn(c)
		}
	}
}

// touch records a model-level access (a post, a synchronisation) with the
// listener, if any.
func (m *Machine) touch(obj any, field string, write bool) {
	if m.seg != nil {
		m.seg.Touch(obj, field, write)
	}
}

var (
	completeMu    sync.RWMutex
	complete      = map[string]bool{}
	completeUntil = map[string][]string{}
)

// DeclareComplete says that the code run from each of these fragment starts
// up to the next boundary annotates every access it makes to state another
// context can see (footprint.go's CPU.Access): a step point's label, or
// "enter:NAME" for the start of interrupt NAME's handler, "start:NAME" for
// the first fragment of thread NAME ("start:" for every thread's: see
// IsComplete). Call it from an init function next to the code it vouches
// for. Where a start leads into code nobody annotated on some paths only,
// each such path is marked where it begins (CPU.Unaudited, unaudited.go). explore's tests check the
// writes of every declared fragment their scenarios reach against the code
// (writeAudit, explore/write_audit_test.go); its reads stay a matter of
// reading the code.
func DeclareComplete(starts ...string) {
	completeMu.Lock()
	defer completeMu.Unlock()
	for _, s := range starts {
		complete[s] = true
	}
}

// DeclareCompleteUntil says what DeclareComplete says of a task context's
// fragment that starts at step point start, but only when the fragment ends
// at one of the step points ends (the same context's next step point): a
// fragment that ends elsewhere (another knob's path, an early return into a
// caller whose code nobody vouched for) vouches for nothing. Only a walk
// that checks where each fragment ends may trust it: explore's
// component-wise walk refuses a run in which one ends elsewhere; the dpor
// walk keeps such a fragment pending (touching everything) until its
// context's next step point and settles it there (explore/dpor_until.go).
func DeclareCompleteUntil(start string, ends ...string) {
	completeMu.Lock()
	defer completeMu.Unlock()
	completeUntil[start] = append(completeUntil[start], ends...)
}

// CompleteUntil returns the ends DeclareCompleteUntil gave start, if any.
func CompleteUntil(start string) ([]string, bool) {
	completeMu.RLock()
	defer completeMu.RUnlock()
	ends, ok := completeUntil[start]
	return ends, ok
}

// IsComplete reports whether start was declared with DeclareComplete. A
// thread's first fragment "start:NAME" is declared with every thread's by
// DeclareComplete("start:"): a thread made with InitThread marks its body
// unaudited, one made with InitAuditedThread vouches for it.
func IsComplete(start string) bool {
	completeMu.RLock()
	defer completeMu.RUnlock()
	if complete[start] {
		return true
	}
	return len(start) > len(threadStart) && start[:len(threadStart)] == threadStart && complete[threadStart]
}

// threadStart is the prefix of a thread's first fragment's start.
const threadStart = "start:"

// declaredExactly reports whether start itself was declared with
// DeclareComplete (not as a thread's first fragment by "start:").
func declaredExactly(start string) bool {
	completeMu.RLock()
	defer completeMu.RUnlock()
	return complete[start]
}

// FootprintKeyer is an object with a name that stays the same in every
// replay of a run (a pointer does not): only such objects let two
// fragments be found independent.
type FootprintKeyer interface{ FootprintKey() string }

// FootprintKey returns obj's stable name, if it has one: a FootprintKeyer
// (a SyncClock only once SetKey named it), a string, a CPU, or a CPU's
// interrupt mailbox (footprint_key.go).
func FootprintKey(obj any) (string, bool) {
	switch o := obj.(type) {
	case *SyncClock, *CPU, *ipiKey:
		return footprintKeyOf(o)
	case FootprintKeyer:
		return o.FootprintKey(), true
	case string:
		return o, true
	}
	return "", false
}
