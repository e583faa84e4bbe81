package runner

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"perfsim/sim"
)

// TestColdReadTiming: a cold file of 1000 pages read page by page through
// a private mapping takes about as long on the model's disk (the cost
// model's DiskRead: cost/testdata/diskread.txt) as on the real one
// (mm/testdata/filefaults/timing.txt, five runs at each read_ahead_kb):
// within a factor of 1.5 of the real median, at read_ahead_kb 128 (the
// reader waits for each 128 KB window, whose reads overlap in their
// latency) and 8192 (one read of the whole file), with the real faults.
// The waits are not the real ones: the model sleeps once a window (32
// times at 128), the real reader 8 to 17 times (3 at 8192, 1 simulated).
func TestColdReadTiming(t *testing.T) {
	fh, err := os.Open("../mm/testdata/filefaults/timing.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	wall := map[int][]float64{}
	faults := map[int][2]int{}
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		var kb, n, nvcsw, minflt, majflt int
		var us float64
		if _, err := fmt.Sscanf(sc.Text(), "read_ahead_kb=%d n=%d nvcsw=%d minflt=%d majflt=%d wall_us=%f", &kb, &n, &nvcsw, &minflt, &majflt, &us); err == nil {
			wall[kb] = append(wall[kb], us)
			faults[kb] = [2]int{minflt, majflt}
		}
	}
	for _, kb := range []int{128, 8192} {
		src := fmt.Sprintf(`scenario cold-read
cpus 1
kernel read-ahead-kb=%d timer-slack=0
task w cpu0
  syscall openat AT_FDCWD "/var/tmp/timing" O_RDWR|O_CREAT 0600 as fd
  syscall ftruncate fd 4096000
  syscall mmap 0 4096000 PROT_READ MAP_PRIVATE fd 0 as p
  touch p 1000
`, kb)
		r, res := runQuiet(t, "cold-read.sim", src)
		ws := wall[kb]
		if len(ws) < 5 {
			t.Fatalf("read_ahead_kb %d: %d real runs in timing.txt", kb, len(ws))
		}
		slices.Sort(ws)
		median := ws[len(ws)/2]
		got := float64(res.End) / float64(sim.Microsecond)
		if got < median/1.5 || got > median*1.5 {
			t.Errorf("read_ahead_kb %d: the simulated read ends at %.0f us, the real median is %.0f us (%v)", kb, got, median, ws)
		}
		w := r.Tasks["w"]
		if real := faults[kb]; real[1] != int(w.MajFlt) || real[0] < int(w.MinFlt)-1 || real[0] > int(w.MinFlt)+1 {
			t.Errorf("read_ahead_kb %d: %d minor and %d major faults, real %d and %d", kb, w.MinFlt, w.MajFlt, real[0], real[1])
		}
		t.Logf("read_ahead_kb %d: simulated %.0f us, real %s us", kb, got, strings.Trim(fmt.Sprint(ws), "[]"))
	}
}

// TestTruncateZaps: ftruncate() shrinking a file a task has mapped and
// touched zaps the PTEs past the new size: the task's next touch of them
// faults, past EOF, and the task dies (SIGBUS: the model's bad access).
func TestTruncateZaps(t *testing.T) {
	for _, tc := range []struct {
		size      int
		segfaults bool
	}{{16384, false}, {4096, true}} {
		src := fmt.Sprintf(`scenario truncate-zaps
cpus 1
task w cpu0
  syscall openat AT_FDCWD "/var/tmp/t" O_RDWR|O_CREAT 0 as fd
  syscall ftruncate fd 16384
  syscall mmap 0 16384 PROT_READ MAP_SHARED fd 0 as p
  touch p 4
  syscall ftruncate fd %d
  touch p 2
`, tc.size)
		r, _ := runQuiet(t, "truncate.sim", src)
		if w := r.Tasks["w"]; w.Segfaulted != tc.segfaults {
			t.Errorf("truncated to %d: the second touch killed w %v, want %v", tc.size, w.Segfaulted, tc.segfaults)
		}
	}
}

// TestTruncateReadOnly: ftruncate() of an fd opened O_RDONLY fails
// (do_ftruncate(): EINVAL), so the file keeps its size and a touch of its
// mapping does not die.
func TestTruncateReadOnly(t *testing.T) {
	src := `scenario truncate-ro
cpus 1
task w cpu0
  syscall openat AT_FDCWD "/var/tmp/t" O_RDWR|O_CREAT 0 as fd
  syscall ftruncate fd 16384
  syscall mmap 0 16384 PROT_READ MAP_SHARED fd 0 as p
  syscall openat AT_FDCWD "/var/tmp/t" O_RDONLY 0 as rd
  syscall ftruncate rd 0
  touch p 4
`
	r, _ := runQuiet(t, "truncate-ro.sim", src)
	if r.Tasks["w"].Segfaulted {
		t.Error("the O_RDONLY ftruncate() truncated the file: the touch died")
	}
}
