package uapi

import (
	"strings"
	"syscall"
	"testing"
)

// Go's syscall.Errno strings are glibc's strerror() table on linux; perf
// prints those. Numbers must match the Linux
func TestErrnoMatchesLinux(t *testing.T) {
	for e := range errnoText {
		// Go lower-cases the first letter of glibc's text.
		want := syscall.Errno(e).Error()
		want = strings.ToUpper(want[:1]) + want[1:]
		if got := e.Error(); got != want {
			t.Errorf("%s.Error() = %q, want %q", e.Name(), got, want)
		}
	}
	tests := []struct {
		e    Errno
		sys  syscall.Errno
		name string
	}{
		{EPERM, syscall.EPERM, "EPERM"}, {ENOENT, syscall.ENOENT, "ENOENT"},
		{ESRCH, syscall.ESRCH, "ESRCH"}, {E2BIG, syscall.E2BIG, "E2BIG"},
		{EBADF, syscall.EBADF, "EBADF"}, {ENOMEM, syscall.ENOMEM, "ENOMEM"},
		{EACCES, syscall.EACCES, "EACCES"}, {EFAULT, syscall.EFAULT, "EFAULT"},
		{EBUSY, syscall.EBUSY, "EBUSY"}, {ENODEV, syscall.ENODEV, "ENODEV"},
		{EINVAL, syscall.EINVAL, "EINVAL"}, {EMFILE, syscall.EMFILE, "EMFILE"},
		{ENOSPC, syscall.ENOSPC, "ENOSPC"}, {ENOSYS, syscall.ENOSYS, "ENOSYS"},
		{EOVERFLOW, syscall.EOVERFLOW, "EOVERFLOW"}, {EOPNOTSUPP, syscall.EOPNOTSUPP, "EOPNOTSUPP"},
	}
	for _, tt := range tests {
		if int(tt.e) != int(tt.sys) || tt.e.Name() != tt.name {
			t.Errorf("%s = %d (name %q), want %d", tt.name, int(tt.e), tt.e.Name(), int(tt.sys))
		}
	}
	if got := Errno(200).Error(); got != "Unknown error 200" {
		t.Errorf("unknown errno text = %q", got)
	}
	if EINVAL.Neg() != -22 {
		t.Errorf("EINVAL.Neg() = %d", EINVAL.Neg())
	}
}
