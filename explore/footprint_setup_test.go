package explore

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/runner"
	"perfsim/sim"
)

// setupLog records, per fragment start and thread, the accesses (key and
// field, "w" for a write) and the unaudited marks of the task fragments
// from the starts it names.
type setupLog struct {
	starts map[string]bool        // the starts to record
	open   map[*cpu.Thread]string // the start of each thread's open fragment
	cur    *cpu.Thread            // the thread whose fragment runs
	got    map[string]map[string]bool
}

func (l *setupLog) Boundary(c *cpu.CPU, kind cpu.BoundaryKind, ctx cpu.Context, th *cpu.Thread, label string) {
	l.cur = nil
	if ctx != cpu.CtxTask || th == nil {
		return
	}
	l.cur = th
	if kind == cpu.BoundaryStep || kind == cpu.BoundaryEnter {
		l.open[th] = label
	}
}

func (l *setupLog) Touch(obj any, field string, write bool) {
	start := l.open[l.cur]
	if l.cur == nil || !l.starts[start] {
		return
	}
	start += " by " + l.cur.Name
	if l.got[start] == nil {
		l.got[start] = map[string]bool{}
	}
	if u, ok := obj.(cpu.Unaudited); ok {
		l.got[start]["unaudited "+string(u)] = true
		return
	}
	key, _ := cpu.FootprintKey(obj)
	if write {
		field += " w"
	}
	l.got[start][key+" "+field] = true
}

// TestSetupFootprints pins what perf's setup fragments annotate
// (pmu/footprint_setup.go) on set-output-vs-munmap's seed-3 schedule:
// the SET_OUTPUT ioctl from ctx->mutex held up to ring_buffer_attach's
// step point (the lookup of the output fd, both event->mmap_mutex, the
// rb's checks and refcount, the event lists), and from there the
// event->rb store, the mutexes dropped and the ioctl's return, with no
// unaudited code; and perf_mmap_close() from its mmap_count-dec step point,
// whose return into munmap() is marked.
func TestSetupFootprints(t *testing.T) {
	f := loadBuiltin(t, "set-output-vs-munmap")
	opts := Options{}.runOptions(sim.NewRandom(3), false)
	opts.StopAtViolation = false
	r, err := runner.Build(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	l := &setupLog{starts: map[string]bool{"perf_ioctl:ctx-locked": true, "ring_buffer_attach:rb-set": true, "perf_mmap_close:mmap_count-dec": true},
		open: map[*cpu.Thread]string{}, got: map[string]map[string]bool{}}
	r.M.OnSegments(l)
	if err := r.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		frag string
		want []string
	}{
		{"perf_ioctl:ctx-locked by redirector-102", []string{
			"event#1 event->rb", "event#1 event->state", // the output event: revoked? its rb (ring_buffer_get())
			"event#1/event->mmap_mutex (struct mutex) sync w", "event#1/event->mmap_mutex sync w", // mutex_lock_double()
			"event#2 event->mmap_count", "event#2 event->rb", "event#2 event->state", // the event: mapped? its rb
			"event#2/event->mmap_mutex (struct mutex) sync w", "event#2/event->mmap_mutex sync w",
			"files#1@tid101 fdt->fd[]", // the output fd's lookup, in the table the file's tasks share (owner-101's)
			"rb#1@event#1 rb->refcount w", "rb#1@event#1/core rb->event_list w", "rb#1@event#1/core rb->mmap_count",
			"thread:redirector-102 current->lockdep_depth w", "thread:redirector-102 task->files"}},
		{"ring_buffer_attach:rb-set by redirector-102", []string{
			"ctx@cpu1/ctx->mutex (struct mutex) sync w", "ctx@cpu1/ctx->mutex sync w", // perf_event_ctx_unlock()
			"event#1/event->mmap_mutex (struct mutex) sync w", "event#1/event->mmap_mutex sync w",
			"event#2 event->rb w",     // rcu_assign_pointer(event->rb, rb)
			"event#2 file->f_count w", // fdput(): a shared fd table's fdget() took a reference
			"event#2/event->mmap_mutex (struct mutex) sync w", "event#2/event->mmap_mutex sync w",
			"thread:redirector-102 current->lockdep_depth w", "thread:redirector-102 task_pt_regs(current) w", // the syscall's exit (sched's)
			"tp:raw_syscalls:sys_exit tp_event->perf_refcount", "tp:syscalls:sys_exit_ioctl tp_event->perf_refcount"}},
		{"perf_mmap_close:mmap_count-dec by owner-101", []string{
			"event#1 event->mmap_count w", "event#1 event->rb",
			"event#1/event->mmap_mutex (struct mutex) sync w", "event#1/event->mmap_mutex sync w",
			"rb#1@event#1/core rb->event_list w", // the detach's list_del_rcu(), up to ring_buffer_attach's step point
			"thread:owner-101 current->lockdep_depth w"}},
	} {
		var got []string
		for a := range l.got[tc.frag] {
			got = append(got, a)
		}
		slices.Sort(got)
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.frag, d)
		}
	}
}
