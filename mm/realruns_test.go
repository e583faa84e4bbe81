package mm

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
)

// realRuns calls run with each run line of a capture.sh's real.txt under
// testdata and the read_ahead_kb the lines before it set ("read_ahead_kb
// N"; '#' lines are comments), and returns how many runs there were.
func realRuns(t *testing.T, path string, run func(raKB int, line string)) int {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	raKB, runs := 0, 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		if _, err := fmt.Sscanf(line, "read_ahead_kb %d", &raKB); err == nil {
			continue
		}
		run(raKB, line)
		runs++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return runs
}

// cache puts page pgoff in f's page cache, as a read of it long done would
// have (an order-0 folio), and reports whether it was not there.
func (f *File) cache(pgoff uint64) bool { return f.addFolio(pgoff, 0) != nil }

// countFaults makes an access to each page of v at the page offsets pgs
// (a write with write) and counts the minor and major faults; a bad access
// panics (no real run took one).
func countFaults(m *MM, v *VMA, pgs []uint64, write bool) (minor, major int) {
	for _, pg := range pgs {
		switch m.Access(v.Start+pg*PageSize, write) {
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

// inOrder is the page offsets 0..n-1.
func inOrder(n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(i)
	}
	return out
}
