package runner

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// SIGIO from an O_ASYNC perf fd: a page-faults event sampling every fault
// (period 1, wakeup_events 1), owned by the task (F_SETOWN), ten faults.
// The real kernel (6.18, the same calls, probe4.c in the report): F_SETSIG
// 0 gives ten SIGIOs with si_code SI_KERNEL; F_SETSIG SIGIO or SIGRTMIN ten
// signals with si_code POLL_IN and si_fd the perf fd; IOC_REFRESH 3 three
// signals, the last POLL_HUP; no F_SETOWN, none.
func TestFasyncSignals(t *testing.T) {
	type obs = map[string]int64
	for _, tc := range []struct {
		setsig, enable, owner string
		want                  obs
	}{
		{"0", "ENABLE", "self", obs{"signals.sigio": 10, "signals.si-kernel": 10, "signals.poll-in": 0, "signals.poll-hup": 0, "signals.fd": 0, "task.app.signals": 10, "task.other.signals": 0}},
		{"SIGIO", "ENABLE", "self", obs{"signals.sigio": 10, "signals.si-kernel": 0, "signals.poll-in": 10, "signals.poll-hup": 0, "signals.fd": 3, "task.app.signals": 10, "task.other.signals": 0}},
		{"SIGRTMIN", "ENABLE", "self", obs{"signals.sigio": 0, "signals.si-kernel": 0, "signals.poll-in": 10, "signals.poll-hup": 0, "signals.fd": 3, "task.app.signals": 10, "task.other.signals": 0}},
		{"SIGIO", "REFRESH 3", "self", obs{"signals.sigio": 3, "signals.si-kernel": 0, "signals.poll-in": 2, "signals.poll-hup": 1, "signals.fd": 3, "task.app.signals": 3, "task.other.signals": 0}},
		{"SIGIO", "ENABLE", "0", obs{"signals.sigio": 0, "signals.si-kernel": 0, "signals.poll-in": 0, "signals.poll-hup": 0, "signals.fd": 0, "task.app.signals": 0, "task.other.signals": 0}},
		// To whom: the owner is another task of the file, which takes them.
		{"SIGIO", "ENABLE", "other", obs{"signals.sigio": 10, "signals.si-kernel": 0, "signals.poll-in": 10, "signals.poll-hup": 0, "signals.fd": 3, "task.app.signals": 0, "task.other.signals": 10}},
	} {
		src := fmt.Sprintf(`cpus 2
task app cpu0
  open ev -e page-faults period=1 wakeup_events=1 sample_type=IP disabled
  fcntl ev F_SETFL O_ASYNC
  fcntl ev F_SETOWN %s
  fcntl ev F_SETSIG %s
  ioctl ev %s
  syscall mmap 0 40960 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as p
  touch p 10 write
  ioctl ev DISABLE
  close ev
task other cpu1
  repeat 20
    compute 5us
    yield
`, tc.owner, tc.setsig, tc.enable)
		var names []string
		for n := range tc.want {
			names = append(names, n)
		}
		got, _ := runSrc(t, src, names...)
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("F_SETSIG %s, %s, F_SETOWN %s (-want +got):\n%s", tc.setsig, tc.enable, tc.owner, d)
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
