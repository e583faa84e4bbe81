package pmu

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
)

// offlineMarks is a cpu.SegmentListener that keeps the unaudited marks of
// the fragments of one thread.
type offlineMarks struct {
	th    *cpu.Thread
	cur   bool
	marks []string
}

func (l *offlineMarks) Boundary(_ *cpu.CPU, _ cpu.BoundaryKind, ctx cpu.Context, th *cpu.Thread, _ string) {
	l.cur = ctx == cpu.CtxTask && th == l.th
}

func (l *offlineMarks) Touch(obj any, _ string, _ bool) {
	if u, ok := obj.(cpu.Unaudited); ok && l.cur {
		l.marks = append(l.marks, string(u))
	}
}

// TestSMPCallOfflineMarksCaller: smp_call_function_single() to an offline
// CPU returns -ENXIO at once; for a caller whose code after the call
// nobody annotated (csdCall.ret false) the return is marked, as after a
// call that ran (markCSDDone), and for one that annotates its own code
// (ret true) it is not.
// kernel/smp.c: smp_call_function_single(): if (cpu >= nr_cpu_ids || !cpu_online(cpu)) err = -ENXIO
func TestSMPCallOfflineMarksCaller(t *testing.T) {
	for _, tc := range []struct {
		name string
		how  csdCall
		want []string
	}{
		{name: "caller not annotated", how: csdCall{}, want: []string{"smp_call_function_single's caller"}},
		{name: "caller annotated", how: csdCall{fn: true, ret: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := cpu.NewMachine(cpu.Config{CPUs: 2}, nil)
			t.Cleanup(m.Close)
			s := sched.New(m, sched.DefaultConfig())
			k := NewKernel(s, DefaultOptions(2))
			l := &offlineMarks{}
			m.OnSegments(l)
			var err error
			var got []string
			ran := false
			caller := s.Spawn("caller", sched.MaskOf(0), sched.Sleep(200*sim.Microsecond), sched.Call(func(tk *sched.Task) {
				l.marks = nil // only the call's own fragment
				err = k.smpCallWith(tk, 1, func(*cpu.CPU) { ran = true }, tc.how)
				got = l.marks // before the task's exit marks its own
			}))
			l.th = &caller.Thread
			s.Spawn("hotplug", sched.MaskOf(0), sched.Sleep(10*sim.Microsecond),
				sched.Call(func(tk *sched.Task) { s.Syscall(tk, "write", func(tk *sched.Task) { _ = s.CPUDown(tk, 1) }) }))
			if rerr := m.Run(sim.Second); rerr != nil {
				t.Fatal(rerr)
			}
			if err == nil || ran {
				t.Fatalf("the call to offline cpu1: err %v, ran %v; want -ENXIO, not run", err, ran)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("marks of the caller's fragment from the call (-want +got):\n%s", d)
			}
		})
	}
}
