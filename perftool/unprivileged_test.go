package perftool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/uapi"
)

// realUnprivileged is what perf 6.1 printed on this machine, run as an
// unprivileged user (testdata/unprivileged/NAME: the kernel, perf version
// and command on its "# " lines, then perf's stderr, then its exit
// status): the text, without the usage perf prints after a parse error
// (the model's ExitError stops at "Run 'perf list'..."), and the status.
func realUnprivileged(t *testing.T, name string) (text, status string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "unprivileged", name))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if s, ok := strings.CutPrefix(l, "# exit status "); ok {
			status = s
		} else if !strings.HasPrefix(l, "# ") {
			lines = append(lines, l)
		}
	}
	text = strings.Join(lines, "\n") + "\n"
	if i := strings.Index(text, "\n Usage: perf record"); i >= 0 {
		text = text[:i]
	}
	return text, status
}

// TestOpenStrerrorParanoid: perf's text for an open the kernel refused
// under perf_event_paranoid, as perf 6.1 printed it here for -a (a CPU-wide
// event: perf_allow_cpu()) and for cpu-clock:k (kernel profiling, no
// fallback since the event excludes user space), after "Error:"; exit 255.
func TestOpenStrerrorParanoid(t *testing.T) {
	for _, name := range []string{"record-a.txt", "record-k.txt"} {
		want, status := realUnprivileged(t, name)
		e := &Evsel{Name: "cpu-clock:u", Attr: pmu.Attr{ExcludeKernel: true, ExcludeHV: true}}
		got := "Error:\n" + openStrerror(e, &Target{}, ToolPerf61, uapi.EACCES, 2) + "\n"
		if d := cmp.Diff(want, got); d != "" || status != "255" {
			t.Errorf("%s: status %s, want 255 (the model's OpenError); text (-real +model):\n%s", name, status, d)
		}
	}
	// EPERM's line overwrites the start of the text (evsel__open_strerror()'s
	// "scnprintf(msg, size, ...)"), and its NUL ends it there
	e := &Evsel{Name: "cycles"}
	if d := cmp.Diff("No permission to enable cycles event.\n\n", openStrerror(e, &Target{}, ToolToday, uapi.EPERM, 2)); d != "" {
		t.Errorf("EPERM (-want +got):\n%s", d)
	}
}

// TestTracefsDenied: an unprivileged perf cannot read tracefs, so a
// tracepoint event (one, or a glob after another event) is perf's parse
// error, marked at the -e string's start, and perf exits 129, as perf 6.1
// did here; a privileged parse opens it.
func TestTracefsDenied(t *testing.T) {
	for _, tc := range []struct{ file, event string }{
		{"record-tracepoint.txt", "syscalls:sys_enter_getpid"},
		{"record-glob.txt", "cpu-clock,syscalls:sys_enter_get*"},
	} {
		want, status := realUnprivileged(t, tc.file)
		opts := DefaultOptions()
		opts.Privileged = false
		r, err := Parse([]string{"-e", tc.event, "--", "true"}, opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.event, err)
		}
		if r.Exit == nil {
			t.Fatalf("%s: perf went on; it exits %s", tc.event, status)
		}
		if d := cmp.Diff(want, r.Exit.Text); d != "" || status != "129" || r.Exit.Status != 129 {
			t.Errorf("%s: status %d (real %s); text (-real +model):\n%s", tc.event, r.Exit.Status, status, d)
		}
		opts.Privileged = true
		if r, err := Parse([]string{"-e", tc.event, "--", "true"}, opts); err != nil || r.Exit != nil {
			t.Errorf("%s as root: %v, exit %v", tc.event, err, r.Exit)
		}
	}
}

// TestEvselFallback: the EACCES fallback's name and attr, and the cases it
// leaves alone, in evsel__fallback()'s order.
func TestEvselFallback(t *testing.T) {
	const msg = "kernel.perf_event_paranoid=2, trying to fall back to excluding kernel and hypervisor  samples"
	for _, tc := range []struct {
		name     string
		attr     pmu.Attr
		err      error
		paranoid int
		want     string // the new name; "" when there is no fallback
	}{
		{"cpu-clock", pmu.Attr{}, uapi.EACCES, 2, "cpu-clock:u"},
		{"cycles:P", pmu.Attr{PreciseIP: 3}, uapi.EACCES, 2, "cycles:Pu"},
		{"intel_pt//", pmu.Attr{}, uapi.EACCES, 2, "intel_pt//u"},
		{"cpu-clock:k", pmu.Attr{ExcludeUser: true, ExcludeHV: true}, uapi.EACCES, 2, ""},
		{"cpu-clock:u", pmu.Attr{ExcludeKernel: true, ExcludeHV: true}, uapi.EACCES, 2, ""}, // -a: refused again, no loop
		{"cpu-clock", pmu.Attr{}, uapi.EACCES, 1, ""},                                       // kernel profiling allowed: something else refused
		{"cpu-clock", pmu.Attr{}, uapi.EPERM, 2, ""},
	} {
		e := &Evsel{Name: tc.name, Attr: tc.attr}
		got, ok := evselFallback(e, tc.err, tc.paranoid)
		if ok != (tc.want != "") || (ok && (got != msg || e.Name != tc.want || !e.Attr.ExcludeKernel || !e.Attr.ExcludeHV)) {
			t.Errorf("%s (%v, paranoid %d): fallback %v %q, now %s %+v; want %q", tc.name, tc.err, tc.paranoid, ok, got, e.Name, e.Attr, tc.want)
		}
		if !ok && e.Name != tc.name {
			t.Errorf("%s: renamed %s without a fallback", tc.name, e.Name)
		}
	}
}
