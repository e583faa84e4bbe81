package pmu_test

import (
	"testing"

	"perfsim/cpu"
	"perfsim/perftool"
	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// machine is a simulated machine with perf's core on it.
type machine struct {
	m *cpu.Machine
	s *sched.Sched
	k *pmu.Kernel
}

func newMachine(tb testing.TB, cpus int, ch sim.Chooser, knobs pmu.Knobs) *machine {
	m := cpu.NewMachine(cpu.Config{CPUs: cpus}, ch)
	cfg := pmu.ExactSleeps()
	s := sched.New(m, cfg)
	o := pmu.DefaultOptions(cpus)
	o.Knobs = knobs
	o.Tracepoints = perftool.KernelTracepoints()
	k := pmu.NewKernel(s, o)
	if tb != nil {
		tb.Cleanup(m.Close)
	}
	return &machine{m: m, s: s, k: k}
}

// tracepointAttrs returns the attrs perf record gives `-e SPEC -- task`.
func tracepointAttrs(tb testing.TB, spec string) []pmu.Attr {
	r, err := perftool.Parse([]string{"-o", "/dev/null", "-e", spec, "--", "task"}, perftool.DefaultOptions())
	if err != nil {
		tb.Fatal(err)
	}
	var out []pmu.Attr
	for _, e := range r.Evsels {
		if e.Tracepoint != nil {
			out = append(out, e.Attr)
		}
	}
	return out
}

// drain reads every record a forward mapping holds, returning how many.
func drain(mm *perftool.Mmap, st rb.Stepper, fn func(rec []byte)) int {
	n := 0
	if mm.ReadInit(st) != nil {
		return 0
	}
	for {
		rec := mm.ReadEvent(st)
		if rec == nil {
			break
		}
		if fn != nil {
			fn(rec)
		}
		n++
		mm.Consume()
	}
	mm.ReadDone(st)
	return n
}

// runIn runs fn as the program of a task pinned to cpu and runs the machine
// until everything is done.
func (mc *machine) runIn(tb testing.TB, cpu int, fn func(t *sched.Task)) {
	tb.Helper()
	mc.s.Spawn("perf", sched.MaskOf(cpu), sched.Call(fn))
	if err := mc.m.Run(sim.Second); err != nil {
		tb.Fatal(err)
	}
}

func cyclesAttr(period uint64) pmu.Attr {
	return pmu.Attr{Type: uapi.PERF_TYPE_HARDWARE, Size: uapi.AttrSize, Config: uapi.PERF_COUNT_HW_CPU_CYCLES,
		SamplePeriod: period, SampleType: uapi.PERF_SAMPLE_IP | uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME | uapi.PERF_SAMPLE_CPU | uapi.PERF_SAMPLE_PERIOD,
		ExcludeKernel: false}
}

func swAttr(config uint64) pmu.Attr {
	return pmu.Attr{Type: uapi.PERF_TYPE_SOFTWARE, Size: uapi.AttrSize, Config: config}
}

// sleepUntil sleeps t until the absolute virtual time at, so that tasks on
// different CPUs enter the kernel at the same instant and the engine
// interleaves their step points.
func sleepUntil(mc *machine, t *sched.Task, at sim.Time) {
	if d := at - mc.m.Now(); d > 0 {
		mc.s.RunOps(t, []sched.Op{sched.Sleep(d)})
	}
}
