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

// TestReadWriteModeFirst: vfs_read() and vfs_write() check the file's mode
// before access_ok(): a read-only fd written with a count negative as a
// ssize_t is EBADF, not EFAULT, and so is a read-only /dev file written;
// pwrite64 of a tty is ESPIPE before that (ksys_pwrite64(): FMODE_PWRITE).
// As this machine's kernel (write_ro_neg=-9 read_wo_neg=-9
// pwrite_ro_neg=-9 write_devro=-9).
func TestReadWriteModeFirst(t *testing.T) {
	r, _ := runQuiet(t, "mode.sim", `scenario mode
cpus 1
task main cpu0
  syscall openat AT_FDCWD "/var/tmp/o" O_RDONLY|O_CREAT 0600 as ro
  syscall openat AT_FDCWD "/var/tmp/o" O_WRONLY 0 as wo
  syscall openat AT_FDCWD "/dev/null" O_RDONLY 0 as devro
  syscall openat AT_FDCWD "/dev/tty" O_RDONLY 0 as tty
  syscall write ro 0 -1 as write_ro_neg
  syscall read wo 0 -1 as read_wo_neg
  syscall pwrite64 ro 0 -1 0 as pwrite_ro_neg
  syscall write ro 0 1 as write_ro
  syscall write devro 0 1 as write_devro
  syscall read devro 0 1 as read_devro
  syscall pwrite64 tty 0 -1 0 as pwrite_tty
`)
	got := returns(r, "ro", "wo", "devro", "tty")
	want := map[string]int64{"write_ro_neg": -9, "read_wo_neg": -9, "pwrite_ro_neg": -9, "write_ro": -9,
		"write_devro": -9, "read_devro": 0, "pwrite_tty": -29}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("returns (-want +got):\n%s", d)
	}
}

// TestMaxBytes: ext4's s_maxbytes (16 TiB - 4 KiB here) bounds a file: a
// size past it is EFBIG (inode_newsize_ok()), a write from it EFBIG and
// one up to it cut short (generic_write_check_limits()), a read from it
// reads nothing (filemap_read()), an lseek past it EINVAL (vfs_setpos()).
// As this machine's kernel (truncM=0 truncM1=-27 pwriteM-1=1 preadM-5=5
// preadM=0 seekEnd1=-22); the model let a file grow to LLONG_MAX.
func TestMaxBytes(t *testing.T) {
	r, _ := runQuiet(t, "maxbytes.sim", `scenario maxbytes
cpus 1
task main cpu0
  syscall openat AT_FDCWD "/var/tmp/x" O_RDWR|O_CREAT 0600 as fd
  syscall mmap 0 4096 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as buf
  syscall ftruncate fd 17592186040320 as truncM
  syscall ftruncate fd 17592186040321 as truncM1
  syscall pwrite64 fd buf 10 17592186040319 as pwriteM1
  syscall pwrite64 fd buf 10 17592186040320 as pwriteM
  syscall pread64 fd buf 10 17592186040315 as preadM5
  syscall pread64 fd buf 10 17592186040320 as preadM
  syscall lseek fd 1 SEEK_END as seekEnd1
  syscall lseek fd 17592186040320 SEEK_SET as seekM
  syscall lseek fd 0 SEEK_END as size
`)
	got := returns(r, "fd", "buf")
	want := map[string]int64{"truncM": 0, "truncM1": -27, "pwriteM1": 1, "pwriteM": -27, "preadM5": 5, "preadM": 0,
		"seekEnd1": -22, "seekM": 17592186040320, "size": 17592186040320}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("returns (-want +got):\n%s", d)
	}
}
