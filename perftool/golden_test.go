package perftool

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "re-capture testdata/*.golden by running the real perf (root, perf in PATH)")

type goldenCase struct {
	name string
	args []string
}

func readCases(t *testing.T) []goldenCase {
	t.Helper()
	f, err := os.Open("testdata/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cs []goldenCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, args, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("bad case line %q", line)
		}
		cs = append(cs, goldenCase{name, strings.Fields(args)})
	}
	return cs
}

// goldenView keeps what the model renders: the attr blocks, the opens and
// the mmap sizes, up to the first failed open (perf's fallback retries are
// not modelled).
func goldenView(s string) string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if strings.HasPrefix(l, "exit ") {
			continue
		}
		out = append(out, l)
		if strings.HasPrefix(l, "sys_perf_event_open failed") {
			break
		}
	}
	return strings.Join(out, "\n") + "\n"
}

// TestGoldenPerf61 checks the model, in perf 6.1 mode, against what Debian
// perf 6.1 printed with -vv on a 2-CPU machine (testdata/capture.sh).
func TestGoldenPerf61(t *testing.T) {
	if *update {
		if _, err := exec.LookPath("perf"); err != nil || os.Geteuid() != 0 {
			t.Fatal("-update needs the real perf and root")
		}
		cmd := exec.Command("sh", "testdata/capture.sh", "testdata/cases.txt", "testdata")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("capture: %v\n%s", err, out)
		}
	}
	opts := DefaultOptions()
	opts.Tool = ToolPerf61
	for _, c := range readCases(t) {
		t.Run(c.name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", c.name+".golden"))
			if err != nil {
				t.Fatal(err)
			}
			r, err := Parse(c.args, opts)
			if err != nil {
				t.Fatalf("Parse(%q): %v", c.args, err)
			}
			var status int
			if i := strings.LastIndex(string(want), "exit "); i >= 0 {
				fmt.Sscanf(string(want[i:]), "exit %d", &status)
			}
			if status != 0 { // perf gave up before opening anything: only its exit status is kept
				if r.Exit == nil || r.Exit.Status != status {
					t.Errorf("perf record %s: perf 6.1 exits %d, the model %v", strings.Join(c.args, " "), status, r.Exit)
				}
				return
			}
			if diff := cmp.Diff(goldenView(string(want)), r.Verbose(opts.NrCPUs)); diff != "" {
				t.Errorf("perf record %s (-perf6.1 +model):\n%s", strings.Join(c.args, " "), diff)
			}
		})
	}
}
