package runner

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cost"
	"perfsim/sim"
)

// TestFadviseSyscall: fadvise64(2) and madvise(MADV_WILLNEED) through a
// task's syscalls, judged by the faults of the task's read of a 64-page
// file through a mapping: cached, 5 fault-around faults (the mapping is
// not 64 KB-aligned); cold, 1 major and 6 minor (the read-around's mark is
// one more). WILLNEED reads the file ahead (no major fault; without a wait
// the first fault waits for the read in flight, still minor); DONTNEED
// drops what no PTE maps (a read again is cold) and keeps what one maps.
func TestFadviseSyscall(t *testing.T) {
	const head = `  syscall openat AT_FDCWD "/var/tmp/f" O_RDWR|O_CREAT 0 as fd
  syscall ftruncate fd 262144
  syscall mmap 0 262144 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as buf
`
	for _, tc := range []struct {
		name, body   string
		minor, major int64
	}{
		{"cold", head + `  syscall mmap 0 262144 PROT_READ MAP_PRIVATE fd 0 as p
  touch p 64
`, 6, 1},
		{"fadvise willneed", head + `  syscall fadvise64 fd 0 0 POSIX_FADV_WILLNEED
  sleep 10ms
  syscall mmap 0 262144 PROT_READ MAP_PRIVATE fd 0 as p
  touch p 64
`, 5, 0},
		{"fadvise willneed, no wait", head + `  syscall fadvise64 fd 0 0 POSIX_FADV_WILLNEED
  syscall mmap 0 262144 PROT_READ MAP_PRIVATE fd 0 as p
  touch p 64
`, 5, 0},
		{"madvise willneed", head + `  syscall mmap 0 262144 PROT_READ MAP_PRIVATE fd 0 as p
  syscall madvise p 262144 MADV_WILLNEED
  sleep 10ms
  touch p 64
`, 5, 0},
		{"read(2) first", head + `  syscall read fd buf 262144
  syscall mmap 0 262144 PROT_READ MAP_PRIVATE fd 0 as p
  touch p 64
`, 64 + 5, 0}, // the buffer's 64 pages fault as the read fills them
		{"read(2) of a file opened O_WRONLY: EBADF, nothing read", `  syscall openat AT_FDCWD "/var/tmp/f" O_WRONLY|O_CREAT 0 as fd
  syscall ftruncate fd 262144
  syscall mmap 0 262144 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as buf
  syscall read fd buf 262144
  syscall openat AT_FDCWD "/var/tmp/f" O_RDONLY 0 as rd
  syscall mmap 0 262144 PROT_READ MAP_SHARED rd 0 as p
  touch p 64
`, 6, 1},
		{"write(2) then fsync and dontneed: dropped", head + `  syscall lseek fd 0 SEEK_SET
  syscall write fd buf 262144
  syscall fsync fd
  syscall fadvise64 fd 0 0 POSIX_FADV_DONTNEED
  syscall mmap 0 262144 PROT_READ MAP_PRIVATE fd 0 as p
  touch p 64
`, 64 + 6, 1}, // the write faults the buffer's 64 pages in (the zero page)
		{"write(2) then dontneed: dirty, kept", head + `  syscall write fd buf 262144
  syscall fadvise64 fd 0 0 POSIX_FADV_DONTNEED
  syscall mmap 0 262144 PROT_READ MAP_PRIVATE fd 0 as p
  touch p 64
`, 64 + 5, 0},
		{"dontneed after munmap", head + `  syscall mmap 0 262144 PROT_READ MAP_PRIVATE fd 0 as p
  touch p 64
  syscall munmap p 262144
  syscall fadvise64 fd 0 0 POSIX_FADV_DONTNEED
  syscall mmap 0 262144 PROT_READ MAP_PRIVATE fd 0 as q
  touch q 64
`, 12, 2},
		{"dontneed while mapped", head + `  syscall mmap 0 262144 PROT_READ MAP_PRIVATE fd 0 as p
  touch p 64
  syscall fadvise64 fd 0 0 POSIX_FADV_DONTNEED
  syscall mmap 0 262144 PROT_READ MAP_PRIVATE fd 0 as q
  touch q 64
`, 11, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf("scenario fadvise\ncpus 1\ntask w cpu0\n%s", tc.body)
			r, _ := runQuiet(t, "fadvise.sim", src)
			w := r.Tasks["w"]
			if d := cmp.Diff([2]int64{tc.minor, tc.major}, [2]int64{int64(w.MinFlt), int64(w.MajFlt)}); d != "" {
				t.Errorf("minor and major faults (-want +got):\n%s", d)
			}
		})
	}
}

// TestFileIOCost: a read(2) of cached pages and a write(2) cost the
// syscall and, a KiB, what this machine's copy through the page cache
// costs (cost/testdata/fileio.txt); nothing under cost-model=free. The
// first read faulted the buffer in, so the copy is all the second adds.
func TestFileIOCost(t *testing.T) {
	tm := cost.ThisMachine()
	end := func(model, call string, n int) sim.Time {
		src := fmt.Sprintf(`scenario file-io-cost
cpus 1
kernel cost-model=%s
task w cpu0
  syscall openat AT_FDCWD "/var/tmp/f" O_RDWR|O_CREAT 0 as fd
  syscall ftruncate fd 1048576
  syscall mmap 0 1048576 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as buf
  syscall read fd buf 1048576
  syscall lseek fd 0 SEEK_SET
  syscall %s fd buf %d
`, model, call, n)
		_, res := runQuiet(t, "cost.sim", src)
		return res.End
	}
	type row struct {
		Model, Call string
		Added       sim.Duration
	}
	var got, want []row
	for _, tc := range []struct {
		model, call string
		perKiB      sim.Duration
	}{
		{"this-machine", "read", tm.FileReadPerKiB},
		{"this-machine", "write", tm.FileWritePerKiB},
		{"free", "read", 0},
	} {
		got = append(got, row{tc.model, tc.call, sim.Duration(end(tc.model, tc.call, 262144) - end(tc.model, tc.call, 0))})
		want = append(want, row{tc.model, tc.call, 256 * tc.perKiB})
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the time 256 KiB add (-want +got):\n%s", d)
	}
}
