package pmu_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestCloseFput: where close(2)'s last reference releases the event. Today
// (fput_close_sync(), 021a160abf62) perf_event_release_kernel() runs in
// the syscall: its ctx-locked step point follows the close's entry, no
// ____fput task work runs. close-fput=pre-021a160abf62, and every knob
// that selects a kernel older than v6.6, queues ____fput instead: the
// release runs in task_work_run() on the way back to user mode. A mapping
// keeps the file past the close either way, and munmap()'s last fput() is
// task work on both kernels.
func TestCloseFput(t *testing.T) {
	sync := []string{"syscall_enter_from_user_mode", "perf_event_release_kernel:ctx-locked"}
	deferred := []string{"syscall_enter_from_user_mode", "exit_to_user_mode_loop", "task_work_run:____fput", "perf_event_release_kernel:ctx-locked"}
	for _, tc := range []struct {
		knob, value string
		mmap        bool
		want        []string
	}{
		{knob: "close-fput", value: "today", want: sync},
		{knob: "close-fput", value: "pre-021a160abf62", want: deferred},
		{knob: "close-fput", value: "today", mmap: true, want: deferred}, // the munmap's, after the close
		{knob: "close-fput", value: "pre-021a160abf62", mmap: true, want: deferred},
		{knob: "pending-task-sync", value: "pre-56799bc03565", want: sync}, // v6.15: after 021a160abf62
		{knob: "child-release", value: "pre-3a5465418f5f", want: sync},     // v6.10
		{knob: "addr-filter-clone", value: "pre-18736eef1213", want: deferred},
		{knob: "addr-filter-kernel-match", value: "pre-7f635ff187ab", want: deferred},
		{knob: "addr-filter-range", value: "pre-52a44f83fc2d", want: deferred},
		{knob: "addr-filter-range", value: "pre-c60f83b813e5", want: deferred},
		{knob: "exit-event", value: "pre-ef54c1a476ae", want: deferred},
		{knob: "pause-output-rb-check", value: "posted", want: deferred},
		{knob: "pebs-disable-order", value: "pre-6f55967ad9d9", want: deferred},
		{knob: "pending-task-ref", value: "pre-517e6a301f34", want: deferred},
		{knob: "pmu-ctx-serialize", value: "pre-4f64a6c9f6f1", want: deferred},
		{knob: "release-child-free", value: "pre-82d94856fa22", want: deferred},
		{knob: "task-function-call", value: "pre-6d6b8b9f4fce", want: deferred},
		{knob: "rb-put-handle", value: "pre-1b038c6e05ff", want: deferred},
		{knob: "aux-free", value: "pre-57ffc5ca679f", want: deferred},
		{knob: "unpin-ctx-lock", value: "pre-6c605f837115", want: deferred},
	} {
		var knobs pmu.Knobs
		if ok, err := pmu.ApplyAnyKnob(&knobs, tc.knob, tc.value); !ok || err != nil {
			t.Fatalf("%s=%s: %v %v", tc.knob, tc.value, ok, err)
		}
		mc := newMachine(t, 1, nil, knobs)
		l := &fragLog{}
		mc.m.OnSegments(l)
		mc.s.Spawn("work", sched.MaskOf(0), sched.Call(func(t2 *sched.Task) {
			a := swAttr(uapi.PERF_COUNT_SW_CPU_CLOCK)
			fd, err := mc.k.PerfEventOpen(t2, &a, 0, -1, -1, 0)
			if err != nil {
				panic(err)
			}
			var m *pmu.Mapping
			if tc.mmap {
				if m, err = mc.k.Mmap(t2, fd, 0, 2*4096, pmu.ProtRead|pmu.ProtWrite); err != nil {
					panic(err)
				}
			}
			mc.s.RunOps(t2, []sched.Op{sched.Compute(sim.Microsecond)})
			if err := mc.k.Close(t2, fd); err != nil {
				panic(err)
			}
			if tc.mmap {
				if err := mc.k.Munmap(t2, m); err != nil {
					panic(err)
				}
			}
			mc.s.RunOps(t2, []sched.Op{sched.Compute(sim.Microsecond)})
		}))
		if err := mc.m.Run(sim.Second); err != nil {
			t.Fatal(err)
		}
		// the fragment starts from the entry of the syscall that released
		// the event (its last entry before the release) to the release
		var got []string
		for _, f := range l.frags {
			switch f[0] {
			case "syscall_enter_from_user_mode":
				got = []string{f[0]}
			case "exit_to_user_mode_loop", "task_work_run:____fput":
				got = append(got, f[0])
			case "perf_event_release_kernel:ctx-locked":
				got = append(got, f[0])
				goto done
			}
		}
	done:
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s=%s mmap=%v: fragments to the release (-want +got):\n%s", tc.knob, tc.value, tc.mmap, d)
		}
	}
}
