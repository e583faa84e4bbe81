package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPreadLeavesFilePos: pread64(2) never touches f_pos, even while it
// sleeps in D for the disk: a second thread's read(2) meanwhile reads at
// f_pos (0) and moves it to 4096, and the pread's return does not move it
// back (fs/read_write.c: ksys_pread64() reads at its own pos; ksys_read()
// reads at a copy of f_pos and stores it back). It was restored to the
// pread's saved value, and the thread read at the pread's offset
// (n 4096, at 528384, pos 528384).
func TestPreadLeavesFilePos(t *testing.T) {
	r, _ := runQuiet(t, "pread.sim", `scenario pread
cpus 1
task main cpu0
  syscall openat AT_FDCWD "/var/tmp/g" O_RDWR|O_CREAT 0 as fd
  syscall ftruncate fd 1048576
  syscall mmap 0 8192 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as buf
  thread reader
    sleep 20us
    syscall read fd buf 4096 as n
    syscall lseek fd 0 SEEK_CUR as at
  syscall pread64 fd buf 4096 524288 as m
  sleep 5ms
  syscall lseek fd 0 SEEK_CUR as pos
`)
	got := map[string]uint64{}
	for _, tk := range r.S.Tasks {
		for k, v := range tk.Vars {
			if k != "fd" && k != "buf" {
				got[tk.Comm+"."+k] = v
			}
		}
	}
	// the thread keeps its process's comm: its variables are n and at
	want := map[string]uint64{"main.m": 4096, "main.pos": 4096, "main.n": 4096, "main.at": 4096}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("returns (-want +got):\n%s", d)
	}
}

// TestAppendWriteOfNothing: write(2) of 0 bytes to an O_APPEND file moves
// nothing (generic_write_checks_count() returns before IOCB_APPEND sets the
// position to i_size); a write of 1 byte moves f_pos to the new end.
func TestAppendWriteOfNothing(t *testing.T) {
	r, _ := runQuiet(t, "append.sim", `scenario append
cpus 1
task main cpu0
  syscall openat AT_FDCWD "/var/tmp/h" O_RDWR|O_CREAT|O_APPEND 0 as fd
  syscall ftruncate fd 100
  syscall mmap 0 4096 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as buf
  syscall write fd buf 0 as none
  syscall lseek fd 0 SEEK_CUR as after0
  syscall write fd buf 1 as one
  syscall lseek fd 0 SEEK_CUR as after1
`)
	got := r.S.Tasks[0].Vars
	delete(got, "fd")
	delete(got, "buf")
	if d := cmp.Diff(map[string]uint64{"none": 0, "after0": 0, "one": 1, "after1": 101}, got); d != "" {
		t.Errorf("returns (-want +got):\n%s", d)
	}
}
