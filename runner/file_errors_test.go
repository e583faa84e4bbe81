package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFileSyscallErrors: what this machine's kernel returns (errno
// negated) for file calls on the wrong kind of file or with an odd
// argument: lseek's whence is checked before ESPIPE (a tty: EINVAL for
// whence 9, ESPIPE for SEEK_SET); SEEK_DATA and SEEK_HOLE on a file with no
// holes (data at the offset, the hole at i_size, ENXIO at EOF); fsync and
// ftruncate of a tty (no ->fsync, not S_ISREG: EINVAL); O_CREAT|O_EXCL of a
// new path makes an empty file, and of it again EEXIST.
func TestFileSyscallErrors(t *testing.T) {
	r, _ := runQuiet(t, "errs.sim", `scenario errs
cpus 1
task main cpu0
  syscall openat AT_FDCWD "/dev/tty" O_RDWR 0 as tty
  syscall lseek tty 0 9 as ttywhence
  syscall lseek tty 0 SEEK_SET as ttyseek
  syscall fsync tty as ttyfsync
  syscall ftruncate tty 0 as ttytrunc
  syscall openat AT_FDCWD "/var/tmp/new" O_RDWR|O_CREAT|O_EXCL 0600 as fd
  syscall lseek fd 0 SEEK_END as newsize
  syscall openat AT_FDCWD "/var/tmp/new" O_RDWR|O_CREAT|O_EXCL 0600 as again
  syscall ftruncate fd 8192
  syscall lseek fd 100 SEEK_DATA as data
  syscall lseek fd 100 SEEK_HOLE as hole
  syscall lseek fd 8192 SEEK_DATA as dataeof
  syscall lseek fd 9000 SEEK_HOLE as holeeof
  syscall fsync fd as fsync
`)
	got := returns(r, "fd", "tty")
	want := map[string]int64{"ttywhence": -22, "ttyseek": -29, "ttyfsync": -22, "ttytrunc": -22, "newsize": 0, "again": -17,
		"data": 100, "hole": 8192, "dataeof": -6, "holeeof": -6, "fsync": 0}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("returns (-want +got):\n%s", d)
	}
}

// TestMmapErrorOrder: do_mmap() checks the length, the mapping type and a
// fixed address before the file's mode: a write-only fd mapped with length
// 0, a bad type or a misaligned MAP_FIXED address is EINVAL, with a good
// one EACCES. As this machine's kernel.
func TestMmapErrorOrder(t *testing.T) {
	r, _ := runQuiet(t, "mmaperr.sim", `scenario mmaperr
cpus 1
task main cpu0
  syscall openat AT_FDCWD "/var/tmp/m" O_WRONLY|O_CREAT 0600 as fd
  syscall ftruncate fd 8192
  syscall mmap 0 0 PROT_READ MAP_PRIVATE fd 0 as zero
  syscall mmap 0 4096 PROT_READ 0 fd 0 as badtype
  syscall mmap 4097 4096 PROT_READ MAP_PRIVATE|MAP_FIXED fd 0 as misaligned
  syscall mmap 0 4096 PROT_READ MAP_PRIVATE fd 0 as acces
`)
	got := returns(r, "fd")
	want := map[string]int64{"zero": -22, "badtype": -22, "misaligned": -22, "acces": -13}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("returns (-want +got):\n%s", d)
	}
}
