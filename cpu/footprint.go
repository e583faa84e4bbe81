package cpu

// Footprints: what the model's code touches of the perf core's shared
// fields, as one-line annotations at the accesses,
//
//	c.Access(e, "event->state", cpu.PlainRead, "event_sched_out") // core.c: event_sched_out(): if (event->state != PERF_EVENT_STATE_ACTIVE)
//
// each naming the object, the field (as the kernel spells it), whether it is
// a read or a write and how the kernel marks it (plain, READ_ONCE/WRITE_ONCE
// or an atomic, data_race()), and the kernel function. With no listener an
// annotation costs a nil check; the data-race oracle (race.go) hears every
// one, other listeners are installed with Machine.OnFootprint.

// AccessOp is how code touches a field: a read or a write, and how the
// kernel marks the access.
type AccessOp uint8

// Access kinds. KCSAN's rules, with its defaults: a marked access
// (READ_ONCE(), WRITE_ONCE(), atomic_*(), atomic64_*(), local_*(),
// smp_load_acquire(), ...) races with nothing marked; data_race() says the
// race is intended and is never reported; and a plain aligned write of at
// most a word (x = y, not x++) counts as marked
// (CONFIG_KCSAN_ASSUME_PLAIN_WRITES_ATOMIC=y): it races only with plain
// reads and read-modify-writes.
const (
	PlainRead     AccessOp = iota // x = event->state
	PlainWrite                    // event->oncpu = -1 (assumed atomic: see above)
	MarkedRead                    // READ_ONCE(), atomic_read(), local_read()
	MarkedWrite                   // WRITE_ONCE(), atomic_inc(), local_add(), smp_store_release()
	DataRaceRead                  // data_race(x)
	DataRaceWrite                 // data_race(x = y)
	PlainRMW                      // ++ctx->pin_count, ctx->is_active |= t: a plain read and write
	// AtomicAdd is an atomic add whose result the code does not use
	// (atomic_inc(), atomic64_add(), local_inc(), this_cpu_add(); not
	// atomic_inc_return(), which reads too: MarkedWrite). For KCSAN it is a
	// marked write; for partial-order reduction two of them commute (the
	// sum is the same in either order and neither looks at it), so they do
	// not make two fragments dependent; with a read or a write of the same
	// field they do.
	AtomicAdd

	numAccessOps // how many there are (tables indexed by AccessOp)
)

// IsWrite reports whether op writes.
func (op AccessOp) IsWrite() bool {
	return op == PlainWrite || op == MarkedWrite || op == DataRaceWrite || op == PlainRMW || op == AtomicAdd
}

// Commutes reports an access that commutes with every other one of its
// kind on the same field (AtomicAdd): partial-order reduction may swap two
// fragments whose only common field both add to.
func (op AccessOp) Commutes() bool { return op == AtomicAdd }

// IsMarked reports READ_ONCE/WRITE_ONCE/atomic accesses, and plain aligned
// writes, which KCSAN assumes atomic (CONFIG_KCSAN_ASSUME_PLAIN_WRITES_ATOMIC=y).
func (op AccessOp) IsMarked() bool {
	return op == MarkedRead || op == MarkedWrite || op == PlainWrite || op == AtomicAdd
}

// IsIntended reports data_race() accesses.
func (op AccessOp) IsIntended() bool { return op == DataRaceRead || op == DataRaceWrite }

func (op AccessOp) String() string {
	return [...]string{"read", "write", "read (marked)", "write (marked)", "read (data_race)", "write (data_race)", "read-write", "write (atomic add)"}[op]
}

// Footprint is one annotated access.
type Footprint struct {
	Obj   any    // the object: an *Event, a *Context, ... (compared by identity)
	Field string // "event->state"
	Op    AccessOp
	Func  string // the kernel function: "perf_event_set_state"
}

// FootprintFunc receives the footprints of the code running on c.
type FootprintFunc func(c *CPU, f Footprint)

// OnFootprint installs a listener of every CPU's footprints.
func (m *Machine) OnFootprint(fn FootprintFunc) {
	if prev := m.footprint; prev != nil {
		m.footprint = func(c *CPU, f Footprint) { prev(c, f); fn(c, f) }
		return
	}
	m.footprint = fn
}

// Access is the footprint annotation: the code running on c touches field
// of obj in fn. c may be nil (code outside any CPU): nothing is recorded.
func (c *CPU) Access(obj any, field string, op AccessOp, fn string) {
	if c == nil {
		return
	}
	if d := c.m.hb; d != nil {
		d.access(c, Footprint{Obj: obj, Field: field, Op: op, Func: fn}) // called directly: the one listener of every run with the oracle on
	}
	if c.m.footprint != nil {
		c.m.footprint(c, Footprint{Obj: obj, Field: field, Op: op, Func: fn})
	}
}

// AccessMarkedOnly is Access for a field every annotation in the model
// marks (READ_ONCE(), WRITE_ONCE(), local_*(), atomics): KCSAN reports a
// race only where one of the two accesses is plain, so the data-race
// oracle could report none on such a field and does not hear it; the
// footprint listeners (partial-order reduction, the component walk) do.
// The caller vouches that nothing annotates the field plainly (the ring
// buffer's fields: explore's TestRingBufferFootprintsMarked).
func (c *CPU) AccessMarkedOnly(obj any, field string, op AccessOp, fn string) {
	if c == nil || c.m.footprint == nil {
		return // inlined at the call: a hot path with nobody listening pays this test
	}
	c.footprintTo(obj, field, op, fn)
}

// footprintTo tells the footprint listeners of an access by c's code (not
// inlined, so that AccessMarkedOnly is).
//
//go:noinline
func (c *CPU) footprintTo(obj any, field string, op AccessOp, fn string) {
	c.m.footprint(c, Footprint{Obj: obj, Field: field, Op: op, Func: fn})
}

// FootprintListening reports whether a footprint listener (not the
// data-race oracle) hears m's annotations: what AccessMarkedOnly asks.
func (m *Machine) FootprintListening() bool { return m != nil && m.footprint != nil }
