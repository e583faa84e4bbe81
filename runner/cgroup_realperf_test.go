package runner

import (
	"encoding/binary"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/perftool"
	"perfsim/rb"
	"perfsim/uapi"
)

// TestRealPerfReportsAllCgroups: the paired case all-cgroups (perf record
// --all-cgroups) written as perf 6.1 writes it; the real perf 6.1's perf
// report --sort cgroup names each sample's cgroup through the file's
// PERF_RECORD_CGROUPs (the two perf synthesized at its start) and counts
// what the model's samples say: the workload's start in the root, its loop
// in /perfsim-test after the move. Skipped without perf 6.1.
func TestRealPerfReportsAllCgroups(t *testing.T) {
	perf := perf61(t, "the real perf reads the cgroup ids of the simulated samples")
	_, _, path := recordBuiltin61(t, "../realperf/testdata/all-cgroups/case.sim")
	// The model's own count, from the file: CGROUP records name the ids,
	// samples carry them (one evsel: every record has its layout).
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	file, err := perftool.ReadDataFile(b)
	if err != nil {
		t.Fatal(err)
	}
	st := binary.LittleEndian.Uint64(file.Attrs[0].Attr[24:])
	names := map[uint64]string{}
	want := map[string]int{}
	for _, rec := range file.Records {
		switch binary.LittleEndian.Uint32(rec) {
		case uapi.PERF_RECORD_CGROUP:
			dec, err := rb.Decode(rec, st, true)
			if err != nil {
				t.Fatal(err)
			}
			c := dec.Sideband.(*rb.Cgroup)
			names[c.ID] = c.Path
		case uapi.PERF_RECORD_SAMPLE:
			dec, err := rb.Decode(rec, st, true)
			if err != nil {
				t.Fatal(err)
			}
			want[names[dec.Sample.Cgroup]]++
		}
	}
	if want["/"] == 0 || want["/perfsim-test"] == 0 {
		t.Fatalf("model samples by cgroup %v: want some in / and in /perfsim-test", want)
	}
	out, err := exec.Command(perf, "report", "-i", path, "--stdio", "-F", "sample,cgroup").CombinedOutput()
	if err != nil {
		t.Fatalf("perf report: %v\n%s", err, out)
	}
	got := map[string]int{}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) != 2 || strings.HasPrefix(l, "#") {
			continue
		}
		n, err := strconv.Atoi(f[0])
		if err != nil {
			t.Fatalf("perf report line %q", l)
		}
		got[f[1]] = n
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("samples per cgroup, model (-) vs perf report (+):\n%s\n%s", diff, out)
	}
}
