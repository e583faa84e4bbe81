package runner

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/perftool"
	"perfsim/uapi"
)

// realStderr is perf 6.1's stderr on this machine for one of
// perftool/testdata/unprivileged's commands (run as uid 1000), without
// the "# " lines that name the kernel, the command and the exit status.
func realStderr(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile("../perftool/testdata/unprivileged/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if !strings.HasPrefix(l, "# ") {
			out = append(out, l)
		}
	}
	return out
}

// TestUnprivilegedRecord: perf record run by an unprivileged user
// (perf_event_paranoid 2, no capabilities), as perf 6.1 ran on this
// machine as uid 1000:
//   - cpu-clock is refused by the kernel (kernel profiling: EACCES) and perf
//     falls back to cpu-clock:u, excluding the kernel and the hypervisor:
//     the same evsel, renamed, in the header too, its ids those of the
//     reopened fds only; only user-mode samples are taken;
//   - perf says so only with -v, in its words (record-v.txt), with the side
//     band's debug line (its CPU-wide dummies are refused too);
//   - -a is refused again after the fallback (perf_allow_cpu()): perf gives
//     up with EACCES's text, naming cpu-clock:u;
//   - -m 2048 maps more than RLIMIT_MEMLOCK allows beyond
//     perf_event_mlock_kb: perf's text (record-m2048.txt).
func TestUnprivilegedRecord(t *testing.T) {
	const body = `
cpus 2
task a cpu0
  repeat 20
    syscall getpid
    compute 50us
`
	run := func(user, record string) (map[string]int64, *perftool.Session) {
		t.Helper()
		got, r := runSrc(t, "scenario u\n"+user+body+record+"\n", "perf.samples", "perf.error")
		return got, r.Perf.(*pmuRun).sessions[0]
	}
	root, _ := run("", "record -e cpu-clock -c 10000 -- a")
	got, ss := run("user unprivileged\n", "record -e cpu-clock -c 10000 -- a")
	e, fa := ss.R.Evsels[0], ss.Data.Attrs[0]
	if e.Name != "cpu-clock:u" || fa.Name != e.Name || !e.Attr.ExcludeKernel || !e.Attr.ExcludeHV || fa.Attr != e.Attr {
		t.Errorf("evsel %s %+v, header %s %+v: want cpu-clock:u excluding the kernel and hypervisor in both", e.Name, e.Attr, fa.Name, fa.Attr)
	}
	if len(fa.IDs) != 2 {
		t.Errorf("ids %v: want one per CPU (the refused opens left none)", fa.IDs)
	}
	if got["perf.error"] != 0 || len(ss.Warnings) != 0 {
		t.Errorf("perf.error %d, warnings %q: perf goes on, and says nothing without -v", got["perf.error"], ss.Warnings)
	}
	if got["perf.samples"] == 0 || got["perf.samples"] >= root["perf.samples"] {
		t.Errorf("%d samples as an unprivileged user, %d as root: want fewer (the kernel's time excluded), not none", got["perf.samples"], root["perf.samples"])
	}

	// -v: perf's two lines, each as the model prints it (on one line)
	real := realStderr(t, "record-v.txt")
	var want []string
	for i, l := range real {
		switch l {
		case "Warning:":
			want = append(want, "Warning: "+real[i+1])
		case "Couldn't start the BPF side band thread:":
			want = append(want, l+" "+real[i+1])
		}
	}
	_, ss = run("user unprivileged\n", "record -v -e cpu-clock -c 10000 -- a")
	if d := cmp.Diff(want, ss.Warnings); d != "" || len(want) != 2 {
		t.Errorf("-v (-real +model):\n%s", d)
	}

	got, ss = run("user unprivileged\n", "record -a -e cpu-clock -- a")
	var oe *perftool.OpenError
	if !errors.As(ss.Err, &oe) || oe.Errno != uapi.EACCES || oe.Evsel != "cpu-clock:u" || oe.CPU != 0 || got["perf.error"] != 1 {
		t.Errorf("-a: %v (perf.error %d): want cpu-clock:u's open on cpu 0 refused with EACCES", ss.Err, got["perf.error"])
	}

	got, ss = run("user unprivileged\n", "record -m 2048 -e cpu-clock -- a")
	if ss.Err == nil || got["perf.error"] != 1 {
		t.Fatalf("-m 2048: perf went on (perf.error %d)", got["perf.error"])
	}
	if d := cmp.Diff(strings.Join(realStderr(t, "record-m2048.txt"), "\n"), ss.Err.Error()); d != "" {
		t.Errorf("-m 2048 (-real +model):\n%s", d)
	}
}
