package pmu_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

var (
	closeSync     = []string{"syscall_enter_from_user_mode", "perf_event_release_kernel:ctx-locked"}
	closeDeferred = []string{"syscall_enter_from_user_mode", "exit_to_user_mode_loop", "task_work_run:____fput", "perf_event_release_kernel:ctx-locked"}
)

// closeFputCases are TestCloseFput's knob settings and where each releases.
var closeFputCases = []struct {
	knob, value string
	mmap        bool
	also        map[string]string // more settings
	want        []string
}{
	{knob: "close-fput", value: "today", want: closeSync},
	{knob: "close-fput", value: "pre-021a160abf62", want: closeDeferred},
	{knob: "close-fput", value: "today", mmap: true, want: closeDeferred}, // the munmap's, after the close
	{knob: "close-fput", value: "pre-021a160abf62", mmap: true, want: closeDeferred},
	{knob: "pending-task-sync", value: "pre-56799bc03565", want: closeSync}, // v6.15: after 021a160abf62
	{knob: "child-release", value: "pre-3a5465418f5f", want: closeSync},     // v6.10
	{knob: "addr-filter-clone", value: "pre-18736eef1213", want: closeDeferred},
	{knob: "addr-filter-kernel-match", value: "pre-7f635ff187ab", want: closeDeferred},
	{knob: "addr-filter-range", value: "pre-52a44f83fc2d", want: closeDeferred},
	{knob: "addr-filter-range", value: "pre-c60f83b813e5", want: closeDeferred},
	{knob: "exit-event", value: "pre-ef54c1a476ae", want: closeDeferred},
	{knob: "pause-output-rb-check", value: "posted", want: closeDeferred},
	{knob: "pebs-disable-order", value: "pre-6f55967ad9d9", want: closeDeferred},
	{knob: "pending-task-ref", value: "pre-517e6a301f34", want: closeDeferred},
	{knob: "pmu-ctx-serialize", value: "pre-4f64a6c9f6f1", want: closeDeferred},
	{knob: "release-child-free", value: "pre-82d94856fa22", want: closeDeferred},
	{knob: "sigtrap-send", value: "pre-78ed93d72ded", want: closeDeferred},
	{knob: "task-function-call", value: "pre-6d6b8b9f4fce", want: closeDeferred},
	{knob: "rb-put-handle", value: "pre-1b038c6e05ff", want: closeDeferred},
	{knob: "aux-free", value: "pre-57ffc5ca679f", want: closeDeferred},
	{knob: "unpin-ctx-lock", value: "pre-6c605f837115", want: closeDeferred},
	// a close-fput the settings name wins over the one implied
	{knob: "pmu-ctx-serialize", value: "pre-4f64a6c9f6f1", also: map[string]string{"close-fput": "today"}, want: closeSync},
	{knob: "rb-put-handle", value: "pre-1b038c6e05ff", also: map[string]string{"close-fput": "today"}, want: closeSync},
}

// TestCloseFput: where close(2)'s last reference releases the event. Today
// (fput_close_sync(), 021a160abf62) perf_event_release_kernel() runs in
// the syscall: its ctx-locked step point follows the close's entry, no
// ____fput task work runs. close-fput=pre-021a160abf62, and every knob
// that selects a kernel older than v6.6, queues ____fput instead: the
// release runs in task_work_run() on the way back to user mode. A mapping
// keeps the file past the close either way, and munmap()'s last fput() is
// task work on both kernels. The knobs are set as the runner sets them
// (pmu.ApplyKnobs: with what they imply), and a close-fput set with an old
// knob wins over the one that knob implies.
func TestCloseFput(t *testing.T) {
	for _, tc := range closeFputCases {
		var knobs pmu.Knobs
		settings := map[string]string{tc.knob: tc.value}
		maps.Copy(settings, tc.also)
		if err := pmu.ApplyKnobs(&knobs, settings); err != nil {
			t.Fatalf("%v: %v", settings, err)
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
			t.Errorf("%v mmap=%v: fragments to the release (-want +got):\n%s", settings, tc.mmap, d)
		}
	}
}

// TestCloseFputImpliedBy: the knob values that imply the old close(2) are
// the ones TestCloseFput shows releasing the old way, and close-fput's
// help names each of their knobs, no more.
func TestCloseFputImpliedBy(t *testing.T) {
	var implying, helpNames []string
	var help string
	for _, spec := range pmu.AllKnobSpecs() {
		if spec.Name == "close-fput" {
			help = spec.Help
		}
		named := false
		for _, v := range spec.Values {
			if slices.Contains(spec.Implies[v], "close-fput=pre-021a160abf62") {
				implying = append(implying, spec.Name+"="+v)
				named = true
			}
		}
		if named {
			helpNames = append(helpNames, spec.Name)
		}
	}
	_, list, ok := strings.Cut(help, "kernels older than v6.6: ")
	if !ok {
		t.Fatalf("close-fput's help names no knobs: %q", help)
	}
	if d := cmp.Diff(helpNames, strings.Split(list, ", ")); d != "" {
		t.Errorf("close-fput's help (-implying +help):\n%s", d)
	}
	var want []string // TestCloseFput's settings of one knob, not close-fput, that release the old way
	for _, tc := range closeFputCases {
		if tc.knob != "close-fput" && tc.also == nil && !tc.mmap && slices.Equal(tc.want, closeDeferred) {
			want = append(want, tc.knob+"="+tc.value)
		}
	}
	slices.Sort(want)
	if d := cmp.Diff(want, implying); d != "" {
		t.Errorf("knob values implying close-fput=pre-021a160abf62 (-TestCloseFput's +specs'):\n%s", d)
	}
}
