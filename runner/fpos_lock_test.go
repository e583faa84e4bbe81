package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFposLockSerialisesReaders: two threads read(2) one file 4096 bytes
// at a time, the file cold (a read waits in D for the disk, and the other
// runs meanwhile). read(2) holds the file's f_pos_lock from fdget_pos() to
// fdput_pos(), so the second reader waits for the first to store f_pos
// back and reads after it: f_pos ends at the sum of what both read, as on
// this machine (two threads, 20,000 reads of 4096 each, 5 runs: f_pos =
// 163,840,000 every time). Without the lock both read at the f_pos they
// found and stored their own back: f_pos ended at 45,056 of the 65,536
// bytes read.
func TestFposLockSerialisesReaders(t *testing.T) {
	r, _ := runQuiet(t, "fpos.sim", `scenario fpos
cpus 2
task main
  syscall openat AT_FDCWD "/var/tmp/fpos" O_RDWR|O_CREAT 0600 as fd
  syscall ftruncate fd 1048576
  syscall mmap 0 8192 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as buf
  thread a
    repeat 8
      syscall read fd buf 4096
  thread b
    repeat 8
      syscall read fd buf 4096
  sleep 50ms
  syscall lseek fd 0 SEEK_CUR as pos
`)
	if d := cmp.Diff(map[string]int64{"pos": 16 * 4096}, returns(r, "fd", "buf")); d != "" {
		t.Errorf("f_pos after both readers (-want +got):\n%s", d)
	}
}
