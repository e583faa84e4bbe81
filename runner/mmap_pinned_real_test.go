package runner

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"perfsim/scenarios"
)

// TestPinnedOtherMMMatchesThisMachine: the built-in mmap-pinned-other-mm,
// pinnedmove.sh's three rounds as an unprivileged user, charges and
// uncharges pinned_vm as this machine's kernel did for a fresh
// unprivileged user (testdata/realkernel/pinnedmove.txt, made by
// pinnedmove.sh, its 3-round run): the first helper's VmPin after it maps
// the 1 + 1024 page ring first; the parent's after its third round's
// munmap(), which /proc prints unsigned (2^64 minus the pages taken); and
// the 16 MiB ring mapped after the rounds. The test states each real
// figure as the built-in's outcome and runs it.
func TestPinnedOtherMMMatchesThisMachine(t *testing.T) {
	f, err := os.Open("testdata/realkernel/pinnedmove.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	helper, parent := int64(-1), int64(0)
	mapped := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var pages int
		var kb int64
		var raw uint64
		if _, err := fmt.Sscanf(sc.Text(), "round 0: helper maps %d pages: helper VmPin %d kB", &pages, &kb); err == nil && pages == 1025 && helper < 0 {
			helper = kb
		}
		if _, err := fmt.Sscanf(sc.Text(), "round 2: after the last munmap here: VmPin %d kB", &raw); err == nil {
			parent = int64(raw) // the kernel's atomic64_t, printed as an unsigned long
		}
		if strings.HasPrefix(sc.Text(), "rounds 3: fresh 4097 pages: mapped") {
			mapped = true
		}
	}
	if helper <= 0 || parent >= 0 || !mapped {
		t.Fatalf("testdata/realkernel/pinnedmove.txt: want the first helper's VmPin of a 1025-page ring, the parent's below zero after round 2, and the 16 MiB ring mapped after 3 rounds; got helper %d kB, parent %d kB, mapped %v", helper, parent, mapped)
	}
	src, err := scenarios.Open("mmap-pinned-other-mm")
	if err != nil {
		t.Fatal(err)
	}
	outHelper, outParent, outMapped := "always mmap.pinned-vm == 767 at 1ms", "always mmap.pinned-vm-min == -2817 at end", "always fd.errors == 0 "
	for _, s := range []string{"  repeat 3\n", "      mmap ev 1024 ", "  mmap big 4096 ", "user unprivileged", outHelper, outParent, outMapped} {
		if !strings.Contains(string(src.Src), s) {
			t.Fatalf("mmap-pinned-other-mm no longer has %q: the rounds, the rings or the outcomes this test states the machine's figures in", s)
		}
	}
	// the model's pages are this machine's VmPin, in kB
	text := strings.Replace(string(src.Src), outHelper, fmt.Sprintf("always mmap.pinned-vm * 4 == %d at 1ms", helper), 1)
	text = strings.Replace(text, outParent, fmt.Sprintf("always mmap.pinned-vm-min * 4 == %d at end", parent), 1)
	if out := failedText(t, "mmap-pinned-other-mm.sim", text); out != "" {
		t.Errorf("this machine pinned %d kB in the first helper's mm, left the parent's at %d kB after three rounds and mapped the 16 MiB ring; the model:\n%s", helper, parent, out)
	}
}
