package runner

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cost"
)

// TestUserBufferCopies: the buffer of read(2) and write(2) is user memory
// the kernel copies to or from, page by page, faulting in from kernel mode
// what is not mapped and stopping at a page no fault can map. Each row is
// what this machine's 6.18 returned for the same calls (a 64 KB copy; C
// programs under perf stat and perf record -e page-faults:k -c 1, the
// loader's faults taken off): the return, and the kernel-mode page-faults
// the call added (a bad page counts: the event fires at the entry of
// do_user_addr_fault()).
func TestUserBufferCopies(t *testing.T) {
	const prog = `scenario uaccess
cpus 1
task w cpu0
  syscall openat AT_FDCWD "/var/tmp/u" O_RDWR|O_CREAT 0600 as fd
  syscall ftruncate fd 1048576
  syscall mmap 0x10000000 69632 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED -1 0 as b
  syscall openat AT_FDCWD "/dev/pts/0" O_RDWR 0 as tty
  syscall openat AT_FDCWD "/dev/null" O_WRONLY 0 as null
%s  syscall lseek fd 0 SEEK_CUR as pos
record -e page-faults:k -c 1 -- w
`
	// the two pages at b (0x10000000), then a hole: what the real program
	// unmapped
	const hole = "  syscall munmap 0x10002000 61440\n"
	for _, tc := range []struct {
		name, body string
		ret        int64
		faults     int64
		pos        int64
	}{
		{"read into fresh pages: a write fault each at _copy_to_iter", "  syscall read fd b 65536 as ret\n", 65536, 16, 65536},
		{"write from fresh pages: a read fault each at fault_in_readable", "  syscall write fd b 65536 as ret\n", 65536, 16, 65536},
		{"read into NULL: the fault fails, EFAULT", "  syscall read fd 0 65536 as ret\n", -14, 1, 0},
		{"write from NULL: fault_in_readable() stops at address 0, no fault", "  syscall write fd 0 65536 as ret\n", -14, 0, 0},
		{"read into a PROT_READ buffer", "  syscall mprotect b 65536 PROT_READ\n  syscall read fd b 65536 as ret\n", -14, 1, 0},
		{"read into an unmapped buffer", "  syscall munmap b 69632\n  syscall read fd b 65536 as ret\n", -14, 1, 0},
		{"read into two pages and a hole: short, f_pos after them", hole + "  syscall read fd b 65536 as ret\n", 8192, 3, 8192},
		{"write from two pages and a hole: the hole faults twice", hole + "  syscall write fd b 65536 as ret\n", 8192, 4, 8192},
		{"write from two mapped pages and a hole: once", hole + "  touch b 2\n  syscall write fd b 65536 as ret\n", 8192, 1, 8192},
		{"tty write of a page and a hole: whole 2048-byte chunks", "  syscall munmap 0x10001000 65536\n  syscall write tty b 8192 as ret\n", 4096, 2, 0},
		{"tty write from 1000 bytes into the page", "  syscall munmap 0x10001000 65536\n  syscall write tty 0x100003e8 8192 as ret\n", 2048, 2, 0},
		{"tty write from NULL", "  syscall write tty 0 100 as ret\n", -14, 1, 0},
		{"/dev/null takes the count unread", "  syscall write null 0 100 as ret\n", 100, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, res := runQuiet(t, "uaccess.sim", fmt.Sprintf(prog, tc.body))
			got := returns(r, "fd", "b", "tty", "null")
			want := map[string]int64{"ret": tc.ret, "pos": tc.pos}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("returns (-want +got):\n%s", d)
			}
			// and the exec's own: elf_load()'s padzero() faults (the paired case exec-faults)
			if n := int64(res.Observables["perf.samples"]); n != tc.faults+cost.ExecPadzeroFaults {
				t.Errorf("page-faults:k samples = %d, want %d and the exec's %d", n, tc.faults, cost.ExecPadzeroFaults)
			}
		})
	}
}

// TestPerfFdWrite: perf's fd has no write method (perf_fops), so write(2)
// is EINVAL after the mode check and before the buffer's (vfs_write():
// FMODE_CAN_WRITE); it took the count. As this machine (wr=-22 neg=-22).
func TestPerfFdWrite(t *testing.T) {
	r, _ := runQuiet(t, "perfwrite.sim", `scenario perfwrite
cpus 1
task w cpu0
  open ev -e cpu-clock
  syscall write 3 0 8 as wr
  syscall write 3 0 -1 as neg
`)
	if d := cmp.Diff(map[string]int64{"wr": -22, "neg": -22}, returns(r)); d != "" {
		t.Errorf("returns (-want +got):\n%s", d)
	}
}

// TestPerfFdReadSyscall: read(2) of a perf fd by the syscall statement is
// perf_read() with the caller's count and buffer: the 8-byte count of a
// plain cpu-clock event with a count of 8 or 100, ENOSPC under read_size,
// EFAULT into NULL. As this machine (rd=8 big=8 small=-28 rdnull=-14); the
// model read end of file (0) for every one.
func TestPerfFdReadSyscall(t *testing.T) {
	r, _ := runQuiet(t, "perfread.sim", `scenario perfread
cpus 1
task w cpu0
  open ev -e cpu-clock
  syscall mmap 0 4096 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as buf
  compute 10us
  syscall read 3 buf 8 as rd
  syscall read 3 buf 100 as big
  syscall read 3 buf 4 as small
  syscall read 3 0 8 as rdnull
`)
	want := map[string]int64{"rd": 8, "big": 8, "small": -28, "rdnull": -14}
	if d := cmp.Diff(want, returns(r, "buf")); d != "" {
		t.Errorf("returns (-want +got):\n%s", d)
	}
}
