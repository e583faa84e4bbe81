package pmu_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/uapi"
)

// TestOpenCoreChecks: the checks sys_perf_event_open() does itself (steps
// 10-13, 15, 20-23 of opencheck.go), each with the errno the kernel returns.
func TestOpenCoreChecks(t *testing.T) {
	type open struct {
		attr  pmu.Attr
		pid   int // -2: the other task
		cpu   int
		group string // name of an earlier open, "" for -1, "bad" for a non-perf fd
		flags uint64
	}
	leaderHW := open{attr: cyclesAttr(0), pid: 0, cpu: -1}
	tests := []struct {
		name  string
		setup map[string]open // opened first, in name order of setupOrder
		order []string
		open  open
		want  uapi.Errno // 0: success
	}{
		{name: "group_fd not a perf fd: EBADF (perf_fget_light)", open: open{attr: cyclesAttr(0), cpu: -1, group: "bad"}, want: uapi.EBADF},
		{name: "unknown type: ENOENT (perf_init_event)", open: open{attr: pmu.Attr{Type: 99, Size: uapi.AttrSize}, cpu: -1}, want: uapi.ENOENT},
		{name: "unknown tracepoint id: ENOENT (perf_trace_init)", open: open{attr: pmu.Attr{Type: uapi.PERF_TYPE_TRACEPOINT, Size: uapi.AttrSize, Config: 1}, cpu: -1}, want: uapi.ENOENT},
		{name: "hw id not mapped: ENOENT", open: open{attr: pmu.Attr{Type: uapi.PERF_TYPE_HARDWARE, Size: uapi.AttrSize, Config: uapi.PERF_COUNT_HW_BUS_CYCLES}, cpu: -1}, want: uapi.ENOENT},
		{name: "no such pid: ESRCH (find_lively_task_by_vpid)", open: open{attr: cyclesAttr(0), pid: 4242, cpu: -1}, want: uapi.ESRCH},
		{name: "cpu out of range: EINVAL (perf_event_alloc)", open: open{attr: cyclesAttr(0), pid: 0, cpu: 7}, want: uapi.EINVAL},
		{name: "pid -1 cpu -1: EINVAL", open: open{attr: cyclesAttr(0), pid: -1, cpu: -1}, want: uapi.EINVAL},
		{name: "unknown flag: EINVAL", open: open{attr: cyclesAttr(0), cpu: -1, flags: 1 << 5}, want: uapi.EINVAL},
		{name: "per-task event: ok", open: open{attr: cyclesAttr(0), pid: 0, cpu: -1}},
		{name: "cpu event: ok (root)", open: open{attr: cyclesAttr(0), pid: -1, cpu: 1}},
		{name: "cpu-clock retargeted to its PMU: ok", open: open{attr: swAttr(uapi.PERF_COUNT_SW_CPU_CLOCK), pid: 0, cpu: -1}},
		{name: "sibling: ok", order: []string{"L"}, setup: map[string]open{"L": leaderHW},
			open: open{attr: pmu.Attr{Type: uapi.PERF_TYPE_HARDWARE, Size: uapi.AttrSize, Config: uapi.PERF_COUNT_HW_INSTRUCTIONS}, pid: 0, cpu: -1, group: "L"}},
		{name: "leader is a sibling: EINVAL", order: []string{"L", "S"}, setup: map[string]open{"L": leaderHW, "S": {attr: swAttr(uapi.PERF_COUNT_SW_DUMMY), pid: 0, cpu: -1, group: "L"}},
			open: open{attr: cyclesAttr(0), pid: 0, cpu: -1, group: "S"}, want: uapi.EINVAL},
		{name: "leader on another cpu: EINVAL", order: []string{"L"}, setup: map[string]open{"L": {attr: cyclesAttr(0), pid: 0, cpu: 0}},
			open: open{attr: cyclesAttr(0), pid: 0, cpu: 1, group: "L"}, want: uapi.EINVAL},
		{name: "leader in another context: EINVAL", order: []string{"L"}, setup: map[string]open{"L": {attr: cyclesAttr(0), pid: 0, cpu: 1}},
			open: open{attr: cyclesAttr(0), pid: -1, cpu: 1, group: "L"}, want: uapi.EINVAL},
		{name: "pinned sibling: EINVAL", order: []string{"L"}, setup: map[string]open{"L": leaderHW},
			open: open{attr: func() pmu.Attr { a := cyclesAttr(0); a.Pinned = true; return a }(), pid: 0, cpu: -1, group: "L"}, want: uapi.EINVAL},
		{name: "exclusive sibling: EINVAL", order: []string{"L"}, setup: map[string]open{"L": leaderHW},
			open: open{attr: func() pmu.Attr { a := cyclesAttr(0); a.Exclusive = true; return a }(), pid: 0, cpu: -1, group: "L"}, want: uapi.EINVAL},
		{name: "leader inherit differs (task): EINVAL", order: []string{"L"}, setup: map[string]open{"L": leaderHW},
			open: open{attr: func() pmu.Attr { a := cyclesAttr(0); a.Inherit = true; return a }(), pid: 0, cpu: -1, group: "L"}, want: uapi.EINVAL},
		{name: "different clock than leader: EINVAL", order: []string{"L"}, setup: map[string]open{"L": leaderHW},
			open: open{attr: func() pmu.Attr { a := cyclesAttr(0); a.UseClockid, a.Clockid = true, pmu.CLOCK_MONOTONIC; return a }(), pid: 0, cpu: -1, group: "L"}, want: uapi.EINVAL},
		{name: "FD_NO_GROUP: not grouped, ok even across cpus", order: []string{"L"}, setup: map[string]open{"L": {attr: cyclesAttr(0), pid: 0, cpu: 0}},
			open: open{attr: cyclesAttr(0), pid: 0, cpu: 1, group: "L", flags: uapi.PERF_FLAG_FD_NO_GROUP}},
		{name: "FD_OUTPUT to an event without a buffer: EINVAL (perf_event_set_output: ring_buffer_get)", order: []string{"L"}, setup: map[string]open{"L": {attr: cyclesAttr(0), pid: 0, cpu: 0}},
			open: open{attr: cyclesAttr(0), pid: 0, cpu: 0, group: "L", flags: uapi.PERF_FLAG_FD_OUTPUT | uapi.PERF_FLAG_FD_NO_GROUP}, want: uapi.EINVAL},
		{name: "FD_OUTPUT across cpus: EINVAL", order: []string{"L"}, setup: map[string]open{"L": {attr: cyclesAttr(0), pid: 0, cpu: 0}},
			open: open{attr: cyclesAttr(0), pid: 0, cpu: 1, group: "L", flags: uapi.PERF_FLAG_FD_OUTPUT | uapi.PERF_FLAG_FD_NO_GROUP}, want: uapi.EINVAL},
		{name: "sampling event on sampling-capable PMU: ok", open: open{attr: cyclesAttr(1000), pid: 0, cpu: -1}},
		{name: "precise_ip above max: EOPNOTSUPP... within 3 ok", open: open{attr: func() pmu.Attr { a := cyclesAttr(0); a.PreciseIP = 3; return a }(), pid: 0, cpu: -1}},
	}
	var got, want []string
	for _, tc := range tests {
		mc := newMachine(t, 2, nil, pmu.Knobs{})
		other := mc.s.Spawn("other", sched.MaskOf(1), sched.Sleep(1000000))
		var err error
		mc.runIn(t, 0, func(tk *sched.Task) {
			fds := map[string]int{}
			do := func(o open) (int, error) {
				pid := o.pid
				if pid == -2 {
					pid = other.PID
				}
				g := -1
				switch o.group {
				case "":
				case "bad":
					g = 42
				default:
					g = fds[o.group]
				}
				a := o.attr
				return mc.k.PerfEventOpen(tk, &a, pid, o.cpu, g, o.flags)
			}
			for _, n := range tc.order {
				fd, e := do(tc.setup[n])
				if e != nil {
					t.Errorf("%s: setup %s: %v", tc.name, n, e)
				}
				fds[n] = fd
			}
			_, err = do(tc.open)
		})
		g := "ok"
		if err != nil {
			g = err.(uapi.Errno).Name()
		}
		w := "ok"
		if tc.want != 0 {
			w = tc.want.Name()
		}
		got = append(got, tc.name+": "+g)
		want = append(want, tc.name+": "+w)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("open results (-want +got):\n%s", d)
	}
}

// TestOpenUnprivileged: a CPU-wide event needs perf_allow_cpu() (paranoid 2,
// no CAP_PERFMON): EACCES; a per-task user-only one is allowed.
func TestOpenUnprivileged(t *testing.T) {
	mc := newMachine(t, 1, nil, pmu.Knobs{})
	mc.k.Opts.Sysctl.PerfmonCapable = false
	var errs []error
	mc.runIn(t, 0, func(tk *sched.Task) {
		a := cyclesAttr(0)
		a.ExcludeKernel, a.ExcludeHV = true, true
		_, e1 := mc.k.PerfEventOpen(tk, &a, -1, 0, -1, 0)
		_, e2 := mc.k.PerfEventOpen(tk, &a, 0, -1, -1, 0)
		errs = append(errs, e1, e2)
	})
	if diff := cmp.Diff([]error{uapi.EACCES, nil}, errs, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
		t.Error(diff)
	}
}
