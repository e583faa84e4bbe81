package pmu

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// hotplugOrderLog is the order of a hotplug as the test sees it: the trace's
// switches, wake-ups, migrations and interrupt entries, and the step points
// of the hotplug's callbacks with the thread and irq state they run in.
// take_cpu_down's step also shows what every CPU runs then.
type hotplugOrderLog struct {
	m     *cpu.Machine
	on    bool
	lines []string
}

var hotplugOrderSteps = map[string]bool{
	"sched_cpu_deactivate": true, "perf_event_exit_cpu_context:ctx-locked": true, "__perf_event_exit_context": true,
	"sched_cpu_wait_empty": true, "take_cpu_down": true, "bringup_cpu": true, "perf_event_init_cpu:ctx-locked": true,
}

func (l *hotplugOrderLog) step(c *cpu.CPU, label string) {
	if !l.on || !hotplugOrderSteps[label] {
		return
	}
	irqs := "irqs-on"
	if c.IrqsDisabled() {
		irqs = "irqs-off"
	}
	x := fmt.Sprintf("cpu%d %s: %s %s %s", c.ID, c.Context(), c.Curr().Name, label, irqs)
	if label == "take_cpu_down" {
		for _, o := range l.m.CPUs {
			if o != c {
				x += fmt.Sprintf("; cpu%d %s irqs-off=%v", o.ID, o.Curr().Name, o.IrqsDisabled())
			}
		}
	}
	l.lines = append(l.lines, x)
}

func (l *hotplugOrderLog) Observe(r *sim.Record) {
	if !l.on {
		return
	}
	switch {
	case r.Kind == sim.KEnter && !strings.Contains(r.Detail, "tick") && !strings.Contains(r.Detail, "hrtimer"):
	case r.Kind == sim.KMigrate && strings.HasPrefix(r.Name, "sched_cpu_"): // sched_cpu_deactivate / _activate's notes
	default:
		return
	}
	l.lines = append(l.lines, strings.TrimSpace(fmt.Sprintf("cpu%d %s %s %s", r.CPU, r.Kind, r.Name, r.Detail)))
}

func hpName(t *sched.Task, c *cpu.CPU) string {
	if t == nil {
		return fmt.Sprintf("swapper/%d", c.ID)
	}
	return t.Comm
}

func (l *hotplugOrderLog) SchedSwitch(c *cpu.CPU, _ bool, prev, next *sched.Task, st int64) {
	if l.on {
		l.lines = append(l.lines, fmt.Sprintf("cpu%d switch %s state=%#x -> %s", c.ID, hpName(prev, c), st, hpName(next, c)))
	}
}
func (l *hotplugOrderLog) SchedWakeup(c *cpu.CPU, t *sched.Task, target int, _ bool) {
	if l.on {
		l.lines = append(l.lines, fmt.Sprintf("cpu%d wakeup %s target=%d", c.ID, hpName(t, c), target))
	}
}
func (l *hotplugOrderLog) SchedMigrateTask(c *cpu.CPU, t *sched.Task, orig, dest int) {
	if l.on {
		l.lines = append(l.lines, fmt.Sprintf("cpu%d migrate %s %d->%d", c.ID, hpName(t, c), orig, dest))
	}
}
func (l *hotplugOrderLog) SchedProcessFork(_, _ *sched.Task)                    {}
func (l *hotplugOrderLog) SchedProcessExit(*sched.Task, bool)                   {}
func (l *hotplugOrderLog) SchedStatRuntime(*cpu.CPU, *sched.Task, sim.Duration) {}
func (l *hotplugOrderLog) SchedProcessExec(*sched.Task, string, int)            {}

// TestCPUHotplugOrder takes cpu1, idle with a CPU-wide cpu-clock on it,
// down and up again from a task on cpu0, and checks the order of
// everything that runs, as kernel/cpu.c and kernel/stop_machine.c run it.
// Down: the writer wakes cpuhp/1 (the wake list's IPI: cpu1 is idle) and
// waits (D); cpuhp/1, on cpu1, runs sched_cpu_deactivate(), then
// perf_event_exit_cpu() (pmus_lock and the cpuctx mutex held), whose
// smp_call_function_single(1, __perf_event_exit_context) is a local call
// in cpuhp/1's task context with irqs off, no IPI; then
// sched_cpu_wait_empty() finds the CPU empty, and its completion wakes the
// writer. takedown_cpu(): the writer parks cpuhp/1 (it switches out
// TASK_PARKED, 0x40 in the trace), then stop_machine() queues
// multi_cpu_stop() on every online CPU's stopper and waits (D); the three
// stoppers run, and take_cpu_down() runs in migration/1 with irqs off
// while migration/0 and migration/2 spin in multi_cpu_stop() with irqs
// off; migration/1 parks, and cpu1's idle task reports the CPU dead
// through an IPI to cpu0 (cpuhp_complete_idle_dead()). Up: the BP state's
// perf_event_init_cpu() in the writer, bringup_cpu(); cpu1's idle task
// unparks migration/1 (cpuhp_online_idle()) and completes the writer's
// wait; the writer unparks and kicks cpuhp/1, which runs
// perf_event_init_cpu() on cpu1 (and sched_cpu_activate()). The model
// before ran all of it in the writer on cpu0, __perf_event_exit_context by
// an IPI to cpu1, and took cpu1 down without stop_machine.
// kernel/cpu.c: _cpu_down(), cpuhp_thread_fun(), takedown_cpu(), take_cpu_down(), cpuhp_report_idle_dead(), _cpu_up(), cpuhp_online_idle(); kernel/stop_machine.c: multi_cpu_stop(); kernel/events/core.c: perf_event_exit_cpu_context()
func TestCPUHotplugOrder(t *testing.T) {
	m := cpu.NewMachine(cpu.Config{CPUs: 3}, nil)
	t.Cleanup(m.Close)
	s := sched.New(m, ExactSleeps())
	k := NewKernel(s, DefaultOptions(3))
	l := &hotplugOrderLog{m: m}
	m.AddStepHook(l.step)
	m.Trace().Observers = append(m.Trace().Observers, l)
	s.TraceHooks = append(s.TraceHooks, l)
	clock := Attr{Type: uapi.PERF_TYPE_SOFTWARE, Config: uapi.PERF_COUNT_SW_CPU_CLOCK}
	s.Spawn("perf", sched.MaskOf(0), sched.Call(func(tk *sched.Task) {
		if _, err := k.PerfEventOpen(tk, &clock, -1, 1, -1, 0); err != nil {
			t.Fatal(err)
		}
	}), sched.Sleep(200*sim.Microsecond)) // the event open until cpu1 is back
	s.Spawn("hotplug", sched.MaskOf(0), sched.Sleep(20*sim.Microsecond), sched.Call(func(tk *sched.Task) {
		l.on = true
		s.Syscall(tk, "write", func(tk *sched.Task) {
			if err := s.CPUDown(tk, 1); err != nil {
				t.Errorf("cpu1 down: %v", err)
			}
			l.lines = append(l.lines, "-- up")
			if err := s.CPUUp(tk, 1); err != nil {
				t.Errorf("cpu1 up: %v", err)
			}
		})
		l.on = false
	}))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"cpu0 switch hotplug state=0x2 -> swapper/0", // cpuhp_kick_ap_work(): wait_for_ap_thread()
		"cpu1 enter irq call_function_single",
		"cpu1 wakeup cpuhp/1 target=1",
		"cpu1 switch swapper/1 state=0x0 -> cpuhp/1",
		"cpu1 migrate sched_cpu_deactivate cpu1",
		"cpu1 task: cpuhp/1 sched_cpu_deactivate irqs-on",
		"cpu1 task: cpuhp/1 perf_event_exit_cpu_context:ctx-locked irqs-on",
		"cpu1 task: cpuhp/1 __perf_event_exit_context irqs-off", // the local call: no IPI
		"cpu1 task: cpuhp/1 sched_cpu_wait_empty irqs-on",
		"cpu1 switch cpuhp/1 state=0x1 -> swapper/1",
		"cpu0 enter irq call_function_single",
		"cpu0 wakeup hotplug target=0",
		"cpu0 switch swapper/0 state=0x0 -> hotplug",
		"cpu0 wakeup cpuhp/1 target=1", // kthread_park()
		"cpu0 switch hotplug state=0x2 -> swapper/0",
		"cpu1 enter irq resched-ipi",
		"cpu1 switch swapper/1 state=0x0 -> cpuhp/1",
		"cpu1 switch cpuhp/1 state=0x40 -> swapper/1", // kthread_park(): TASK_PARKED
		"cpu0 enter irq call_function_single",
		"cpu0 wakeup hotplug target=0",
		"cpu0 switch swapper/0 state=0x0 -> hotplug",
		"cpu0 wakeup migration/0 target=0", // stop_machine_cpuslocked(take_cpu_down)
		"cpu0 wakeup migration/1 target=1",
		"cpu0 wakeup migration/2 target=2",
		"cpu0 switch hotplug state=0x2 -> migration/0",
		"cpu1 enter irq resched-ipi",
		"cpu1 switch swapper/1 state=0x0 -> migration/1",
		"cpu2 enter irq resched-ipi",
		"cpu2 switch swapper/2 state=0x0 -> migration/2",
		"cpu1 task: migration/1 take_cpu_down irqs-off; cpu0 migration/0 irqs-off=true; cpu2 migration/2 irqs-off=true",
		"cpu2 switch migration/2 state=0x1 -> swapper/2",
		"cpu0 switch migration/0 state=0x1 -> swapper/0",
		"cpu1 switch migration/1 state=0x40 -> swapper/1", // stop_machine_park()
		"cpu0 enter irq call_function_single",             // the last stopper's cpu_stop_signal_done()
		"cpu0 wakeup hotplug target=0",
		"cpu0 enter irq call_function_single", // cpuhp_report_idle_dead(): cpuhp_complete_idle_dead()
		"cpu0 switch swapper/0 state=0x0 -> hotplug",
		"cpu0 task: hotplug-102 perf_event_exit_cpu_context:ctx-locked irqs-on", // CPUHP_PERF_PREPARE's teardown, in the writer
		"-- up",
		"cpu0 task: hotplug-102 perf_event_init_cpu:ctx-locked irqs-on",
		"cpu0 task: hotplug-102 bringup_cpu irqs-on",
		"cpu0 switch hotplug state=0x2 -> swapper/0",
		"cpu1 enter irq resched-ipi",
		"cpu1 wakeup migration/1 target=1", // cpuhp_online_idle(): stop_machine_unpark()
		"cpu1 switch swapper/1 state=0x0 -> migration/1",
		"cpu1 switch migration/1 state=0x1 -> swapper/1",
		"cpu0 enter irq call_function_single",
		"cpu0 wakeup hotplug target=0",
		"cpu0 switch swapper/0 state=0x0 -> hotplug",
		"cpu0 wakeup cpuhp/1 target=1", // kthread_unpark(), then cpuhp_kick_ap()
		"cpu0 switch hotplug state=0x2 -> swapper/0",
		"cpu1 enter irq resched-ipi",
		"cpu1 switch swapper/1 state=0x0 -> cpuhp/1",
		"cpu1 task: cpuhp/1 perf_event_init_cpu:ctx-locked irqs-on",
		"cpu1 migrate sched_cpu_activate cpu1",
		"cpu1 switch cpuhp/1 state=0x1 -> swapper/1",
		"cpu0 enter irq call_function_single",
		"cpu0 wakeup hotplug target=0",
		"cpu0 switch swapper/0 state=0x0 -> hotplug",
	}
	if diff := cmp.Diff(want, l.lines); diff != "" {
		t.Errorf("cpu1 down and up (-want +got):\n%s", diff)
	}
}
