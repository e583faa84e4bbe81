package cpu

// Unaudited code: a fragment start declared complete (DeclareComplete)
// vouches for every path its code can take up to the next boundary. Where
// one start leads into code nobody annotated on some paths only (the
// syscall entry: newuname's body is annotated, perf_event_open's is not),
// the declaration holds only together with a mark at the entry of each such
// path: CPU.Unaudited says that the fragment running on c reaches code
// whose accesses are not annotated, so it counts as touching everything,
// whatever its start says. A path with no mark is one somebody audited; a
// new path must be annotated or marked before its start may be declared.

// Unaudited is the object of the footprint an unaudited path reports: the
// kernel function the path enters. It has no stable key (FootprintKey), so
// a walk that is told of it cannot find the fragment independent of
// anything; explore's walks name it in what they report.
type Unaudited string

// UnauditedField is the field of that footprint.
const UnauditedField = "(code not annotated)"

// Unaudited marks the fragment running on c as reaching code whose
// accesses nobody annotated: fn, the kernel function it enters. Only the
// footprint listeners hear it (not the data-race oracle: it is no access);
// with none it costs a nil check.
func (c *CPU) Unaudited(fn string) {
	if c == nil || c.m.footprint == nil {
		return
	}
	c.m.tellUnaudited(c, fn)
	c.m.markUnaudited(c, fn)
}

// tellUnaudited tells the footprint listeners that the fragment running on
// c reaches unaudited code fn.
func (m *Machine) tellUnaudited(c *CPU, fn string) {
	m.footprint(c, Footprint{Obj: Unaudited(fn), Field: UnauditedField, Op: PlainWrite, Func: fn})
}

// auditCtx is a context whose fragments run on: a thread's task context,
// or one interrupt context of a CPU.
type auditCtx struct {
	th  *Thread
	cpu int
	ctx Context
}

// ctxOf is the context running on c.
func ctxOf(c *CPU) auditCtx {
	if ctx := c.Context(); ctx != CtxTask || c.curr == nil {
		return auditCtx{cpu: c.ID, ctx: ctx}
	}
	return auditCtx{th: c.curr, cpu: -1}
}

// markUnaudited remembers that the fragment open in c's running context
// reached unaudited code fn: it counts as unaudited up to that context's
// next step point or handler entry, across the boundaries a fragment goes
// on after (the engine resuming the lane, an interrupt's return), where
// auditGoesOn tells the listeners again.
func (m *Machine) markUnaudited(c *CPU, fn string) {
	if m.seg == nil {
		return
	}
	if m.unaudited == nil {
		m.unaudited = map[auditCtx]string{}
	}
	m.unaudited[ctxOf(c)] = fn
}

// auditStart forgets the mark of c's running context: a new fragment
// starts there (a step point, a handler's entry).
func (m *Machine) auditStart(c *CPU) {
	if len(m.unaudited) > 0 {
		delete(m.unaudited, ctxOf(c))
	}
}

// auditGoesOn tells the footprint listeners again of the mark of the
// fragment that goes on in c's running context, if it reached unaudited
// code before the boundary.
func (m *Machine) auditGoesOn(c *CPU) {
	if fn, ok := m.unaudited[ctxOf(c)]; ok && m.footprint != nil {
		m.tellUnaudited(c, fn)
	}
}
