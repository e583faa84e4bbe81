package runner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// SIGIO from an O_ASYNC perf fd: a page-faults event sampling every fault
// (period 1, wakeup_events 1), owned by the task (F_SETOWN), ten faults.
// The real kernel (6.18, the same calls, realperf/testdata/sigio): with a
// handler, F_SETSIG 0 gives ten SIGIOs with si_code SI_KERNEL; F_SETSIG
// SIGIO or SIGRTMIN ten signals with si_code POLL_IN and si_fd the perf fd;
// IOC_REFRESH 3 three signals, the last POLL_HUP; no F_SETOWN, none. Without
// a handler SIGIO's default action ends the process at the first (and an
// RT signal's too); SIG_IGN drops them all. An F_SETSIG real-time signal
// over RLIMIT_SIGPENDING (0 here) is not queued and falls back to a plain
// SIGIO (send_sigio_to_task()).
func TestFasyncSignals(t *testing.T) {
	type obs = map[string]int64
	for _, tc := range []struct {
		setsig, enable, owner, action, pre string
		want                               obs
	}{
		{"0", "ENABLE", "self", "handler", "", obs{"signals.sigio": 10, "signals.si-kernel": 10, "signals.poll-in": 0, "signals.poll-hup": 0, "signals.fd": 0, "task.app.signals": 10, "task.other.signals": 0, "signals.fatal": 0}},
		{"SIGIO", "ENABLE", "self", "handler", "", obs{"signals.sigio": 10, "signals.si-kernel": 0, "signals.poll-in": 10, "signals.poll-hup": 0, "signals.fd": 3, "task.app.signals": 10, "task.other.signals": 0, "signals.fatal": 0}},
		{"SIGRTMIN", "ENABLE", "self", "handler", "", obs{"signals.sigio": 0, "signals.si-kernel": 0, "signals.poll-in": 10, "signals.poll-hup": 0, "signals.fd": 3, "task.app.signals": 10, "task.other.signals": 0, "signals.fatal": 0}},
		{"SIGIO", "REFRESH 3", "self", "handler", "", obs{"signals.sigio": 3, "signals.si-kernel": 0, "signals.poll-in": 2, "signals.poll-hup": 1, "signals.fd": 3, "task.app.signals": 3, "task.other.signals": 0, "signals.fatal": 0}},
		{"SIGIO", "ENABLE", "0", "handler", "", obs{"signals.sigio": 0, "signals.si-kernel": 0, "signals.poll-in": 0, "signals.poll-hup": 0, "signals.fd": 0, "task.app.signals": 0, "task.other.signals": 0, "signals.fatal": 0}},
		// To whom: the owner is another task of the file, which takes them.
		{"SIGIO", "ENABLE", "other", "handler", "", obs{"signals.sigio": 10, "signals.si-kernel": 0, "signals.poll-in": 10, "signals.poll-hup": 0, "signals.fd": 3, "task.app.signals": 0, "task.other.signals": 10, "signals.fatal": 0}},
		// No handler: SIGIO's default action ends the process at the first.
		{"0", "ENABLE", "self", "SIG_DFL", "", obs{"signals.sigio": 0, "signals.si-kernel": 0, "signals.poll-in": 0, "signals.poll-hup": 0, "signals.fd": 0, "task.app.signals": 0, "task.other.signals": 0, "signals.fatal": 1, "signals.fatal-sig": 29}},
		{"SIGRTMIN", "ENABLE", "self", "SIG_DFL", "", obs{"signals.sigio": 0, "signals.si-kernel": 0, "signals.poll-in": 0, "signals.poll-hup": 0, "signals.fd": 0, "task.app.signals": 0, "task.other.signals": 0, "signals.fatal": 1, "signals.fatal-sig": 32}},
		{"0", "ENABLE", "self", "SIG_IGN", "", obs{"signals.sigio": 0, "signals.si-kernel": 0, "signals.poll-in": 0, "signals.poll-hup": 0, "signals.fd": 0, "task.app.signals": 0, "task.other.signals": 0, "signals.fatal": 0}},
		// RLIMIT_SIGPENDING 0: every SIGRTMIN fails to queue and falls back to SIGIO.
		{"SIGRTMIN", "ENABLE", "self", "handler", "  setrlimit RLIMIT_SIGPENDING 0\n", obs{"signals.sigio": 10, "signals.si-kernel": 10, "signals.poll-in": 0, "signals.poll-hup": 0, "signals.fd": 0, "task.app.signals": 10, "task.other.signals": 0, "signals.fatal": 0, "sigio.fallback": 10, "signals.rt": 0}},
	} {
		src := fmt.Sprintf(`cpus 2
task app cpu0
  sigaction SIGIO %[5]s
  sigaction SIGRTMIN %[5]s
%[6]s  open ev -e page-faults period=1 wakeup_events=1 sample_type=IP disabled
  fcntl ev F_SETFL O_ASYNC
  fcntl ev F_SETOWN %[1]s
  fcntl ev F_SETSIG %[2]s
  ioctl ev %[3]s
  syscall mmap 0 40960 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as p
  touch p 10 write
  ioctl ev DISABLE
  close ev
task other cpu1
  sigaction SIGIO %[4]s
  repeat 20
    compute 5us
    yield
`, tc.owner, tc.setsig, tc.enable, "handler", tc.action, tc.pre)
		var names []string
		for n := range tc.want {
			names = append(names, n)
		}
		got, _ := runSrc(t, src, names...)
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("F_SETSIG %s, %s, F_SETOWN %s, %s (-want +got):\n%s", tc.setsig, tc.enable, tc.owner, tc.action, d)
		}
	}
}

// F_SETOWN -pgid and F_SETOWN_EX F_OWNER_PGRP: each process of the group
// takes each signal (a real-time one is queued every time): signals.delivered
// counts the forked child's too. A forked child is in its parent's group (copy_process()), and leaves it with setpgid(0,
// 0); F_OWNER_TID sends to the one thread. The owner's RLIMIT_SIGPENDING 3
// (the target's limit counts), with it inside a long system call: three real-time signals queue, the other
// seven fall back to SIGIO, of which one is pending at a time (legacy_queue()).
func TestFasyncOwners(t *testing.T) {
	type obs = map[string]int64
	for _, tc := range []struct {
		name, setown, child, other string
		want                       obs
	}{
		{"pgrp with child", "F_SETOWN -app", "", "compute 400us", obs{"task.app.signals": 10, "signals.delivered": 20, "task.other.signals": 0, "sigio.sent": 20}},
		{"pgrp, child left", "F_SETOWN -app", "  syscall setpgid 0 0\n", "compute 400us", obs{"task.app.signals": 10, "signals.delivered": 10, "task.other.signals": 0, "sigio.sent": 10}},
		{"F_OWNER_PGRP other", "F_SETOWN_EX F_OWNER_PGRP other", "", "compute 400us", obs{"task.app.signals": 0, "signals.delivered": 10, "task.other.signals": 10, "sigio.sent": 10}},
		{"F_OWNER_TID", "F_SETOWN_EX F_OWNER_TID self", "", "compute 400us", obs{"task.app.signals": 10, "signals.delivered": 10, "task.other.signals": 0, "sigio.sent": 10}},
		{"queue full", "F_SETOWN other", "", "syscall getpid 2ms", obs{"task.app.signals": 0, "signals.delivered": 4, "task.other.signals": 4, "sigio.sent": 10, "sigio.fallback": 7, "signals.rt": 3, "signals.si-kernel": 1}},
	} {
		src := fmt.Sprintf(`cpus 3
task app cpu0
  sigaction SIGRTMIN handler
  sigaction SIGIO handler
  fork kid
    migrate cpu1
%[2]s    compute 300us
  sleep 50us
  open ev -e page-faults period=1 wakeup_events=1 sample_type=IP disabled
  fcntl ev F_SETFL O_ASYNC
  fcntl ev %[1]s
  fcntl ev F_SETSIG SIGRTMIN
  ioctl ev ENABLE
  syscall mmap 0 40960 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as p
  touch p 10 write
  ioctl ev DISABLE
  close ev
task other cpu2
  sigaction SIGRTMIN handler
  sigaction SIGIO handler
  setrlimit RLIMIT_SIGPENDING 3
  %[3]s
`, tc.setown, strings.ReplaceAll(tc.child, "  syscall", "    syscall"), tc.other)
		var names []string
		for n := range tc.want {
			names = append(names, n)
		}
		got, _ := runSrc(t, src, names...)
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

// The fcntl errnos the real kernel returns: F_SETSIG 65 EINVAL (64 is
// valid), F_SETOWN of a pid that does not exist ESRCH, and fcntl on an fd
// that is not open EBADF; F_GETFL reads O_RDWR|O_ASYNC (020002).
func TestFcntlErrnos(t *testing.T) {
	src := `task app cpu0
  open ev -e page-faults
  fcntl ev F_SETSIG 65
  fcntl ev F_SETSIG 64
  fcntl ev F_SETOWN 999999
  fcntl ev F_SETFL O_ASYNC
  close ev
  fcntl ev F_GETFL
`
	got, _ := runSrc(t, src, "errno.EINVAL", "errno.ESRCH", "errno.EBADF", "fd.errors")
	if d := cmp.Diff(map[string]int64{"errno.EINVAL": 1, "errno.ESRCH": 1, "errno.EBADF": 1, "fd.errors": 3}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
