package pmu

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// hpEvent is what the hotplug test looks at in an event.
type hpEvent struct {
	State   string
	InCtx   bool  // on its context's event_list
	Counted bool  // its count moved during the phase
	Err     error // the phase's call on it (ioctl ENABLE), if any
}

// hpCPU is what it looks at in CPU 1.
type hpCPU struct {
	Online, Active, PerfOnline bool
	CtxActive                  int // cpuctx->ctx.is_active
	Events                     int
	Tasks                      int // tasks running or queued there
}

// TestCPUHotplugEvents takes cpu1 offline and back with CPU-wide events on
// it (a cpu-clock, and an {instructions,cpu-clock} group), a CPU-wide
// cpu-clock on cpu2 and a task-clock on a task that runs on cpu1 (allowed
// on cpus 1-2), and checks each event's state, context membership and
// counting in each phase, the CPU's state, and perf_event_open() on it.
// kernel/events/core.c: perf_event_exit_cpu_context(), __perf_event_exit_context(), perf_event_init_cpu(), perf_event_open()
func TestCPUHotplugEvents(t *testing.T) {
	m := cpu.NewMachine(cpu.Config{CPUs: 3}, nil)
	t.Cleanup(m.Close)
	cfg := ExactSleeps()
	cfg.Tick, cfg.Slice = 10*sim.Microsecond, 10*sim.Microsecond // cpuhp/1, woken at 30us, preempts spin at its next tick
	s := sched.New(m, cfg)
	k := NewKernel(s, DefaultOptions(3))
	var lockdep []string
	s.Lockdep.Report = func(_ *cpu.CPU, kind, msg string) { lockdep = append(lockdep, kind+": "+msg) }

	clock := Attr{Type: uapi.PERF_TYPE_SOFTWARE, Config: uapi.PERF_COUNT_SW_CPU_CLOCK}
	ins := Attr{Type: uapi.PERF_TYPE_HARDWARE, Config: uapi.PERF_COUNT_HW_INSTRUCTIONS}
	tclock := Attr{Type: uapi.PERF_TYPE_SOFTWARE, Config: uapi.PERF_COUNT_SW_TASK_CLOCK}
	names := []string{"clk1", "lead1", "sib1", "clk2", "task"}

	spin := s.Spawn("spin", sched.MaskOf(1, 2), sched.Compute(300*sim.Microsecond))
	var fds = map[string]int{}
	var opens []error
	phases := map[string]map[string]hpEvent{}
	cpus := map[string]hpCPU{}
	last := map[string]int64{}
	snap := func(tk *sched.Task, phase string, enable bool) {
		out := map[string]hpEvent{}
		for _, n := range names {
			e := k.EventOf(tk, fds[n])
			c := e.Count()
			if e.state == StateActive {
				// what read() would see: fold in the running time
				b, err := k.Read(tk, fds[n])
				if err == nil && len(b) >= 8 {
					c = int64(uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 | uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56)
				}
			}
			ev := hpEvent{State: e.state.String(), InCtx: slices.Contains(e.ctx.events, e), Counted: c > last[n]}
			last[n] = c
			if enable && n == "clk1" {
				_, ev.Err = k.Ioctl(tk, fds[n], uapi.PERF_EVENT_IOC_ENABLE, 0)
			}
			out[n] = ev
		}
		phases[phase] = out
		cc := &k.cpuCtx[1]
		n := len(s.RunQueue(1))
		if sched.TaskOf(m.CPUs[1].Curr()) != nil {
			n++
		}
		cpus[phase] = hpCPU{Online: s.CPUOnline(1), Active: s.CPUActive(1), PerfOnline: !cc.offline, CtxActive: cc.ctx.isActive, Events: len(cc.ctx.events), Tasks: n}
	}
	open := func(tk *sched.Task, name string, a Attr, pid, c int, group string) {
		g := -1
		if group != "" {
			g = fds[group]
		}
		fd, err := k.PerfEventOpen(tk, &a, pid, c, g, 0)
		if err != nil {
			t.Fatalf("open %s: %v", name, err)
		}
		fds[name] = fd
	}
	s.Spawn("perf", sched.MaskOf(0), sched.Call(func(tk *sched.Task) {
		open(tk, "clk1", clock, -1, 1, "")
		open(tk, "lead1", ins, -1, 1, "")
		open(tk, "sib1", clock, -1, 1, "lead1")
		open(tk, "clk2", clock, -1, 2, "")
		open(tk, "task", tclock, spin.PID, -1, "")
	}), sched.Sleep(20*sim.Microsecond), sched.Call(func(tk *sched.Task) { snap(tk, "1 online", false) }),
		sched.Sleep(40*sim.Microsecond), // cpu1 goes at 30us
		sched.Call(func(tk *sched.Task) { snap(tk, "2 offline", true) }),
		sched.Sleep(20*sim.Microsecond),
		sched.Call(func(tk *sched.Task) {
			snap(tk, "3 still offline", false)
			_, err := k.PerfEventOpen(tk, &clock, -1, 1, -1, 0)
			opens = append(opens, err)
		}),
		sched.Sleep(40*sim.Microsecond), // back at 100us
		sched.Call(func(tk *sched.Task) {
			fd, err := k.PerfEventOpen(tk, &clock, -1, 1, -1, 0)
			opens = append(opens, err)
			if err == nil {
				fds["new1"] = fd
			}
		}),
		sched.Sleep(20*sim.Microsecond),
		sched.Call(func(tk *sched.Task) {
			snap(tk, "4 back online", false)
			e := k.EventOf(tk, fds["new1"])
			b, err := k.Read(tk, fds["new1"])
			if e.state != StateActive || err != nil || len(b) < 8 || b[0]|b[1]|b[2]|b[3] == 0 {
				t.Errorf("an event opened on cpu1 back online: %s, read %v %x", e.state, err, b)
			}
		}))
	s.Spawn("hotplug", sched.MaskOf(0), sched.Sleep(30*sim.Microsecond),
		sched.Call(func(tk *sched.Task) { s.Syscall(tk, "write", func(tk *sched.Task) { _ = s.CPUDown(tk, 1) }) }),
		sched.Sleep(60*sim.Microsecond),
		sched.Call(func(tk *sched.Task) { s.Syscall(tk, "write", func(tk *sched.Task) { _ = s.CPUUp(tk, 1) }) }))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}

	on := func(st string) hpEvent { return hpEvent{State: st, InCtx: true, Counted: st == "ACTIVE"} }
	off := hpEvent{State: "OFF"}
	wentOff := hpEvent{State: "OFF", Counted: true} // counted from 20us until cpu1 went at 30us
	want := map[string]map[string]hpEvent{
		"1 online": {"clk1": on("ACTIVE"), "lead1": on("ACTIVE"), "sib1": on("ACTIVE"), "clk2": on("ACTIVE"), "task": on("ACTIVE")},
		// removed from cpu1's context, OFF; the ENABLE's cross-call to cpu1
		// fails (-ENXIO), which event_function_call() ignores: 0, still OFF.
		"2 offline":       {"clk1": wentOff, "lead1": wentOff, "sib1": wentOff, "clk2": on("ACTIVE"), "task": on("ACTIVE")},
		"3 still offline": {"clk1": off, "lead1": off, "sib1": off, "clk2": on("ACTIVE"), "task": on("ACTIVE")},
		"4 back online":   {"clk1": off, "lead1": off, "sib1": off, "clk2": on("ACTIVE"), "task": on("ACTIVE")},
	}
	if diff := cmp.Diff(want, phases); diff != "" {
		t.Errorf("events per phase (-want +got):\n%s", diff)
	}
	wantCPU := map[string]hpCPU{
		"1 online":        {Online: true, Active: true, PerfOnline: true, CtxActive: EVENT_ALL | EVENT_TIME, Events: 3, Tasks: 1},
		"2 offline":       {},
		"3 still offline": {},
		"4 back online":   {Online: true, Active: true, PerfOnline: true, CtxActive: EVENT_ALL | EVENT_TIME, Events: 1},
	}
	if diff := cmp.Diff(wantCPU, cpus); diff != "" {
		t.Errorf("cpu1 per phase (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]error{uapi.ENODEV, nil}, opens, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
		t.Errorf("perf_event_open(cpu1) offline, then online (-want +got):\n%s", diff)
	}
	if spin.CPUID() != 2 || spin.Allowed != sched.MaskOf(1, 2) {
		t.Errorf("spin ended on cpu%d allowed %s, want cpu2 with its affinity kept", spin.CPUID(), spin.Allowed)
	}
	if o, u, f := s.HotplugCounts(); o != 1 || u != 1 || f != 0 || k.glob.exitRemoved != 3 {
		t.Errorf("offlines %d onlines %d failed %d removed %d, want 1 1 0 3", o, u, f, k.glob.exitRemoved)
	}
	if lockdep != nil {
		t.Errorf("lockdep: %q", lockdep)
	}
	deps := s.Lockdep.Dependencies()
	for _, d := range []string{"cpu_hotplug_lock -> pmus_lock", "pmus_lock -> cpuctx_mutex"} {
		if !slices.Contains(deps, d) {
			t.Errorf("dependency %s not recorded: %q", d, deps)
		}
	}
}

// TestCPUHotplugRefused: cpu0 has no online file (x86), the last online CPU
// cannot go, and a CPU already in the requested state is left alone.
// kernel/cpu.c: _cpu_down() (num_online_cpus() == 1: -EBUSY); drivers/base/core.c: online_store()
func TestCPUHotplugRefused(t *testing.T) {
	m := cpu.NewMachine(cpu.Config{CPUs: 2}, nil)
	t.Cleanup(m.Close)
	s := sched.New(m, sched.DefaultConfig())
	NewKernel(s, DefaultOptions(2))
	var got []error
	s.Spawn("hp", sched.MaskOf(0), sched.Call(func(tk *sched.Task) {
		s.Syscall(tk, "write", func(tk *sched.Task) {
			got = append(got, s.CPUDown(tk, 0), s.CPUUp(tk, 1), s.CPUDown(tk, 1), s.CPUDown(tk, 1), s.CPUUp(tk, 1), s.CPUDown(tk, 2))
		})
	}))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	want := []error{uapi.ENOENT, nil, nil, nil, nil, uapi.ENOENT}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
		t.Errorf("hotplug writes (-want +got):\n%s", diff)
	}
	if o, u, f := s.HotplugCounts(); o != 1 || u != 1 || f != 2 {
		t.Errorf("offlines %d onlines %d failed %d, want 1 1 2", o, u, f)
	}
}
