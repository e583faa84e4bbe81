package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/scenarios"
)

const keepScenario = `scenario keep
cpus 2
task bench cpu1
  repeat 2000
    syscall close
record -e 'raw_syscalls:*' -- bench
always perf.samples + rb.lost >= samples
`

// TestPerfDataKeep: a perf.data over the keep budget is counted, not kept:
// the observables are those of a run that keeps it all; perf script and
// WritePerfData refuse it, saying why; with PerfDataDir the data section is
// spooled and the file written is byte for byte the one of a run that kept
// everything in memory.
func TestPerfDataKeep(t *testing.T) {
	f, err := Load(&scenarios.Source{Name: "keep.sim", Src: []byte(keepScenario)})
	if err != nil {
		t.Fatal(err)
	}
	whole := t.TempDir()
	rAll, resAll, err := RunOnce(f, Options{PerfDataKeep: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rAll.WritePerfData(whole); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(whole, "perf.data"))
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 64<<10 {
		t.Fatalf("perf.data is %d bytes: too small for a 16K budget to matter", len(want))
	}

	r, res, err := RunOnce(f, Options{PerfDataKeep: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(resAll.Observables, res.Observables); diff != "" {
		t.Errorf("observables (-kept +counted):\n%s", diff)
	}
	if len(res.Messages) != 1 || !strings.Contains(res.Messages[0], "keep.sim:6:1: note: perf.data of ") ||
		!strings.Contains(res.Messages[0], "over the 16K kept in memory") {
		t.Errorf("messages %q, want the note that perf.data was not kept", res.Messages)
	}
	var sb strings.Builder
	if err := r.Script(&sb); err == nil || !strings.Contains(err.Error(), "session 1 (line 6): perf script: the perf.data is") {
		t.Errorf("Script = %v, want the refusal", err)
	}
	if _, err := r.WritePerfData(t.TempDir()); err == nil || !strings.Contains(err.Error(), "was not kept") {
		t.Errorf("WritePerfData = %v, want the refusal", err)
	}

	dir := t.TempDir()
	r, _, err = RunOnce(f, Options{PerfDataKeep: 16 << 10, PerfDataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.WritePerfData(dir); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "perf.data"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("spooled perf.data (%d bytes) differs from the one kept in memory (%d bytes)", len(got), len(want))
	}
	// perf.data and the synthetic images (usr/local/bin/TASK, vmlinux):
	// no spool (it is unnamed).
	var names []string
	if ents, _ := os.ReadDir(dir); ents != nil {
		for _, e := range ents {
			names = append(names, e.Name())
		}
	}
	if d := cmp.Diff([]string{"perf.data", "usr", "vmlinux"}, names); d != "" {
		t.Errorf("%s holds (-want +got):\n%s", dir, d)
	}
}

// TestPerfDataOpenFailed: perf record whose perf_event_open() fails gives
// up in record__open(), after it created perf.data and before it wrote its
// header: the file is left empty, as the real perf 6.1 leaves it (`perf
// record -e cpu-clock --call-graph lbr -- true` on this machine: exit 255,
// 0 bytes), and the session says perf's words.
func TestPerfDataOpenFailed(t *testing.T) {
	src := "scenario lbr\ncpus 2\ntask workload cpu1\n  compute 1ms\nrecord -e cpu-clock --call-graph lbr -- workload\n"
	f, err := Load(&scenarios.Source{Name: "lbr.sim", Src: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	r, res, err := RunOnce(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths, err := r.WritePerfData(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "perf.data"))
	if err != nil || st.Size() != 0 || len(paths) != 1 {
		t.Errorf("perf.data: %v, %v (paths %q), want an empty file", st, err, paths)
	}
	want := "lbr.sim:5:1: perf record gave up (perf.error=1): cpu-clock: PMU Hardware or event type doesn't support branch stack sampling."
	if len(res.Messages) != 1 || !strings.HasPrefix(res.Messages[0], want) {
		t.Errorf("messages %q, want one starting %q", res.Messages, want)
	}
}
