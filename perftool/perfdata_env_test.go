package perftool

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// featureNames lists the feature bits set in features by name.
func featureNames(features uint64) []string {
	var out []string
	for b := uint(1); b < 64; b++ {
		if features&(1<<b) != 0 {
			out = append(out, FeatureName(b))
		}
	}
	return out
}

// TestFeaturesMatchRealPerfRecord: the header features of a simulated
// `perf record -e syscalls:sys_enter_close` (perf 6.1) are those the real
// perf 6.1 writes here for the same command line (the simulated workload
// calls getpid where the real `true` calls close: the samples, at the
// syscall's user regs, hit a dso with a build id in both, so both write
// BUILD_ID), but one the machines make differ:
// CPU_PMU_CAPS (this VM has no core PMU; the simulated machine's has caps).
// Skipped without perf 6.1 or where it cannot record the tracepoint.
func TestFeaturesMatchRealPerfRecord(t *testing.T) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("no perf on the PATH")
	}
	if v, err := exec.Command(perf, "version").Output(); err != nil || !strings.HasPrefix(string(v), "perf version 6.1.") {
		t.Skipf("perf here is %q, not 6.1", strings.TrimSpace(string(v)))
	}
	path := filepath.Join(t.TempDir(), "real.data")
	if out, err := exec.Command(perf, "record", "-q", "-o", path, "-e", "syscalls:sys_enter_close", "--", "true").CombinedOutput(); err != nil {
		t.Skipf("perf record here: %v\n%s", err, out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	real, err := ReadDataFile(b)
	if err != nil {
		t.Fatal(err)
	}
	ss := perf61Session(t, []string{"-e", "syscalls:sys_enter_getpid"})
	var w bytes.Buffer
	if err := ss.Data.WriteFile(&w); err != nil {
		t.Fatal(err)
	}
	sim, err := ReadDataFile(w.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	const machine = 1 << headerFeatCPUPMUCaps
	if d := cmp.Diff(featureNames(real.Features&^machine), featureNames(sim.Features&^machine)); d != "" {
		t.Errorf("features (-real +simulated):\n%s", d)
	}
}
