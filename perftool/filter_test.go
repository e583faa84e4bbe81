package perftool

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// perf record --filter for an AUX tracer: the tool's grammar
// (tools/perf/util/auxtrace.c: parse_one_filter(), parse_action(),
// parse_num_or_str(), addr_filter__resolve_syms(), addr_filter__str()) and
// the kernel string it writes; symbols from a table like the images'.
func TestToolAddrFilters(t *testing.T) {
	syms := map[string]uint64{"main": 0x1000, "worker": 0x1770}
	resolve := func(name, path string) (uint64, uint64, bool) {
		a, ok := syms[name]
		if path == "" {
			a += 0xffffffff81000000
		}
		return a, 0x10, ok
	}
	const usage = "Filter format is: filter|start|stop|tracestop <start symbol or address> [/ <end symbol or size>] [@<file name>]\n" +
		"Where multiple filters are separated by space or comma.\n"
	for _, tc := range []struct{ in, want, err string }{
		{in: "filter 0x1000/0x100 @ /bin/app", want: "filter 0x1000/0x100@/bin/app"},
		{in: "filter 0x1000 / 256@/bin/app", want: "filter 0x1000/0x100@/bin/app"},
		{in: "filter worker @ /usr/local/bin/app", want: "filter 0x1770/0x10@/usr/local/bin/app"},
		{in: "filter main / worker @ /usr/local/bin/app", want: "filter 0x1000/0x780@/usr/local/bin/app"},
		{in: "tracestop worker @ /usr/local/bin/app", want: "stop 0x1770/0x10@/usr/local/bin/app"},
		{in: "start worker @ /a, stop main @ /a", want: "start 0x1770@/a,stop 0x1000@/a"},
		{in: "filter worker", want: "filter 0xffffffff81001770/0x10"}, // the kernel's
		{in: "filter 0x1000", want: "filter 0x1000/0x0"},              // the kernel refuses it (EINVAL)
		{in: "stop 010", want: "stop 0x8"},
		{in: "frob 0x1000/8", err: "Failed to parse address filter: 'frob 0x1000/8'\n" + usage},
		{in: "filter", err: "Failed to parse address filter: 'filter'\n" + usage},
		{in: "filter 0x1000/8 @", err: "Failed to parse address filter: 'filter 0x1000/8 @'\n" + usage},
		{in: "filter 0x1000/8@1app", err: "Failed to parse address filter: 'filter 0x1000/8@1app'\n" + usage},
		{in: "filter 0x10000000000000000/8", err: "Failed to parse address filter: 'filter 0x10000000000000000/8'\n" + usage},
		{in: "filter 0x1000/8x", err: "Failed to parse address filter: 'filter 0x1000/8x'\n" + usage},
		{in: "filter nosuch @ /a", err: "Symbol 'nosuch' not found.\nNote that symbols must be functions.\nFailed to parse address filter: 'filter nosuch @ /a'\n" + usage},
		{in: "filter worker / main @ /a", err: "Start address 0x1770 is greater than end address\nFailed to parse address filter: 'filter worker / main @ /a'\n" + usage},
	} {
		got, err := parseToolAddrFilters(tc.in, resolve)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if d := cmp.Diff(tc.want+"|"+tc.err, got+"|"+gotErr); d != "" {
			t.Errorf("%q (-want +got):\n%s", tc.in, d)
		}
	}
}

// The command-line mistakes perf 6.1 stops at before it opens anything.
func TestRecordFilterErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-e", "cycles", "--filter", "filter 0x1000/8", "--", "app"}, "This CPU does not support address filtering\n"},
		{[]string{"-e", "intel_pt//", "--filter", "frob", "--", "app"}, "Failed to parse address filter: 'frob'\n"},
	} {
		r, err := Parse(tc.args, Options{NrCPUs: 1})
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if r.Exit == nil || !strings.HasPrefix(r.Exit.Text, tc.want) {
			t.Errorf("%q: exit %+v, want one starting %q", tc.args, r.Exit, tc.want)
		}
	}
	// --filter before any -e is a mistake in the command line itself (the
	// option's callback refuses it): an error at the option, as perf's
	// parse_options() stops at it.
	if _, err := Parse([]string{"--filter", "filter 0x1000/8", "-e", "intel_pt//", "--", "app"}, Options{NrCPUs: 1}); err == nil ||
		!strings.Contains(err.Error(), "--filter option should follow a -e tracepoint or HW tracer option") {
		t.Errorf("--filter before -e: %v", err)
	}
	// A tracepoint's filters are ANDed; an AUX tracer's joined by commas.
	r, err := Parse([]string{"-e", "intel_pt//u", "--filter", "filter 0x1000/8@/a", "--filter", "stop 0x2000/8@/a", "--", "app"}, Options{NrCPUs: 1})
	if err != nil || r.Exit != nil {
		t.Fatalf("%v %+v", err, r.Exit)
	}
	if got := r.Evsels[0].Filter; got != "filter 0x1000/8@/a,stop 0x2000/8@/a" {
		t.Errorf("intel_pt filter %q", got)
	}
}

// The fuzz target of the tool's parser: no panic; what it accepts without
// symbols is the kernel's grammar again (it parses to itself).
func FuzzToolAddrFilters(f *testing.F) {
	for _, s := range []string{"filter 0x1000/0x100 @ /bin/app", "tracestop main @ /a", "start 1,stop 2", "filter a / b", "@", "/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := parseToolAddrFilters(s, func(string, string) (uint64, uint64, bool) { return 0x1000, 0x10, true })
		if err != nil {
			if !strings.Contains(err.Error(), "Failed to parse address filter: '") {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		again, err := parseToolAddrFilters(out, nil)
		if err != nil || again != out {
			t.Fatalf("%q -> %q -> %q, %v", s, out, again, err)
		}
	})
}
