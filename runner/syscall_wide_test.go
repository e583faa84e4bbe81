package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWideSyscallArgs: a negative off_t, loff_t or size_t reaches the
// kernel sign-extended to 64 bits, as glibc passes it: lseek to -5 is
// EINVAL (not 4294967291), ftruncate to -1 is EINVAL (not a 4 GiB file),
// pread64 at -1 is EINVAL; close(-1)'s int stays 0xffffffff (EBADF either
// way). Values as this machine's kernel returns them (errno negated).
func TestWideSyscallArgs(t *testing.T) {
	r, _ := runQuiet(t, "wide.sim", `scenario wide
cpus 1
task main cpu0
  syscall openat AT_FDCWD "/var/tmp/w" O_RDWR|O_CREAT 0 as fd
  syscall ftruncate fd 8192
  syscall lseek fd -5 SEEK_SET as seek
  syscall lseek fd -5 SEEK_END as end
  syscall ftruncate fd -1 as trunc
  syscall lseek fd 0 SEEK_END as size
  syscall pread64 fd 0 10 -1 as pread
  syscall close -1 as closed
`)
	got := returns(r, "fd")
	want := map[string]int64{"seek": -22, "end": 8187, "trunc": -22, "size": 8192, "pread": -22, "closed": -9}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("returns (-want +got):\n%s", d)
	}
}

// TestReadWriteCounts: a count negative as a ssize_t fails access_ok() of
// the buffer (EFAULT: buf + count past USER_PTR_MAX), a position that
// overflows with the count fails rw_verify_area() (EINVAL), before any I/O;
// a write of -1 bytes was a runaway, a pread64 at LLONG_MAX - 5 of 10 bytes
// returned 0. As this machine's kernel (neg=-14 over=-22 negread=-14
// pos=0).
func TestReadWriteCounts(t *testing.T) {
	r, _ := runQuiet(t, "counts.sim", `scenario counts
cpus 1
task main cpu0
  syscall openat AT_FDCWD "/var/tmp/c" O_RDWR|O_CREAT 0 as fd
  syscall ftruncate fd 8192
  syscall mmap 0 4294967296 PROT_READ MAP_PRIVATE|MAP_ANONYMOUS -1 0 as buf
  syscall write fd 0 -1 as neg
  syscall pread64 fd 0 10 9223372036854775802 as over
  syscall read fd 0 -2 as negread
  syscall lseek fd 0 SEEK_CUR as pos
  syscall write fd buf 4294967296 as big
`)
	got := returns(r, "fd", "buf")
	// and a write of 4 GiB moves MAX_RW_COUNT bytes (from a buffer that
	// big: its first 2 GiB fault in, the zero page)
	want := map[string]int64{"neg": -14, "over": -22, "negread": -14, "pos": 0, "big": 0x7ffff000}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("returns (-want +got):\n%s", d)
	}
}
