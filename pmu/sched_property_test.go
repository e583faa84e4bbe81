package pmu_test

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/simrapid"
	"perfsim/uapi"
)

// activeInvariant checks, at a step point, that every ACTIVE event of a task
// is on the CPU that task runs on (or is scheduling away from), and that no
// event sits on the counters of two CPUs.
func activeInvariant(mc *machine) string {
	seen := map[*pmu.Event]int{}
	for i := range mc.m.CPUs {
		evs, act := mc.k.HWCounterEvents(i)
		for j, e := range evs {
			if e == nil {
				continue
			}
			if o, ok := seen[e]; ok {
				return fmt.Sprintf("event %d on the counters of cpu%d and cpu%d", e.ID(), o, i)
			}
			seen[e] = i
			if act[j] && (e.State() != pmu.StateActive || e.OnCPU() != i) {
				return fmt.Sprintf("event %d counting on cpu%d but %v oncpu %d", e.ID(), i, e.State(), e.OnCPU())
			}
		}
	}
	for _, e := range mc.k.Events() {
		if e.State() != pmu.StateActive {
			continue
		}
		if t := e.Task(); t != nil {
			if c := t.CPU(); c == nil || c.ID != e.OnCPU() {
				return fmt.Sprintf("event %d of %s ACTIVE on cpu%d, task on %v", e.ID(), t, e.OnCPU(), c)
			}
		}
	}
	return ""
}

// TestContextSwitchMovesEvents: random programs (compute, yield, sleep,
// syscalls, migrations) on 3 CPUs with the scheduler balancing; each task
// counts its own cycles and instructions and context switches. At every step
// point of every schedule an event is ACTIVE only on the CPU its task runs
// on, and on one CPU's counters at most; at the end every count is whole.
func TestContextSwitchMovesEvents(t *testing.T) {
	var migrations, switches uint64
	defer func() {
		// Not vacuous: the schedules did move tasks around.
		if !t.Failed() && (migrations == 0 || switches == 0) {
			t.Errorf("no migrations (%d) or switches (%d) in any schedule", migrations, switches)
		}
	}()
	rapid.Check(t, func(rt *rapid.T) {
		ncpu := 3
		m := cpu.NewMachine(cpu.Config{CPUs: ncpu}, &simrapid.Chooser{T: rt, Max: 24})
		defer m.Close()
		cfg := sched.DefaultConfig()
		cfg.Balance = true
		s := sched.New(m, cfg)
		mc := &machine{m: m, s: s, k: pmu.NewKernel(s, pmu.DefaultOptions(ncpu))}
		opGen := rapid.Custom(func(rt *rapid.T) sched.Op {
			switch rapid.IntRange(0, 5).Draw(rt, "op") {
			case 0:
				return sched.Compute(sim.Duration(rapid.IntRange(1, 50).Draw(rt, "us")) * sim.Microsecond)
			case 1:
				return sched.Yield()
			case 2:
				return sched.Sleep(sim.Duration(rapid.IntRange(1, 20).Draw(rt, "us")) * sim.Microsecond)
			case 3:
				return sched.Migrate(rapid.IntRange(0, ncpu-1).Draw(rt, "cpu"))
			case 4:
				return sched.Syscall("getpid")
			}
			return sched.Affinity(sched.MaskBits(uint64(rapid.IntRange(1, 7).Draw(rt, "mask"))))
		})
		ntasks := rapid.IntRange(1, 4).Draw(rt, "tasks")
		type fdset struct {
			t   *sched.Task
			fds []int
			evs []*pmu.Event // the events, kept: the task's exit closes its fds (close_files())
		}
		var sets []*fdset
		for i := 0; i < ntasks; i++ {
			prog := rapid.SliceOfN(opGen, 1, 12).Draw(rt, "prog")
			fs := &fdset{}
			sets = append(sets, fs)
			body := append([]sched.Op{sched.Call(func(t *sched.Task) {
				fs.t = t
				for _, a := range []pmu.Attr{cyclesAttr(0), {Type: uapi.PERF_TYPE_HARDWARE, Size: uapi.AttrSize, Config: uapi.PERF_COUNT_HW_INSTRUCTIONS}, swAttr(uapi.PERF_COUNT_SW_CONTEXT_SWITCHES)} {
					a := a
					fd, err := mc.k.PerfEventOpen(t, &a, 0, -1, -1, 0)
					if err != nil {
						panic(err)
					}
					fs.fds = append(fs.fds, fd)
					fs.evs = append(fs.evs, mc.k.EventOf(t, fd))
				}
			})}, prog...)
			// Read the counts before exiting.
			body = append(body, sched.Call(func(t *sched.Task) {
				for _, fd := range fs.fds[:2] {
					if _, err := mc.k.Read(t, fd); err != nil {
						panic(err)
					}
				}
			}))
			s.Spawn(fmt.Sprintf("t%d", i), sched.CPUMask{}, body...)
		}
		violation := ""
		m.AddStepHook(func(c *cpu.CPU, label string) {
			if violation == "" {
				if v := activeInvariant(mc); v != "" {
					violation = fmt.Sprintf("at %s on cpu%d: %s", label, c.ID, v)
				}
			}
		})
		if err := m.Run(sim.Second); err != nil {
			rt.Fatal(err)
		}
		if violation != "" {
			rt.Fatal(violation)
		}
		migrations += s.Migrations
		switches += s.Switches
		for _, fs := range sets {
			for i, e := range fs.evs[:2] {
				_, running := e.TotalTimes()
				rate := []int64{3, 2}[i]
				if e.Count() != rate*int64(running) {
					rt.Fatalf("%s event %d: count %d != %d * running %d", fs.t, e.ID(), e.Count(), rate, running)
				}
			}
		}
	})
}
