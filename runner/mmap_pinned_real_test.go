package runner

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"perfsim/scenarios"
)

// TestPinnedOtherMMMatchesThisMachine: the built-in mmap-pinned-other-mm
// charges the helper's mm and takes the charge back from the parent's as
// this machine's kernel did for a fresh unprivileged user
// (testdata/realkernel/pinnedmove.txt, made by pinnedmove.sh): the helper's
// VmPin after it maps the 1 + 1024 page ring first, and the parent's after
// its munmap() was the ring's last close, which /proc prints unsigned (2^64
// minus the pages taken). The test states each real figure as the
// built-in's outcome and runs it.
func TestPinnedOtherMMMatchesThisMachine(t *testing.T) {
	f, err := os.Open("testdata/realkernel/pinnedmove.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var helper, parent int64
	var parentRaw uint64
	found := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() && found < 2 {
		var pages int
		if _, err := fmt.Sscanf(sc.Text(), "round 0: helper maps %d pages: helper VmPin %d kB", &pages, &helper); err == nil && pages == 1025 {
			found |= 1
		}
		if _, err := fmt.Sscanf(sc.Text(), "round 0: after the last munmap here: VmPin %d kB", &parentRaw); err == nil && found&1 != 0 {
			parent = int64(parentRaw) // the kernel's atomic64_t, printed as an unsigned long
			found |= 2
		}
	}
	if found != 3 || helper <= 0 || parent >= 0 {
		t.Fatalf("testdata/realkernel/pinnedmove.txt: want a round 0 with the helper's VmPin of a 1025-page ring and the parent's below zero after it; got helper %d kB, parent %d kB", helper, parent)
	}
	src, err := scenarios.Open("mmap-pinned-other-mm")
	if err != nil {
		t.Fatal(err)
	}
	outHelper, outParent := "always mmap.pinned-vm == 767 at 150us", "always mmap.pinned-vm-min == -767 at end"
	if !strings.Contains(string(src.Src), "  mmap ev 1024 ") || !strings.Contains(string(src.Src), outHelper) || !strings.Contains(string(src.Src), outParent) {
		t.Fatal("mmap-pinned-other-mm no longer maps 1 + 1024 pages, or no longer states the helper's and the parent's pinned pages")
	}
	// the model's pages are this machine's VmPin, in kB
	text := strings.Replace(string(src.Src), outHelper, fmt.Sprintf("always mmap.pinned-vm * 4 == %d at 150us", helper), 1)
	text = strings.Replace(text, outParent, fmt.Sprintf("always mmap.pinned-vm-min * 4 == %d at end", parent), 1)
	g, err := Load(&scenarios.Source{Name: "mmap-pinned-other-mm.sim", Src: []byte(text)})
	if err != nil {
		t.Fatal(err)
	}
	_, res, err := RunOnce(g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed {
		var b strings.Builder
		res.WriteText(&b, g)
		t.Errorf("this machine pinned %d kB in the helper's mm and left the parent's at %d kB; the model:\n%s", helper, parent, b.String())
	}
}
