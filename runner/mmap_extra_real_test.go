package runner

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"perfsim/scenarios"
)

// TestMmapExtraChargeMatchesThisMachine: the built-in mmap-extra-locked-vm
// with N extra mappings (its repeat count) charges a fresh 1 + 8 page ring to
// pinned_vm exactly as this machine's kernel did for a fresh unprivileged
// user (testdata/realkernel/mmapextra.txt, made by mmapextra.sh: VmPin after
// 10, 27, 28, 29 and 40 extra mappings). 28 is where the leak first
// pushes part of the ring over the allowance (258 pages: 252 + 9); from 29 on
// perf_mmap_calc_limits() caps the user's count at the limit, so the whole
// ring is pinned however far the leak goes.
func TestMmapExtraChargeMatchesThisMachine(t *testing.T) {
	f, err := os.Open("testdata/realkernel/mmapextra.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	real := map[int]int64{} // extra mappings -> VmPin kB of the fresh 9-page ring
	var big []string        // the 8 MiB ring's fate before and after 40 extra mappings
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var n, pages int
		var kb int64
		// 0 extra mappings (a repeat of 0 is no scenario) is the baseline: 10 shows it too
		if _, err := fmt.Sscanf(sc.Text(), "extra %d fresh %d pages: VmPin %d kB", &n, &pages, &kb); err == nil && pages == 9 && n > 0 {
			real[n] = kb
		}
		if strings.HasPrefix(sc.Text(), "extra 0 fresh 2049 pages: ") {
			big = append(big, strings.TrimPrefix(sc.Text(), "extra 0 fresh 2049 pages: "))
		}
	}
	// the built-in states the 8 MiB ring refused after 40 (EPERM: errno 1),
	// and mapped without the leak (pre-0c8a4e4139ad), as before them
	if len(big) != 2 || !strings.HasPrefix(big[0], "VmPin ") || !strings.HasPrefix(big[1], "mmap errno 1 ") {
		t.Fatalf("testdata/realkernel/mmapextra.txt: the 8 MiB ring %q; want it mapped before 40 extra mappings and refused with errno 1 (EPERM) after", big)
	}
	if len(real) < 5 {
		t.Fatalf("testdata/realkernel/mmapextra.txt: %d figures for a 9-page ring after extra mappings; want the five mmapextra.sh measures", len(real))
	}
	src, err := scenarios.Open("mmap-extra-locked-vm")
	if err != nil {
		t.Fatal(err)
	}
	const outcome = "  always mmap.pinned-vm == 9 at 1500us"
	const bigOutcome = "  always errno.EPERM == 1 && fd.errors == 1"
	if !strings.Contains(string(src.Src), "  repeat 40\n") || !strings.Contains(string(src.Src), outcome) || !strings.Contains(string(src.Src), bigOutcome) {
		t.Fatal("mmap-extra-locked-vm no longer repeats 40 times, or no longer states the fresh ring's pinned pages at 1500us and the 8 MiB ring refused")
	}
	for n, kb := range real {
		// the model's pinned pages are this machine's VmPin, in kB
		text := strings.Replace(string(src.Src), "  repeat 40\n", fmt.Sprintf("  repeat %d\n", n), 1)
		text = strings.Replace(text, "  always mmap.locked-vm == 360 at end", fmt.Sprintf("  always mmap.locked-vm == %d at end", 9*n), 1)
		text = strings.Replace(text, outcome, fmt.Sprintf("  always mmap.pinned-vm * 4 == %d at 1500us", kb), 1)
		if n != 40 {
			// the machine measured the 8 MiB ring after 40 only
			text = strings.Replace(text, bigOutcome, "  always errno.EPERM <= 1", 1)
		}
		if out := failedText(t, "mmap-extra-locked-vm.sim", text); out != "" {
			t.Errorf("after %d extra mappings this machine pinned %d kB of the fresh ring; the model:\n%s", n, kb, out)
		}
	}
}
