package sched

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// sysLog is a SyscallHook that logs one syscall's entries (when) and
// exits (the return value sys_exit reads) by the tasks named p.
type sysLog struct {
	name string
	log  *[]string
}

func (l sysLog) SysEnter(t *Task, name string) {
	if name == l.name && t.Comm == "p" {
		*l.log = append(*l.log, "enter "+name+" "+t.CPU().Now().String())
	}
}

func (l sysLog) SysExit(t *Task, name string) {
	if name == l.name && t.Comm == "p" {
		*l.log = append(*l.log, fmt.Sprintf("exit %s = %d", name, t.Sys.Ret))
	}
}

// TestWaitRestart: a handled signal that interrupts wait4() (do_wait()'s
// -ERESTARTSYS, which sys_exit sees) makes the kernel run it again when
// the handler has SA_RESTART (handle_signal(): regs->ip -= 2): the
// handler runs, then a second wait4() reaps the child. Without SA_RESTART
// the program sees -EINTR and goes on with its child alive. The model's
// wait4 ended at any signal.
func TestWaitRestart(t *testing.T) {
	const childPID = 103 // p is 101, the sender 102
	for _, tc := range []struct {
		name    string
		install []Op   // the parent's steps before the fork
		saFlags uint64 // the flags of the handler the sender installs
		want    []string
	}{
		{name: "SA_RESTART (glibc's signal())", saFlags: SA_RESTART, want: []string{
			"enter wait4 0", "exit wait4 = -512", "handler 5us", "enter wait4 5us", fmt.Sprintf("exit wait4 = %d", childPID), fmt.Sprintf("back at 20us: ret %d, child reaped true", childPID)}},
		{name: "no SA_RESTART (sigaction())", want: []string{
			"enter wait4 0", "exit wait4 = -512", "handler 5us", "back at 5us: ret -4, child reaped false"}},
		{name: "rt_sigaction() with SA_RESTART", install: []Op{
			SyscallArgs("rt_sigaction", 0, "", SysArg{Val: SIGUSR1}, UserStruct(0x401000, 0x04000000|SA_RESTART, 0x401100, 0), SysArg{}, SysArg{Val: 8})}, want: []string{
			"enter wait4 200ns", "exit wait4 = -512", "enter wait4 5us", fmt.Sprintf("exit wait4 = %d", childPID), fmt.Sprintf("back at 20.2us: ret %d, child reaped true", childPID)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, s := newSched(t, 3, DefaultConfig())
			var log []string
			s.SyscallHooks = append(s.SyscallHooks, sysLog{"wait4", &log})
			var child *Task
			prog := append(append([]Op{}, tc.install...),
				Fork("child", 0, Migrate(2), Compute(20*sim.Microsecond)) /* off p's CPU: p runs when woken */, Wait4(),
				Call(func(p *Task) {
					for _, x := range s.Tasks {
						if x.Comm == "p" && x != p {
							child = x
						}
					}
					log = append(log, fmt.Sprintf("back at %v: ret %d, child reaped %v", p.CPU().Now(), p.Sys.Ret, child != nil && child.Reaped()))
				}))
			p := s.Spawn("p", MaskOf(0), prog...)
			s.Spawn("sender", MaskOf(1), Compute(5*sim.Microsecond), Call(func(*Task) {
				sig := Signal{Sig: SIGUSR1, SaFlags: tc.saFlags, Handler: []Op{Call(func(*Task) { log = append(log, "handler "+s.M.Now().String()) })}}
				if tc.install != nil {
					sig = Signal{Sig: SIGUSR1} // the handler the program installed
				}
				s.SendSignal(p, sig)
			}))
			if err := m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			if child == nil || child.PID != childPID {
				t.Fatalf("child %v: want pid %d", child, childPID)
			}
			if diff := cmp.Diff(tc.want, log); diff != "" {
				t.Errorf("wait4()'s entries and exits (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSleepRestart: the same for the other sleeps whose syscall returns
// -ERESTARTSYS when a signal interrupts it before it did anything:
// pipe_read() (wait_event_interruptible_exclusive()) and futex_wait()
// with no timeout. With SA_RESTART the handler runs and the syscall
// sleeps again until the write or wake at 10us; without, the program
// sees -EINTR at the signal. The model's program went on at the signal
// either way.
func TestSleepRestart(t *testing.T) {
	for _, tc := range []struct {
		name, sys string
		sleep     Op // the sleeper's
		end       Op // what ends the sleep, at 10us
		saFlags   uint64
		want      []string
	}{
		{name: "pipe read, SA_RESTART", sys: "read", sleep: PipeRead("p", 1), end: PipeWrite("p", 1), saFlags: SA_RESTART, want: []string{
			"enter read 0", "exit read = -512", "handler 5us", "enter read 5us", "exit read = 0", "back at 10us: ret 0"}},
		{name: "pipe read", sys: "read", sleep: PipeRead("p", 1), end: PipeWrite("p", 1), want: []string{
			"enter read 0", "exit read = -512", "handler 5us", "back at 5us: ret -4"}},
		{name: "futex wait, SA_RESTART", sys: "futex", sleep: FutexWait("f"), end: FutexWake("f", 1), saFlags: SA_RESTART, want: []string{
			"enter futex 0", "exit futex = -512", "handler 5us", "enter futex 5us", "exit futex = 0", "back at 10us: ret 0"}},
		{name: "futex wait", sys: "futex", sleep: FutexWait("f"), end: FutexWake("f", 1), want: []string{
			"enter futex 0", "exit futex = -512", "handler 5us", "back at 5us: ret -4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, s := newSched(t, 3, DefaultConfig())
			var log []string
			s.SyscallHooks = append(s.SyscallHooks, sysLog{tc.sys, &log})
			p := s.Spawn("p", MaskOf(0), tc.sleep, Call(func(p *Task) {
				log = append(log, fmt.Sprintf("back at %v: ret %d", p.CPU().Now(), p.Sys.Ret))
			}))
			s.Spawn("sender", MaskOf(1), Compute(5*sim.Microsecond), Call(func(*Task) {
				s.SendSignal(p, Signal{Sig: SIGUSR1, SaFlags: tc.saFlags, Handler: []Op{Call(func(*Task) { log = append(log, "handler "+s.M.Now().String()) })}})
			}))
			s.Spawn("waker", MaskOf(2), Compute(10*sim.Microsecond), tc.end)
			if err := m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, log); diff != "" {
				t.Errorf("%s's entries and exits (-want +got):\n%s", tc.sys, diff)
			}
		})
	}
}
