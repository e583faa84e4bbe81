package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestForkCopyOnWrite: a forked child sees what its parent's program bound
// (its copy of the parent's memory: here the mmap's address) and shares the
// parent's anonymous pages copy-on-write: reading them is free, the first
// write of each faults, on either side (copy_present_pte() write-protects
// both; do_wp_page()). Before, the child's p was 0 (one SIGSEGV fault) and
// no write after a fork faulted.
func TestForkCopyOnWrite(t *testing.T) {
	got, r := runSrc(t, `scenario cow
cpus 2
task w cpu0
  syscall mmap 0 16384 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as p
  touch p 4 write
  fork c
    touch p 4
    touch p 4 write
    touch p 4 write
    exit_group
  wait
  touch p 4 write
  exit_group
`, "task.w.minor-faults")
	for _, tk := range r.S.Tasks {
		if tk.Comm == "w" && tk != r.Tasks["w"] { // the forked child (a fork keeps the comm)
			got["child minor-faults"], got["child segfaulted"] = int64(tk.MinFlt), b2i(tk.Segfaulted)
		}
	}
	want := map[string]int64{"task.w.minor-faults": 4 + 4, "child minor-faults": 4, "child segfaulted": 0}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
