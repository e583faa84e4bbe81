package runner

import "testing"

// TestForkedChildMunmapsItsOwnMM: a munmap() reaches the VMAs of the
// caller's own mm only. A forked child (its own mm: perf_mmap() marks its
// VMAs VM_DONTCOPY, so the fork copied none) that unmaps the event its
// parent mapped finds nothing mapped, and the parent's mapping stays until
// the parent unmaps it; the child's own mapping is the child's to unmap.
// Before, the runner's munmap took the fd's newest mapping of any process.
func TestForkedChildMunmapsItsOwnMM(t *testing.T) {
	const src = `scenario munmap-own-mm
cpus 2
kernel cost-model=free data-race=off
task parent cpu0
  open ev -e task-clock
  mmap ev 8
  fork child
    migrate cpu1
    munmap ev                  # nothing of the child's: the parent's VMA is not in its mm
    mmap ev 8                  # its own, sharing the ring
    compute 10us
    munmap ev                  # its own
    exit
  sleep 5us
  compute 1us
  wait
  munmap ev                    # the parent's, the ring's last
  close ev
always fd.errors == 0
always fd.munmap-empty == 1
always fd.munmaps == 2
always mmap.closes == 1 at 12us
always mmap.closes == 2 at end
always mmap.teardowns == 1 at end
always !mlock-accounting      # the child's extra mapping's 9 pages (0c8a4e4139ad)
`
	if out := failedText(t, "munmap-own-mm.sim", src); out != "" {
		t.Fatal(out)
	}
}
