package mm

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/uapi"
)

// fileFaultCase is one run of mm/testdata/filefaults/workload.c: a file of
// n pages mapped privately at pmdoff pages into a page table, each page
// touched once in order, the faults counted.
type fileFaultCase struct {
	raKB, n, pmdoff int
	mode            string // c|s|h (cold, sparse, hot) then r|w
}

// simulateFileFaults runs c on the model: a file of n pages (uncached for
// c and s; cached page by page, as write(2) leaves it, for h) on a device
// with read_ahead_kb c.raKB.
func simulateFileFaults(c fileFaultCase) (minor, major int) {
	fs := NewFS()
	fs.RAPages = uint64(c.raKB) * 1024 / PageSize
	f := fs.Lookup("/var/tmp/filefaults")
	f.Size = int64(c.n) * PageSize
	if c.mode[0] == 'h' {
		for i := 0; i < c.n; i++ {
			f.cache(uint64(i))
		}
	}
	m := New()
	prot, write := uint64(uapi.PROT_READ), c.mode[1] == 'w'
	if write {
		prot |= uapi.PROT_WRITE
	}
	base := uint64(0x7f0000000000) + uint64(c.pmdoff)*PageSize
	v, err := m.Mmap(base, uint64(c.n)*PageSize, prot, uapi.MAP_PRIVATE|uapi.MAP_FIXED, f, 0)
	if err != 0 {
		panic(err)
	}
	for i := 0; i < c.n; i++ {
		switch m.Access(v.Start+uint64(i)*PageSize, write) {
		case MinorFault:
			minor++
		case MajorFault:
			major++
		case BadAccess:
			panic("bad access")
		}
	}
	return minor, major
}

// TestFileFaultsReal: the model's fault-around, read-around, async
// readahead and large folios fault as often as the real kernel in every
// run of mm/testdata/filefaults/real.txt (6.18, ext4, read_ahead_kb 128
// and 8192: files of 16 to 3000 pages, cold, sparse and cached, read and
// written, at the address each run's mapping had in its page table):
// exactly, but for a cold file's read, which may fault once more on the
// real disk: the model's readahead is read by the time the fault that
// started it is retried (a sparse file's holes are: no I/O), while a real
// async window's I/O can still be in flight when the reader reaches it,
// and fault-around skips its locked folios (2 of the 30 cold reads at
// read_ahead_kb 128 here).
func TestFileFaultsReal(t *testing.T) {
	fh, err := os.Open("testdata/filefaults/real.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	raKB, runs, inFlight := 0, 0, 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		if _, err := fmt.Sscanf(line, "read_ahead_kb %d", &raKB); err == nil {
			continue
		}
		var c fileFaultCase
		var minor, major int
		if _, err := fmt.Sscanf(line, "%d %s pmdoff=%d minflt=%d majflt=%d", &c.n, &c.mode, &c.pmdoff, &minor, &major); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		c.raKB = raKB
		gotMinor, gotMajor := simulateFileFaults(c)
		if c.mode == "cr" && minor == gotMinor+1 {
			inFlight++
			gotMinor = minor
		}
		if d := cmp.Diff([2]int{minor, major}, [2]int{gotMinor, gotMajor}); d != "" {
			t.Errorf("read_ahead_kb %d, %s: minor and major faults (-real +model):\n%s", raKB, line, d)
		}
		runs++
	}
	if runs < 100 || inFlight > 3 {
		t.Fatalf("%d runs in real.txt, %d cold reads with a fault more than the model", runs, inFlight)
	}
}
