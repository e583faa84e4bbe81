package unwind

import (
	"errors"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
)

// unwind_mask bits (include/linux/unwind_deferred.h).
const (
	UNWIND_PENDING = 1 << 0 // a task_work is queued and has not started
	UNWIND_USED    = 1 << 1 // the cache holds an unwind of this entry

	reservedBits = UNWIND_PENDING | UNWIND_USED
)

// ErrInval is -EINVAL: a kthread, an exiting task, a task not from user mode,
// or a cancelled work.
var ErrInval = errors.New("EINVAL")

// ErrBusy is -EBUSY: every bit of unwind_mask is taken.
var ErrBusy = errors.New("EBUSY")

// Callback is unwind_callback_t: it runs in the task's context (task_work or
// do_exit) with the user stack trace and the entry's cookie.
type Callback func(c *cpu.CPU, t *sched.Task, trace []uint64, cookie uint64)

// Work is struct unwind_work: one tracer's registration.
type Work struct {
	Name string
	fn   Callback
	bit  int // -1 once cancelled
}

// Cookie is union unwind_task_id: cpu (first CPU of the entry + 1) in the low
// word, cnt (per-CPU counter, LSB set) in the high word, as on little-endian.
type Cookie uint64

// CPU is the CPU the entry's first request ran on, or -1 for the zero cookie.
func (k Cookie) CPU() int { return int(uint32(k)) - 1 }

// Cnt is the per-CPU counter value of the cookie.
func (k Cookie) Cnt() uint32 { return uint32(uint64(k) >> 32) }

func makeCookie(cpu int, cnt uint32) Cookie { return Cookie(uint64(uint32(cpu+1)) | uint64(cnt)<<32) }

// cache is struct unwind_cache.
type cache struct {
	completed uint64   // unwind_completed
	entries   []uint64 // entries[0:nr_entries]
}

// taskInfo is struct unwind_task_info.
type taskInfo struct {
	mask    uint64 // unwind_mask
	cache   *cache
	id      Cookie // id.id
	exiting bool   // PF_EXITING (do_exit has started)
	noMM    bool   // current->mm == NULL (after exit_mm())
}

// Config are the infrastructure's parameters and knobs.
type Config struct {
	// PerCPUBuffer is the RFC's choice (unwind-buffer=rfc-per-cpu): the
	// unwind writes into a per-CPU buffer (the task recursion context's
	// perf_callchain_entry) taken when it starts, so a task preempted while
	// unwinding finds its buffer rewritten by the next task that unwinds on
	// that CPU. Today each task has its own cache (info->cache).
	PerCPUBuffer bool
	// FrameCost is the time to read one user frame record.
	FrameCost sim.Duration
	// FaultLatency is how long a faulting user stack read sleeps. A read of a
	// frame record may fault (the page is not resident): the Chooser decides,
	// once per unwind, at label unwind_user:fault.
	FaultLatency sim.Duration
	// UserIP turns a user frame name into its address (the pmu's fake text).
	UserIP func(frame string) uint64
}

// DefaultConfig returns today's behaviour.
func DefaultConfig() Config {
	return Config{FrameCost: 50 * sim.Nanosecond, FaultLatency: 200 * sim.Microsecond}
}

// Stats count what the infrastructure did, as observables.
type Stats struct {
	Requests  uint64 // unwind_deferred_request() calls
	Queued    uint64 // ... that queued the task_work (returned 0)
	Pending   uint64 // ... that found the work pending or done (returned 1)
	Errors    uint64 // ... that failed (-EINVAL, task_work_add() error)
	Unwinds   uint64 // unwind_user() walks (cache misses)
	Callbacks uint64 // callbacks called
	Faults    uint64 // user stack reads that faulted and slept
	Resets    uint64 // unwind_reset_info() that cleared the state
	Skipped   uint64 // unwind_reset_info() skipped because PENDING was set
	ExitRuns  uint64 // unwind_deferred_task_exit() that ran the callbacks
}

// Deferred is the deferred unwind infrastructure of one machine.
type Deferred struct {
	S     *sched.Sched
	Cfg   Config
	Stats Stats

	mask  uint64 // the global unwind_mask of allocated bits
	works []*Work
	ctr   []uint32 // DEFINE_PER_CPU(u32, unwind_ctx_ctr)
	info  map[*sched.Task]*taskInfo
	// rfcBuf is the per-CPU buffer of the RFC knob.
	rfcBuf [][]uint64

	// OnReturn, when set, is called at each unwind_reset_info() site (the end
	// of exit_to_user_mode()) with the cookie the entry had: an oracle hook.
	OnReturn func(t *sched.Task, cookie Cookie)
}

// New builds the infrastructure on s and hooks the return to user mode and
// do_exit().
func New(s *sched.Sched, cfg Config) *Deferred {
	if cfg.UserIP == nil {
		cfg.UserIP = func(string) uint64 { return 0 }
	}
	d := &Deferred{S: s, Cfg: cfg, mask: reservedBits, ctr: make([]uint32, len(s.M.CPUs)),
		info: map[*sched.Task]*taskInfo{}, rfcBuf: make([][]uint64, len(s.M.CPUs))}
	s.UserReturnHooks = append(s.UserReturnHooks, d)
	s.ExitHooks = append(s.ExitHooks, d)
	return d
}

func (d *Deferred) infoOf(t *sched.Task) *taskInfo {
	ti := d.info[t]
	if ti == nil {
		ti = &taskInfo{} // unwind_task_init()
		d.info[t] = ti
	}
	return ti
}

// Init registers a tracer's callback and gives it a bit of unwind_mask.
// kernel/unwind/deferred.c: unwind_deferred_init()
func (d *Deferred) Init(name string, fn Callback) (*Work, error) {
	if d.mask == ^uint64(0) {
		return nil, ErrBusy
	}
	bit := 0
	for d.mask&(1<<uint(bit)) != 0 { // ffz()
		bit++
	}
	d.mask |= 1 << uint(bit)
	w := &Work{Name: name, fn: fn, bit: bit}
	d.works = append([]*Work{w}, d.works...) // list_add_rcu(): at the head
	return w, nil
}

// Cancel unregisters w and clears its bit from every task.
// kernel/unwind/deferred.c: unwind_deferred_cancel()
func (d *Deferred) Cancel(w *Work) {
	if w == nil || w.bit < 0 {
		return
	}
	for i, x := range d.works {
		if x == w {
			d.works = append(d.works[:i:i], d.works[i+1:]...)
			break
		}
	}
	b := uint64(1) << uint(w.bit)
	w.bit = -1
	d.mask &^= b
	for _, t := range d.S.Tasks {
		if ti := d.info[t]; ti != nil {
			ti.mask &^= b
			if ti.cache != nil {
				ti.cache.completed &^= b
			}
		}
	}
}

// taskWorkName is the name of info->work on the task's task_works list.
const taskWorkName = "unwind_deferred_task_work"

// getCookie assigns the entry's cookie on its first request: the per-CPU
// counter plus 2 with the LSB set, and this CPU + 1; later requests of the
// same entry get the same one, even from another CPU.
// kernel/unwind/deferred.c: get_cookie()
func (d *Deferred) getCookie(c *cpu.CPU, ti *taskInfo) Cookie {
	if ti.id.CPU() >= 0 {
		return ti.id
	}
	cnt := (d.ctr[c.ID] + 2) | 1
	if ti.id.Cnt() == 0 { // try_assign_cnt(): cmpxchg(&info->id.cnt, 0, cnt)
		d.ctr[c.ID] = cnt
	} else {
		cnt = ti.id.Cnt()
	}
	ti.id = makeCookie(c.ID, cnt)
	return ti.id
}

// Request asks for t's user stack at its return to user mode. It returns the
// cookie of the entry and 0 (queued), 1 (already pending or done in this
// entry) or an error. c is the CPU it runs on; an NMI request queues the work
// with TWA_NMI_CURRENT.
// kernel/unwind/deferred.c: unwind_deferred_request()
func (d *Deferred) Request(c *cpu.CPU, t *sched.Task, w *Work) (Cookie, int, error) {
	d.Stats.Requests++
	if t == nil {
		d.Stats.Errors++
		return 0, 0, ErrInval // PF_KTHREAD (the idle thread)
	}
	ti := d.infoOf(t)
	if ti.exiting || t.State == sched.Dead {
		d.Stats.Errors++
		return 0, 0, ErrInval // PF_EXITING
	}
	mode := sched.TWAResume
	if c.InNMI() {
		mode = sched.TWANMICurrent // CAN_USE_IN_NMI: x86 has an NMI-safe cmpxchg
	}
	if w == nil || w.bit < 0 {
		d.Stats.Errors++
		return 0, 0, ErrInval
	}
	bit := uint64(1) << uint(w.bit)
	flags := c.LocalIrqSave() // guard(irqsave)
	cookie, ret, err := d.request(c, t, ti, bit, mode)
	c.LocalIrqRestore(flags) // no defer: a killed coroutine must not run kernel code
	return cookie, ret, err
}

// request is the irqs-off part of Request.
func (d *Deferred) request(c *cpu.CPU, t *sched.Task, ti *taskInfo, bit uint64, mode sched.TWA) (Cookie, int, error) {
	cookie := d.getCookie(c, ti)
	if ti.mask&bit != 0 { // old = READ_ONCE(info->unwind_mask); "Is this already queued or executed"
		d.Stats.Pending++
		return cookie, 1, nil
	}
	c.Step("unwind_deferred_request:mask-read") // an NMI may request between the read and fetch_or
	bits := UNWIND_PENDING | bit
	old := ti.mask // atomic_long_fetch_or(bits, &info->unwind_mask)
	ti.mask |= bits
	if old&bits != 0 {
		if old&bit != 0 {
			d.Stats.Pending++
			return cookie, 1, nil
		}
		d.Stats.Queued++ // PENDING set by another work: that task_work serves this one
		return cookie, 0, nil
	}
	err := d.S.TaskWorkAdd(c, t, sched.TaskWork{Name: taskWorkName, Fn: d.taskWork}, mode)
	if err != nil {
		ti.mask = 0
		d.Stats.Errors++
		return cookie, 0, err
	}
	d.Stats.Queued++
	return cookie, 0, nil
}

// taskWork is info->work's function.
// kernel/unwind/deferred.c: unwind_deferred_task_work()
func (d *Deferred) taskWork(t *sched.Task) { d.process(t) }

// process clears PENDING, unwinds once per entry (cached), and calls each
// work whose bit is set and that has not been called in this entry yet.
// kernel/unwind/deferred.c: process_unwind_deferred()
func (d *Deferred) process(t *sched.Task) {
	ti := d.infoOf(t)
	if ti.mask&UNWIND_PENDING == 0 {
		return // WARN_ON_ONCE(!unwind_pending(info))
	}
	bits := ti.mask
	ti.mask &^= UNWIND_PENDING
	trace := d.unwindUserFaultable(t, ti)
	if ti.cache != nil {
		bits &^= ti.cache.completed
	}
	cookie := ti.id
	for _, w := range append([]*Work(nil), d.works...) {
		if w.bit < 0 || bits&(1<<uint(w.bit)) == 0 {
			continue
		}
		d.Stats.Callbacks++
		w.fn(t.CPU(), t, trace, uint64(cookie))
		if ti.cache != nil {
			ti.cache.completed |= 1 << uint(w.bit)
		}
	}
}

// unwindUserFaultable returns the user stack of t, from the cache when this
// entry was unwound already.
// kernel/unwind/deferred.c: unwind_user_faultable()
func (d *Deferred) unwindUserFaultable(t *sched.Task, ti *taskInfo) []uint64 {
	if ti.noMM {
		return nil // -EINVAL: the callback gets an empty trace
	}
	if ti.cache == nil {
		ti.cache = &cache{}
	}
	if len(ti.cache.entries) > 0 {
		return ti.cache.entries
	}
	trace := d.unwindUser(t)
	ti.cache.entries = append(ti.cache.entries[:0], trace...)
	ti.mask |= UNWIND_USED
	if d.Cfg.PerCPUBuffer {
		return trace // the RFC handed the per-CPU entry itself to the output
	}
	return ti.cache.entries
}

// unwindUser walks the user frames, innermost first: the first from the
// registers, each next one read from the user stack, where a read may fault
// and sleep (preemptible: the task can be switched out and migrated here).
// kernel/unwind/user.c: unwind_user() (frame pointers)
func (d *Deferred) unwindUser(t *sched.Task) []uint64 {
	d.Stats.Unwinds++
	frames := append([]string(nil), t.UserStack...) // in the kernel, the user stack is fixed
	n := len(frames)
	rfcCPU := t.CPUID() // get_callchain_entry(&rctx): this CPU's task-context entry (RFC)
	var own []uint64
	faultAt := -1
	if n > 1 && d.Cfg.FaultLatency > 0 && d.S.M.Eng.Choose(2, "unwind_user:fault") == 1 {
		faultAt = 1
	}
	for i := 0; i < n; i++ {
		if i == faultAt {
			d.Stats.Faults++
			t.Step("unwind_user:fault")
			d.S.KernelSleep(t, d.Cfg.FaultLatency)
		}
		if d.Cfg.FrameCost > 0 {
			t.Spend(d.Cfg.FrameCost)
		}
		ip := d.Cfg.UserIP(frames[n-1-i])
		if d.Cfg.PerCPUBuffer {
			// entry->ip[i] of the CPU the unwind started on, whoever wrote
			// the entries before i meanwhile.
			b := d.rfcBuf[rfcCPU]
			for len(b) <= i {
				b = append(b, 0)
			}
			b[i] = ip
			d.rfcBuf[rfcCPU] = b[:i+1]
		} else {
			own = append(own, ip)
		}
		t.Step("unwind_user:frame")
	}
	if d.Cfg.PerCPUBuffer {
		return append([]uint64(nil), d.rfcBuf[rfcCPU][:n]...)
	}
	return own
}

// ExitToUser implements sched.UserReturnHook: unwind_reset_info() at the end
// of exit_to_user_mode(), after the task work. It does nothing while PENDING is
// set (a task work is still to run before the task goes back).
// include/linux/unwind_deferred.h: unwind_reset_info()
func (d *Deferred) ExitToUser(t *sched.Task) {
	ti := d.info[t]
	if c := t.CPU(); c != nil {
		c.AccessMarkedOnly(t, "task->unwind_info.unwind_mask", cpu.MarkedRead, "unwind_reset_info") // include/linux/unwind_deferred.h: unwind_reset_info(): bits = atomic_long_read(&info->unwind_mask)
	}
	if d.OnReturn != nil {
		var id Cookie
		if ti != nil {
			id = ti.id
		}
		d.OnReturn(t, id)
	}
	if ti == nil || ti.mask == 0 {
		return
	}
	if ti.mask&UNWIND_PENDING != 0 {
		d.Stats.Skipped++
		return
	}
	// do { if (bits & UNWIND_PENDING) return; } while (!atomic_long_try_cmpxchg(&info->unwind_mask, &bits, 0UL))
	if c := t.CPU(); c != nil {
		c.Step("unwind_reset_info:bits-read") // an NMI request here sets PENDING: the cmpxchg fails
		if ti.mask&UNWIND_PENDING != 0 {
			d.Stats.Skipped++
			return
		}
	}
	ti.mask = 0
	if c := t.CPU(); c != nil {
		c.Step("unwind_reset_info:mask-cleared") // mask 0, id not yet: an NMI request here reads the old cookie
	}
	ti.id = 0
	if ti.cache != nil {
		ti.cache.entries = ti.cache.entries[:0]
		ti.cache.completed = 0
	}
	d.Stats.Resets++
}

// TaskExit implements sched.TaskExitHook: in do_exit(), after PF_EXITING and
// perf_event_exit_task() and before exit_mm(), a pending unwind is run now
// (with the user stack still there) and its task work cancelled.
// kernel/unwind/deferred.c: unwind_deferred_task_exit()
func (d *Deferred) TaskExit(t *sched.Task) {
	ti := d.infoOf(t)
	ti.exiting = true
	if ti.mask&UNWIND_PENDING == 0 {
		ti.noMM = true // exit_mm()
		return
	}
	d.Stats.ExitRuns++
	d.process(t)
	d.S.TaskWorkCancel(t, taskWorkName)
	ti.noMM = true
}

// SetExiting marks t PF_EXITING: unwind_deferred_request() fails from now on.
func (d *Deferred) SetExiting(t *sched.Task) { d.infoOf(t).exiting = true }

// CookieOf returns t's current cookie (0 when none was assigned in this entry).
func (d *Deferred) CookieOf(t *sched.Task) Cookie {
	if ti := d.info[t]; ti != nil {
		return ti.id
	}
	return 0
}

// PendingOf reports whether t has an unwind queued that has not started.
func (d *Deferred) PendingOf(t *sched.Task) bool {
	ti := d.info[t]
	return ti != nil && ti.mask&UNWIND_PENDING != 0
}

// StepPoints are the labels this package passes to Step.
var StepPoints = []string{"unwind_user:fault", "unwind_user:frame", "unwind_deferred_request:mask-read",
	"unwind_reset_info:bits-read", "unwind_reset_info:mask-cleared"}
