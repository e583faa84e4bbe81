package sched

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sim"
)

// traceLog is a TraceHook that writes each sched tracepoint as a line.
type traceLog struct{ lines []string }

func (l *traceLog) add(f string, a ...any) { l.lines = append(l.lines, fmt.Sprintf(f, a...)) }
func name(t *Task, c *cpu.CPU) string {
	if t == nil {
		return fmt.Sprintf("swapper/%d", c.ID)
	}
	return fmt.Sprintf("%s/%d", t.Comm, t.TID)
}
func (l *traceLog) SchedSwitch(c *cpu.CPU, preempt bool, prev, next *Task, st int64) {
	l.add("cpu%d switch %s state=%#x -> %s", c.ID, name(prev, c), st, name(next, c))
}
func (l *traceLog) SchedWakeup(c *cpu.CPU, t *Task, target int, isNew bool) {
	l.add("cpu%d wakeup new=%v %s target=%d", c.ID, isNew, name(t, c), target)
}
func (l *traceLog) SchedMigrateTask(c *cpu.CPU, t *Task, orig, dest int) {
	l.add("cpu%d migrate %s %d->%d", c.ID, name(t, c), orig, dest)
}
func (l *traceLog) SchedProcessFork(p, ch *Task) {
	l.add("fork %s pid=%d -> %s pid=%d ppid=%d", name(p, nil), p.PID, name(ch, nil), ch.PID, ch.PPID)
}
func (l *traceLog) SchedProcessExit(t *Task, groupDead bool) {
	l.add("exit %s group_dead=%v", name(t, nil), groupDead)
}
func (l *traceLog) SchedStatRuntime(c *cpu.CPU, t *Task, d sim.Duration) {}
func (l *traceLog) SchedProcessExec(t *Task, filename string, oldPID int) {
	l.add("exec %s %s old_pid=%d", t, filename, oldPID)
}

// A process forks a child and a thread, waits for the child: new pid and
// mm for the child, the same pid and mm for the thread, children start on
// the parent's CPU, wait4 reaps the zombie, exit_notify reports Z for a
// process and X for an autoreaped thread.
func TestForkThreadWait(t *testing.T) {
	m, s := newSched(t, 1, DefaultConfig())
	l := &traceLog{}
	s.TraceHooks = append(s.TraceHooks, l)
	var reaped []int
	p := s.Spawn("p", CPUMask{},
		Fork("child", ForkFlags, Compute(5*sim.Microsecond)),
		Fork("worker", ThreadFlags, Compute(2*sim.Microsecond)),
		Call(func(t *Task) {
			s.Syscall(t, "wait4", func(t *Task) {
				pid, err := s.wait4(t)
				if err != nil {
					panic(err)
				}
				reaped = append(reaped, pid)
			})
		}),
		Call(func(t *Task) {
			s.Syscall(t, "wait4", func(t *Task) {
				if _, err := s.wait4(t); err != ErrNoChild {
					panic(fmt.Sprintf("second wait4: %v, want ECHILD", err))
				}
			})
		}))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	child, worker := s.Tasks[1], s.Tasks[2]
	got := []string{
		fmt.Sprintf("child pid=%d tid=%d mm-shared=%v parent=%v", child.PID, child.TID, child.MM == p.MM, child.Parent() == p),
		fmt.Sprintf("worker pid=%d tid=%d mm-shared=%v leader=%v thread=%v", worker.PID, worker.TID, worker.MM == p.MM, worker.Leader() == p, worker.IsThread()),
		fmt.Sprintf("reaped=%v child-reaped=%v worker-reaped=%v all-exited=%v", reaped, child.Reaped(), worker.Reaped(), s.AllExited()),
	}
	want := []string{
		"child pid=102 tid=102 mm-shared=false parent=true",
		"worker pid=101 tid=103 mm-shared=true leader=true thread=true",
		"reaped=[102] child-reaped=true worker-reaped=true all-exited=true",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	wantTrace := []string{
		"cpu0 switch swapper/0 state=0x0 -> p/101",
		"fork p/101 pid=101 -> p/102 pid=102 ppid=101",
		"cpu0 wakeup new=true p/102 target=0",
		"fork p/101 pid=101 -> p/103 pid=101 ppid=0",
		"cpu0 wakeup new=true p/103 target=0",
		"cpu0 switch p/101 state=0x1 -> p/102",
		"exit p/102 group_dead=true",
		"cpu0 wakeup new=false p/101 target=0",
		"cpu0 switch p/102 state=0x20 -> p/103",
		"exit p/103 group_dead=false",
		"cpu0 switch p/103 state=0x10 -> p/101",
		"exit p/101 group_dead=true",
		"cpu0 switch p/101 state=0x20 -> swapper/0",
	}
	if diff := cmp.Diff(wantTrace, l.lines); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

// exit_group kills the other threads of the group: a thread blocked on a
// futex nobody wakes dies too, and the machine ends with every task exited.
func TestExitGroupKillsThreads(t *testing.T) {
	m, s := newSched(t, 2, DefaultConfig())
	s.Spawn("p", CPUMask{},
		Fork("blocked", ThreadFlags, FutexWait("f")),
		Fork("spinner", ThreadFlags, Compute(sim.Second)),
		Compute(10*sim.Microsecond),
		ExitGroup())
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range s.Tasks {
		got = append(got, fmt.Sprintf("%d dead=%v exited-before-1ms=%v", x.TID, x.State == Dead, x.Exited < sim.Millisecond))
	}
	want := []string{"101 dead=true exited-before-1ms=true", "102 dead=true exited-before-1ms=true", "103 dead=true exited-before-1ms=true"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// A pipe between two tasks on two CPUs: the reader blocks on the empty pipe
// and the write wakes it through cpu1's wake list (an idle CPU: the IPI);
// with ttwu-queue off the writer's CPU activates it. A futex wait nobody
// wakes is what Blocked reports.
func TestPipeWakeList(t *testing.T) {
	for _, off := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.NoTTWUQueue = off
		m, s := newSched(t, 2, cfg)
		l := &traceLog{}
		s.TraceHooks = append(s.TraceHooks, l)
		s.Spawn("rd", MaskOf(1), PipeRead("p", 1))
		s.Spawn("wr", MaskOf(0), Compute(10*sim.Microsecond), PipeWrite("p", 1))
		s.Spawn("stuck", MaskOf(0), FutexWait("nobody"))
		if err := m.Run(sim.Second); err != nil {
			t.Fatal(err)
		}
		var wake string
		for _, x := range l.lines {
			if len(x) > 10 && x[5:11] == "wakeup" {
				wake = x
			}
		}
		var blocked []string
		for _, b := range s.Blocked() {
			blocked = append(blocked, b.Comm+" "+s.WaitingOn(b))
		}
		want := []string{"cpu1 wakeup new=false rd/101 target=1", "stuck futex nobody"}
		if off {
			want[0] = "cpu0 wakeup new=false rd/101 target=1"
		}
		if diff := cmp.Diff(want, append([]string{wake}, blocked...)); diff != "" {
			t.Errorf("ttwu-queue off=%v (-want +got):\n%s", off, diff)
		}
	}
}

// BenchmarkForkExitWait: one fork + exit + wait4 round trip on one CPU
// (the scheduler alone, no perf).
func BenchmarkForkExitWait(b *testing.B) {
	m := cpu.NewMachine(cpu.Config{CPUs: 1}, sim.NewReplay(nil))
	defer m.Close()
	s := New(m, DefaultConfig())
	s.Spawn("p", CPUMask{}, Loop(b.N, Fork("c", ForkFlags, Compute(sim.Microsecond)), Wait4()))
	b.ResetTimer()
	if err := m.Run(sim.Time(1) << 60); err != nil {
		b.Fatal(err)
	}
	if !s.AllExited() {
		b.Fatal("not every task exited")
	}
}
