package pmu

import (
	"strconv"

	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sched"
)

// Stable keys (cpu.FootprintKeyer) of perf's objects, for partial-order
// reduction: an event by its perf_event_id, a CPU's context by its CPU, a
// task's context and a ring buffer by their number in the run (and the
// task or event they were made for), an mm and a csd by their task and
// their number among that task's. The same in every replay of a run,
// never an address, and two objects of one run never share one.
//
// Numbers follow creation order. perf_event_alloc() annotates its
// atomic64_inc_return(&perf_event_id), so two CPUs' opens conflict there.
// A csd's and an mm's number count their own task's, which no other CPU's
// order changes. The other numbers (buffers, task contexts) are the model's
// own, in the run's order: where two CPUs can create such objects at once,
// their order (and so a key) can differ between two schedules of one
// search, so a fragment that creates one either annotates the count as a
// write, which makes two CPUs' creations conflict (perf_mmap()'s rb_alloc:
// accessNewBuffer), or is undeclared (cpu.DeclareComplete), which the
// walks treat as touching everything.

// perfEventID is core.c's static atomic64_t perf_event_id.
var perfEventID any = cpu.KeyName("perf_event_id") // boxed once, as deferredSamples

// accessPerfEventID annotates perf_event_alloc()'s take of the next id.
func (k *Kernel) accessPerfEventID() {
	k.curCPU().Access(perfEventID, "perf_event_id", cpu.MarkedWrite, "perf_event_alloc") // core.c: perf_event_alloc(): event->id = atomic64_inc_return(&perf_event_id)
}

// keySeq numbers the objects whose keys carry a number of their own.
type keySeq struct {
	rb  int
	csd map[int]int // by the caller's TID: its calls so far
	mm  map[int]int // by the TID of the task they were made for
}

// keyMM names an mm_struct made for t (its first, or exec's new one) and
// its mmap_lock: "mm#N@tidT", N its number among the mms made for the task
// with TID T (t's own path decides it, not another CPU's order).
func (k *Kernel) keyMM(mm *mmStruct, t *sched.Task) {
	if k.keySeq.mm == nil {
		k.keySeq.mm = map[int]int{}
	}
	k.keySeq.mm[t.TID]++
	mm.key = mmKey{k.keySeq.mm[t.TID], t.TID}
	mm.mmapLock.SetKey(mm.key, "mm->mmap_lock")
}

// mmKey is an mm's key: its number and its task's TID.
type mmKey struct{ n, tid int }

// FootprintKey implements cpu.FootprintKeyer.
func (m mmKey) FootprintKey() string {
	return "mm#" + strconv.Itoa(m.n) + "@tid" + strconv.Itoa(m.tid)
}

// FootprintKey implements cpu.FootprintKeyer: "event#ID", event->id.
func (e *Event) FootprintKey() string { return "event#" + strconv.FormatUint(e.id, 10) }

// FootprintKey implements cpu.FootprintKeyer: "ctx@cpuN" for a CPU's
// context, "ctx#M@tidN" for a task's: M its number among the run's task
// contexts, N its task's TID when it was allocated (a context swapped to
// another task keeps it; a child's context is made before its thread is
// named; an exec can give a thread another TID later).
func (ctx *Context) FootprintKey() string {
	if ctx.keyTID == 0 {
		return "ctx@cpu" + strconv.Itoa(ctx.cpu)
	}
	return "ctx#" + strconv.Itoa(ctx.keySeq) + "@tid" + strconv.Itoa(ctx.keyTID)
}

// FootprintKey implements cpu.FootprintKeyer: "cpuctx@cpuN", the per-CPU
// struct perf_cpu_context (its embedded ctx is "ctx@cpuN").
func (cc *perfCPUContext) FootprintKey() string { return "cpuctx@cpu" + strconv.Itoa(cc.ctx.cpu) }

// keyBuffer names a ring buffer perf_mmap() just allocated for e, and its
// rb->aux_mutex: "rb#N@event#ID", N its number among the run's buffers; and
// has its code's footprints annotated on the running CPU.
func (k *Kernel) keyBuffer(buf *rb.Buffer, e *Event, bs *bufState) {
	k.keySeq.rb++
	buf.SetKey("rb#" + strconv.Itoa(k.keySeq.rb) + "@" + e.FootprintKey())
	buf.SetAccessor(rbAccessor{k})
	bs.auxMutex.SetKey(buf, "rb->aux_mutex")
}

// keyCSD names the csd of one smp_call_function_single() made by t:
// "csd#K@tidN", the K-th call of the thread with TID N. The call waits
// (csd_lock_wait()), so a thread has one in flight at a time, on its own
// stack (call_single_data_t csd_stack): a name that only t's own path
// decides (a number in the run's order of calls changed when two CPUs
// called at once, and with it which call a fragment's csd named).
// kernel/smp.c: smp_call_function_single(): call_single_data_t csd_stack
func (k *Kernel) keyCSD(csd *cpu.SyncClock, t *sched.Task) {
	if k.keySeq.csd == nil {
		k.keySeq.csd = map[int]int{}
	}
	k.keySeq.csd[t.TID]++
	csd.SetKey(csdKey{k.keySeq.csd[t.TID], t.TID}, "csd->flags")
}

// csdKey is a call's csd: the caller's call count and TID.
type csdKey struct{ n, tid int }

// FootprintKey implements cpu.FootprintKeyer.
func (c csdKey) FootprintKey() string {
	return "csd#" + strconv.Itoa(c.n) + "@tid" + strconv.Itoa(c.tid)
}

// rbAccessor annotates a ring buffer's accesses on the running CPU
// (rb.Accessor: rb cannot import cpu). Every one is marked (rb's ops are
// OpMarkedRead, OpMarkedWrite and OpAtomicAdd) and nothing annotates those fields
// plainly, so only the footprint listeners hear them, not the data-race
// oracle (cpu.CPU.AccessMarkedOnly). With no listener it costs a check.
type rbAccessor struct{ k *Kernel }

// Annotate implements rb.Accessor.
func (a rbAccessor) Annotate(obj any, field string, op uint8, fn string) {
	a.k.curCPU().AccessMarkedOnly(obj, field, cpu.AccessOp(op), fn)
}

// Footprinting implements rb.Accessor.
func (a rbAccessor) Footprinting() bool { return a.k.M.FootprintListening() }

// Unaudited implements rb.Accessor.
func (a rbAccessor) Unaudited(fn string) { a.k.curCPU().Unaudited(fn) }
