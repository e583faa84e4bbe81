package pmu_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/perftool"
	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestTpEventInitFootprint: perf_tp_event_init()'s part of two opens of
// one tracepoint's event (pmu/footprint_tp_init.go), each entry fragment
// from the event's id to perf_trace_init()'s event_mutex: the first makes
// the tracepoint's slot (a write of the registration its readers test, and
// of the model's table), the second finds it (a read).
func TestTpEventInitFootprint(t *testing.T) {
	tp, ok := perftool.LookupTracepoint("syscalls", "sys_enter_getpid")
	if !ok {
		t.Fatal("no syscalls:sys_enter_getpid in the catalogue")
	}
	mc := newMachine(t, 1, nil, pmu.Knobs{})
	l := &fragLog{}
	mc.m.OnSegments(l)
	mc.s.Spawn("opener", sched.MaskOf(0), sched.Call(func(t2 *sched.Task) {
		for range 2 {
			a := pmu.Attr{Type: uapi.PERF_TYPE_TRACEPOINT, Size: uapi.AttrSize, Config: tp.ID}
			if _, err := mc.k.PerfEventOpen(t2, &a, 0, -1, -1, 0); err != nil {
				panic(err)
			}
		}
	}))
	if err := mc.m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	var got []string // each open's entry fragment from perf_event_alloc()'s id on
	for _, f := range l.frags {
		i := slices.Index(f, "perf_event_id w")
		if f[0] != "syscall_enter_from_user_mode" || i < 0 {
			continue
		}
		got = append(got, strings.Join(f[i:], ", "))
	}
	// the id (the kernel's counter, the model's), the slot, event_mutex taken
	want := []string{
		"perf_event_id w, perf_event_id w, tp_event->perf_refcount w, slots w, sync w, current->lockdep_depth w, sync w",
		"perf_event_id w, perf_event_id w, tp_event->perf_refcount r, sync w, current->lockdep_depth w, sync w",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the opens' event_init (-want +got):\n%s", diff)
	}
}
