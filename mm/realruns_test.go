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
