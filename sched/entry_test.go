package sched

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sim"
)

func newSched(t *testing.T, cpus int, cfg Config) (*cpu.Machine, *Sched) {
	t.Helper()
	m := cpu.NewMachine(cpu.Config{CPUs: cpus}, sim.NewReplay(nil))
	t.Cleanup(m.Close)
	m.Trace().Keep = true
	return m, New(m, cfg)
}

// A task_work queued from an irq on a task in user mode runs on that irq's return
// to user mode, before the task computes on.
func TestTaskWorkRunsOnReturnToUser(t *testing.T) {
	m, s := newSched(t, 1, DefaultConfig())
	var log []string
	a := s.Spawn("a", CPUMask{}, Compute(10*sim.Microsecond), Call(func(t *Task) { log = append(log, "after compute") }))
	tm := m.CPUs[0].NewTimer(false, cpu.Interrupt{Name: "dev", Fn: func(c *cpu.CPU) {
		if err := s.TaskWorkAdd(c, s.Current(c), TaskWork{Name: "w", Fn: func(t *Task) {
			log = append(log, "work at "+t.CPU().Now().String()+" user="+map[bool]string{true: "yes", false: "no"}[t.User])
		}}, TWAResume); err != nil {
			t.Errorf("TaskWorkAdd: %v", err)
		}
	}})
	tm.Arm(4 * sim.Microsecond)
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	want := []string{"work at 4us user=no", "after compute"}
	if diff := cmp.Diff(want, log); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if a.Computed != 10*sim.Microsecond || a.Exited != 10*sim.Microsecond {
		t.Errorf("computed %s exited %s", a.Computed, a.Exited)
	}
	// Work added after exit_task_work() is refused.
	if err := s.TaskWorkAdd(m.CPUs[0], a, TaskWork{Name: "late", Fn: func(*Task) {}}, TWAResume); err != ErrSearch {
		t.Errorf("TaskWorkAdd on a dead task = %v, want ESRCH", err)
	}
}

// A signal sent by another task is handled at the target's next return to user.
func TestSignalHandledOnReturnToUser(t *testing.T) {
	m, s := newSched(t, 2, DefaultConfig())
	var handled sim.Time
	target := s.Spawn("target", MaskOf(0), Compute(sim.Millisecond), Syscall("close"), Compute(sim.Millisecond))
	s.Spawn("killer", MaskOf(1), Compute(100*sim.Microsecond), Call(func(t *Task) {
		s.SendSignal(target, Signal{Sig: SIGUSR2, Handler: []Op{Call(func(t *Task) { handled = t.CPU().Now() })}})
	}))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	// The kick IPI interrupts the target's compute at 100us; the handler runs on
	// that interrupt's return to user.
	if handled != 100*sim.Microsecond {
		t.Errorf("handled at %s, want 100us", handled)
	}
}

// An NMI inside __schedule queues TWA_NMI_CURRENT work on the task being switched
// out. Today the NMI sets TIF_NOTIFY_RESUME on it directly; before ef1ea98c8fff
// an irq_work did it after the switch, on the next task, and the work is missed
// at the original task's next return to user.
func TestTaskWorkNMIInSchedule(t *testing.T) {
	for _, tc := range []struct {
		knob      string
		wantRunAt string
	}{{"today", "a:return-to-user"}, {"pre-ef1ea98c8fff", "a:exit"}} {
		t.Run(tc.knob, func(t *testing.T) {
			cfg := DefaultConfig()
			if _, err := ApplyKnob(&cfg, "task-work-nmi", tc.knob); err != nil {
				t.Fatal(err)
			}
			m, s := newSched(t, 1, cfg)
			ran := "never"
			exiting := false
			s.ExitHooks = append(s.ExitHooks, exitHook(func(t *Task) { exiting = exiting || t.Comm == "a" }))
			a := s.Spawn("a", CPUMask{}, Yield(), Syscall("close"))
			s.Spawn("b", CPUMask{}, Compute(sim.Millisecond))
			fired := false
			m.AddStepHook(func(c *cpu.CPU, label string) {
				if label != "__schedule:irqs-off" || fired || s.Current(c) != a {
					return
				}
				fired = true
				c.RaiseNMI(cpu.Interrupt{Name: "pmi", Now: true, Fn: func(c *cpu.CPU) {
					_ = s.TaskWorkAdd(c, s.Current(c), TaskWork{Name: "unwind", Fn: func(t *Task) {
						if ran == "never" {
							ran = t.Comm + map[bool]string{true: ":exit", false: ":return-to-user"}[exiting]
						}
					}}, TWANMICurrent)
				}})
			})
			if err := m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			if !fired {
				t.Fatal("the NMI never landed in __schedule")
			}
			// A missed work is only flushed by exit_task_work().
			if ran != tc.wantRunAt {
				t.Errorf("work ran in %q, want %q", ran, tc.wantRunAt)
			}
		})
	}
}

func TestTimelineSeed004(t *testing.T) {
	m, s := newSched(t, 4, DefaultConfig())
	p := 10 * sim.Millisecond
	s.Spawn("dd", MaskOf(0), Compute(p), Migrate(3), Compute(p), Migrate(1), Compute(p), Migrate(2), Compute(p), Migrate(1), Compute(p))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	got := s.Timeline(60)
	lines := strings.Split(got, "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "CPU0: ###") || !strings.HasPrefix(lines[3], "CPU3: ____________###") {
		t.Errorf("timeline:\n%s", got)
	}
	for i, cpu := range []string{"CPU0", "CPU1", "CPU2", "CPU3"} {
		if n := strings.Count(lines[i], "dd-101"); n != map[string]int{"CPU0": 1, "CPU1": 2, "CPU2": 1, "CPU3": 1}[cpu] {
			t.Errorf("%s shows %d periods:\n%s", cpu, n, got)
		}
	}
}

type exitHook func(*Task)

func (h exitHook) TaskExit(t *Task) { h(t) }
