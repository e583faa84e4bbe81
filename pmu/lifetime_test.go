package pmu

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
)

// lifeRig runs fn in a task on cpu0 of a one-CPU kernel and returns what the
// object-lifetime oracle reported (each message up to its first ": ", the
// kind) and the oops that ended the run, if any.
func lifeRig(t *testing.T, off bool, fn func(k *Kernel, t *sched.Task)) (kinds []string, msgs []string, oops string) {
	t.Helper()
	m := cpu.NewMachine(cpu.Config{CPUs: 1}, nil)
	t.Cleanup(m.Close)
	s := sched.New(m, ExactSleeps())
	o := DefaultOptions(1)
	if off {
		o.Knobs.Extra = map[string]string{"object-lifetime": "off"}
	}
	k := NewKernel(s, o)
	k.SetLifetimeHook(func(v LifetimeViolation) {
		kinds = append(kinds, lifeKind(v.Message))
		msgs = append(msgs, v.Message)
	})
	s.Spawn("t", sched.MaskOf(0), sched.Call(func(tk *sched.Task) { fn(k, tk) }))
	if err := m.Run(sim.Second); err != nil {
		var o *sim.Oops
		if !errors.As(err, &o) {
			t.Fatal(err)
		}
		oops = lifeKind(o.Msg)
	}
	return kinds, msgs, oops
}

// lifeKind is a report's kind: its words up to the object
// ("BUG: KASAN: double-free in put_event", "refcount_t").
func lifeKind(msg string) string {
	const kasan = "BUG: KASAN: "
	if rest, ok := strings.CutPrefix(msg, kasan); ok {
		return kasan + strings.SplitN(rest, ": ", 2)[0]
	}
	return strings.SplitN(msg, ": ", 2)[0]
}

// lifeEvent is an opened event as perf_event_alloc() leaves it: refcount 1
// (the file's), one file reference.
func lifeEvent(k *Kernel) *Event {
	e := k.newEvent(&Attr{}, 0, nil, nil)
	e.pmu = k.swPMU
	e.life.refcount = 1
	e.fileRefs = 1
	k.events = append(k.events, e)
	return e
}

func sleepFor(k *Kernel, t *sched.Task, d sim.Duration) { k.S.RunOps(t, []sched.Op{sched.Sleep(d)}) }

// TestLifetimeRefcounts is the table of the oracle's refcount semantics:
// what each sequence of gets, puts and uses reports, and whether it oopses.
func TestLifetimeRefcounts(t *testing.T) {
	type result struct {
		Kinds []string
		Oops  string
	}
	tests := []struct {
		name string
		off  bool
		fn   func(k *Kernel, t *sched.Task)
		want result
	}{
		{"get and put balance: freed, nothing reported", false, func(k *Kernel, t *sched.Task) {
			e := lifeEvent(k)
			if !e.getEvent() {
				panic("get on a live event failed")
			}
			k.putEvent(t, e)
			k.putEvent(t, e)
			if !e.life.freeQueued {
				panic("the last put did not free the event")
			}
		}, result{}},
		{"inc_not_zero on a dying event fails quietly", false, func(k *Kernel, t *sched.Task) {
			e := lifeEvent(k)
			k.putEvent(t, e) // call_rcu queued, grace period not over
			if e.getEvent() {
				panic("atomic_long_inc_not_zero succeeded on 0")
			}
		}, result{}},
		{"used inside the grace period: no report", false, func(k *Kernel, t *sched.Task) {
			e := lifeEvent(k)
			k.putEvent(t, e)
			sleepFor(k, t, rcuGracePeriod/2)
			e.checkLive("perf_pending_irq")
		}, result{}},
		{"used after the grace period: KASAN", false, func(k *Kernel, t *sched.Task) {
			e := lifeEvent(k)
			k.putEvent(t, e)
			sleepFor(k, t, rcuGracePeriod)
			e.checkLive("perf_pending_task")
		}, result{Kinds: []string{"BUG: KASAN: slab-use-after-free in perf_pending_task"}, Oops: "BUG: KASAN: slab-use-after-free in perf_pending_task"}},
		{"put once too often: double free", false, func(k *Kernel, t *sched.Task) {
			e := lifeEvent(k)
			k.putEvent(t, e)
			k.putEvent(t, e)
		}, result{Kinds: []string{"BUG: KASAN: double-free in put_event"}, Oops: "BUG: KASAN: double-free in put_event"}},
		{"refcount_t taken from 0: WARN, the run goes on", false, func(k *Kernel, t *sched.Task) {
			k.refcountWarn("event->mmap_count of event 1", "perf_mmap_aux")
			k.refcountWarn("event->mmap_count of event 2", "perf_mmap_aux")
		}, result{Kinds: []string{"refcount_t", "refcount_t"}}},
		{"ring_buffer_put below 0: underflow", false, func(k *Kernel, t *sched.Task) {
			e := lifeEvent(k)
			buf, err := rb.NewBuffer(1, 0, rb.RingBufferWritable)
			if err != nil {
				panic(err)
			}
			k.bufs[buf] = &bufState{mmapCount: 1}
			k.rbAlloc(buf, e)
			k.ringBufferPut(buf)
			k.ringBufferPut(buf)
		}, result{Kinds: []string{"refcount_t"}, Oops: "refcount_t"}},
		{"ring buffer used after rb_free_rcu()", false, func(k *Kernel, t *sched.Task) {
			e := lifeEvent(k)
			buf, _ := rb.NewBuffer(1, 0, rb.RingBufferWritable)
			k.bufs[buf] = &bufState{mmapCount: 1}
			k.rbAlloc(buf, e)
			k.ringBufferPut(buf)
			sleepFor(k, t, rcuGracePeriod)
			k.rbGet(buf, "perf_event_set_output")
		}, result{Kinds: []string{"BUG: KASAN: slab-use-after-free in perf_event_set_output"}, Oops: "BUG: KASAN: slab-use-after-free in perf_event_set_output"}},
		{"object-lifetime=off: no report, freed memory still oopses", true, func(k *Kernel, t *sched.Task) {
			e := lifeEvent(k)
			k.refcountWarn("event->mmap_count of event 1", "perf_mmap_aux")
			k.putEvent(t, e)
			sleepFor(k, t, rcuGracePeriod)
			e.checkLive("perf_pending_task")
		}, result{Oops: "BUG: KASAN: slab-use-after-free in perf_pending_task"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			kinds, _, oops := lifeRig(t, tc.off, tc.fn)
			if d := cmp.Diff(tc.want, result{Kinds: kinds, Oops: oops}); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}

// TestLifetimeUseAfterFreeNamesBothPlaces checks a use after free's report:
// the object, where its last reference went and where it was used.
func TestLifetimeUseAfterFreeNamesBothPlaces(t *testing.T) {
	_, msgs, _ := lifeRig(t, false, func(k *Kernel, t *sched.Task) {
		e := lifeEvent(k)
		t.Syscall = "close"
		k.putEvent(t, e)
		t.Syscall = ""
		sleepFor(k, t, rcuGracePeriod)
		t.Syscall = "ioctl"
		e.checkLive("perf_ioctl")
	})
	want := []string{"BUG: KASAN: slab-use-after-free in perf_ioctl: event 1 (software) freed by free_event_rcu() at 200us, " +
		"its last reference dropped by put_event on cpu0 by t/101 in close after step perf_event_task_sched_in at 0; " +
		"used by perf_ioctl on cpu0 by t/101 in ioctl after step exit_to_user_mode_loop at 200us"}
	if d := cmp.Diff(want, msgs); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
}

// TestLifetimeCheckAtEnd is the table of the end-of-scenario check: what
// holds a reference, what is a leak.
func TestLifetimeCheckAtEnd(t *testing.T) {
	tests := []struct {
		name  string
		quiet bool
		setup func(k *Kernel, t *sched.Task)
		want  []string
	}{
		{"fd still open: held by its file", true, func(k *Kernel, t *sched.Task) { lifeEvent(k) }, nil},
		{"file closed, freed", true, func(k *Kernel, t *sched.Task) {
			e := lifeEvent(k)
			e.fileRefs = 0
			k.putEvent(t, e)
		}, nil},
		{"file closed, a reference never dropped", true, func(k *Kernel, t *sched.Task) {
			e := lifeEvent(k)
			e.getEvent()
			e.fileRefs = 0
			k.putEvent(t, e)
		}, []string{"unreferenced object (leak): event 1 (software, INACTIVE) has refcount 1 at the end, 0 held (its file closed)"}},
		{"a child holds its original", true, func(k *Kernel, t *sched.Task) {
			e := lifeEvent(k)
			c := lifeEvent(k)
			c.fileRefs, c.parent = 0, e
			e.getEvent()
			e.childList = append(e.childList, c)
			c.life.refcount = 0
			c.life.freeQueued = true
		}, []string{"unreferenced object (leak): event 1 (software, INACTIVE) has refcount 2 at the end, 1 held (its file: 1 fd/mapping references)"}},
		{"fewer references than holders", true, func(k *Kernel, t *sched.Task) {
			e := lifeEvent(k)
			e.fileRefs = 2
			e.life.refcount = 0
		}, []string{"refcount below its holders: event 1 (software, INACTIVE) has refcount 0 at the end, 1 held (its file: 2 fd/mapping references)"}},
		{"tasks still running: not judged", false, func(k *Kernel, t *sched.Task) {
			e := lifeEvent(k)
			e.fileRefs = 0
		}, nil},
		{"a mapped buffer: counts match its VMA", true, func(k *Kernel, t *sched.Task) {
			e := lifeEvent(k)
			buf, _ := rb.NewBuffer(1, 0, rb.RingBufferWritable)
			k.bufs[buf] = &bufState{mmapCount: 1}
			k.rbAlloc(buf, e)
			e.rb, e.mmapCount = buf, 1
			k.lifeMapped(&Mapping{RB: buf, ev: e})
		}, nil},
		{"an rb->mmap_count no VMA gives back", true, func(k *Kernel, t *sched.Task) {
			e := lifeEvent(k)
			buf, _ := rb.NewBuffer(1, 0, rb.RingBufferWritable)
			k.bufs[buf] = &bufState{mmapCount: 2}
			k.rbAlloc(buf, e)
			e.rb, e.mmapCount = buf, 1
			k.lifeMapped(&Mapping{RB: buf, ev: e})
			k.lifeMapped(&Mapping{RB: buf, ev: e, unmap: true})
		}, []string{"mmap count imbalance: rb->mmap_count of the perf_buffer event 1 mapped is 2 at the end, 1 VMAs map it"}},
		{"a buffer with a reference no event holds", true, func(k *Kernel, t *sched.Task) {
			e := lifeEvent(k)
			buf, _ := rb.NewBuffer(1, 0, rb.RingBufferWritable)
			k.bufs[buf] = &bufState{}
			k.rbAlloc(buf, e)
		}, []string{"unreferenced object (leak): the perf_buffer event 1 mapped (allocated by rb_alloc on cpu0 by t/101 after step perf_event_task_sched_in at 0) has refcount 1 at the end, 0 events attached"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			lifeRig(t, false, func(k *Kernel, tk *sched.Task) {
				tc.setup(k, tk)
				for _, v := range k.LifetimeCheck(tc.quiet) {
					// the report up to where it says where the last references went
					got = append(got, strings.SplitN(v.Message, "; last", 2)[0])
				}
			})
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}
