package pmu_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestOpenFailFootprints: an annotated perf_event_open(2) that fails
// before perf_event_alloc() made its event (pmu/footprint_open.go:
// openFailEarly) is not marked: its entry fragment, exactly, ends with
// put_unused_fd() of the fd it reserved (and the target's put, for a
// task), then the syscall's exit; one that fails once the event is made
// (an unknown tracepoint's id: the event's id taken) is marked.
func TestOpenFailFootprints(t *testing.T) {
	const (
		// the sys_enter tracepoints looked up (sched's entry)
		entry = "tp_event->perf_refcount r, tp_event->perf_refcount r"
		// get_unused_fd_flags(): the caller's table looked up and written (the kernel's key and the model's)
		fd = "task->files r, fdt->fd[] r, fdt->fd[] w, fdt->fd[] w"
		// put_unused_fd(), then the syscall's exit: the sys_exit tracepoints' looks, the registers
		fail = "fdt->fd[] w, fdt->fd[] w, tp_event->perf_refcount r, tp_event->perf_refcount r, task_pt_regs(current) w"
	)
	for _, tc := range []struct {
		name     string
		pid, cpu int
		groupFD  int
		attr     func() pmu.Attr
		want     string
	}{
		{name: "no task and no CPU: perf_event_alloc()'s check", pid: -1, cpu: -1, groupFD: -1, want: entry + ", " + fd + ", " + fail},
		{name: "a bad group fd", pid: 0, cpu: -1, groupFD: 42, want: entry + ", " + fd + ", task->files r, fdt->fd[] r, " + fail},
		{name: "an unknown tracepoint: marked", pid: 0, cpu: -1, groupFD: -1,
			attr: func() pmu.Attr {
				return pmu.Attr{Type: uapi.PERF_TYPE_TRACEPOINT, Size: uapi.AttrSize, Config: 1 << 40}
			},
			want: "UNAUDITED sys_perf_event_open's error path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mc := newMachine(t, 1, nil, pmu.Knobs{})
			l := &fragLog{}
			mc.m.OnSegments(l)
			mc.s.Spawn("opener", sched.MaskOf(0), sched.Call(func(t2 *sched.Task) {
				a := cyclesAttr(100000)
				if tc.attr != nil {
					a = tc.attr()
				}
				if _, err := mc.k.PerfEventOpen(t2, &a, tc.pid, tc.cpu, tc.groupFD, 0); err == nil {
					panic("the open did not fail")
				}
			}))
			if err := mc.m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			var got []string // the open's entry fragment
			for _, f := range l.frags {
				if f[0] == "syscall_enter_from_user_mode" && len(f) > 3 {
					got = append(got, strings.Join(f[1:], ", "))
				}
			}
			if len(got) != 1 {
				t.Fatalf("want one open's entry fragment, got %q", got)
			}
			if strings.HasPrefix(tc.want, "UNAUDITED ") {
				if !strings.Contains(got[0], tc.want) {
					t.Errorf("want %q in %q", tc.want, got[0])
				}
				return
			}
			if diff := cmp.Diff(strings.Split(tc.want, ", "), strings.Split(got[0], ", ")); diff != "" {
				t.Errorf("the open's entry fragment (-want +got):\n%s", diff)
			}
		})
	}
}
