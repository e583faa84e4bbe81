package runner

import (
	"os/exec"
	"strings"
	"testing"

	"perfsim/perftool"
)

// perf61 returns the path of the real perf 6.1 on the PATH, or skips the
// test, saying why the real perf is its judge.
func perf61(t *testing.T, judge string) string {
	t.Helper()
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("no perf on the PATH: " + judge)
	}
	if v, err := exec.Command(perf, "version").Output(); err != nil || !strings.HasPrefix(string(v), "perf version 6.1.") {
		t.Skipf("perf here is %q, not perf 6.1", strings.TrimSpace(string(v)))
	}
	return perf
}

// recordBuiltin61 runs a built-in (or a scenario file) as perf 6.1 records it and writes its one
// perf.data (and the images beside it) into a temporary directory: the run,
// the directory (perf's --symfs) and the perf.data path.
func recordBuiltin61(t *testing.T, name string) (r *Run, dir, path string) {
	t.Helper()
	f, err := Open(name)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	r, _, err = RunOnce(f, Options{Knobs: map[string]string{perftool.PerfVersionKnob.Name: "6.1"}, PerfDataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	paths, err := r.WritePerfData(dir)
	if err != nil || len(paths) != 1 {
		t.Fatalf("perf.data: %v %v", paths, err)
	}
	return r, dir, paths[0]
}
