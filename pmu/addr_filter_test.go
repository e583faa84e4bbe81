package pmu

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"perfsim/mm"
	"perfsim/uapi"
)

// The grammar of perf_event_parse_addr_filter() as the kernel's code reads
// (kernel/events/core.c, if_tokens and the state machine; lib/parser.c
// match_one() with simple_strtoul(); kstrtoul() for the value): each row a
// string, the filters it gives on a per-task event, and the errno.
func TestParseAddrFilterGrammar(t *testing.T) {
	type F = AddrFilter
	const (
		filter = PERF_ADDR_FILTER_ACTION_FILTER
		start  = PERF_ADDR_FILTER_ACTION_START
		stop   = PERF_ADDR_FILTER_ACTION_STOP
	)
	for _, tc := range []struct {
		in    string
		want  []F
		errno uapi.Errno
	}{
		{in: "filter 0x1000/0x100@/bin/app", want: []F{{Action: filter, Offset: 0x1000, Size: 0x100, Path: "/bin/app"}}},
		{in: "filter 4096/256@/bin/app", want: []F{{Action: filter, Offset: 4096, Size: 256, Path: "/bin/app"}}},
		{in: "filter 010/010@/bin/app", want: []F{{Action: filter, Offset: 8, Size: 8, Path: "/bin/app"}}}, // octal
		{in: "filter 0xffffffff81000000/0x1000", want: []F{{Action: filter, Offset: 0xffffffff81000000, Size: 0x1000}}},
		{in: "start 0x1000@/bin/app", want: []F{{Action: start, Offset: 0x1000, Path: "/bin/app"}}},
		{in: "stop 0xffffffff81000000", want: []F{{Action: stop, Offset: 0xffffffff81000000}}},
		{in: "stop 0x10/0x20", want: []F{{Action: stop, Offset: 0x10, Size: 0x20}}},
		// separators: space, comma, newline, any number of them
		{in: "filter 0x10/8@/a,stop 0x20/8@/b", want: []F{{Action: filter, Offset: 0x10, Size: 8, Path: "/a"}, {Action: stop, Offset: 0x20, Size: 8, Path: "/b"}}},
		{in: " ,filter\n0x10/8 ,, stop   0x20 \n", want: []F{{Action: filter, Offset: 0x10, Size: 8}, {Action: stop, Offset: 0x20}}},
		// an empty string is no filter: it clears the event's
		{in: "", want: nil},
		{in: " , \n", want: nil},
		// EINVAL: bad tokens and states
		{in: "filter", errno: uapi.EINVAL},                           // no source
		{in: "filter 0x1000", errno: uapi.EINVAL},                    // "filter" needs a size
		{in: "filter 0x1000/0@/bin/app", errno: uapi.EINVAL},         // ... not zero
		{in: "filter 0x1000@/bin/app", errno: uapi.EINVAL},           // ... nor missing
		{in: "0x1000/8", errno: uapi.EINVAL},                         // no action
		{in: "filter filter 0x1000/8", errno: uapi.EINVAL},           // two actions
		{in: "filter 0x1000/8 0x2000/8", errno: uapi.EINVAL},         // two sources
		{in: "tracestop 0x1000/8", errno: uapi.EINVAL},               // perf's word, not the kernel's
		{in: "FILTER 0x1000/8", errno: uapi.EINVAL},                  // case matters
		{in: "filter 0x1000/8@", errno: uapi.EINVAL},                 // %s must not be empty
		{in: "filter 0x1000/@/bin/app", errno: uapi.EINVAL},          // no size digits
		{in: "filter 0x1000/8x@/bin/app", errno: uapi.EINVAL},        // junk after the size
		{in: "filter 0x1000 /8", errno: uapi.EINVAL},                 // "/8" is no token
		{in: "filter 0xg/8", errno: uapi.EINVAL},                     // "0" read, then "xg" left
		{in: "filter -1/8", errno: uapi.EINVAL},                      // %u takes no sign
		{in: "filter +1/8", errno: uapi.EINVAL},                      // nor a plus
		{in: "filter 09/8", errno: uapi.EINVAL},                      // octal: 9 is no digit
		{in: "filter 0x1000/8@/dev/null", errno: uapi.EINVAL},        // not S_ISREG
		{in: "filter 0x10/8@/a stop", errno: uapi.EINVAL},            // a filter left half done
		{in: "filter\t0x10/8", errno: uapi.EINVAL},                   // a tab is no separator
		{in: "filter 0x10000000000000000/8", errno: uapi.ERANGE},     // kstrtoul: over 64 bits
		{in: "filter 0x10/0x10000000000000000", errno: uapi.ERANGE},  // ... the size too
		{in: "filter 18446744073709551616/1@/a", errno: uapi.ERANGE}, // decimal
		{in: "filter 18446744073709551615/1@/a", want: []F{{Action: filter, Offset: 1<<64 - 1, Size: 1, Path: "/a"}}},
	} {
		got, _, err := ParseAddrFilter(tc.in, true, func(p string) (*mm.File, error) {
			if strings.HasPrefix(p, "/dev/") {
				return nil, uapi.EINVAL
			}
			return nil, nil
		})
		var errno uapi.Errno
		if err != nil {
			var ae *AddrFilterError
			if !errors.As(err, &ae) {
				t.Fatalf("%q: error %v is no AddrFilterError", tc.in, err)
			}
			errno = ae.Errno
		}
		if errno != tc.errno {
			t.Errorf("%q: errno %v, want %v", tc.in, errno, tc.errno)
			continue
		}
		if d := cmp.Diff(tc.want, got, cmpopts.IgnoreUnexported(AddrFilter{}), cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%q (-want +got):\n%s", tc.in, d)
		}
	}
}

// A file filter on a CPU-wide event is EOPNOTSUPP ("For now, we only
// support file-based filters in per-task events"); a kernel one is fine.
func TestParseAddrFilterCPUWide(t *testing.T) {
	_, _, err := ParseAddrFilter("filter 0x1000/8@/bin/app", false, nil)
	if !errors.Is(err, uapi.EOPNOTSUPP) {
		t.Errorf("file filter on a CPU event: %v, want EOPNOTSUPP", err)
	}
	f, n, err := ParseAddrFilter("filter 0xffffffff81000000/8", false, nil)
	if err != nil || n != 0 || len(f) != 1 {
		t.Errorf("kernel filter on a CPU event: %v %d %v", f, n, err)
	}
}

// perf_addr_filter_vma_adjust(): the range of a filter in a mapping of its
// file, today and before c60f83b813e5; perf_addr_filter_match() takes a
// filter that starts exactly where a mapping ends as matching it, with a
// range of size 0.
func TestAddrFilterVMAAdjust(t *testing.T) {
	f := &mm.File{Path: "/bin/app"}
	text := &mm.VMA{Start: 0x555555555000, End: 0x555555556000, Pgoff: 1, File: f}
	head := &mm.VMA{Start: 0x555555554000, End: 0x555555555000, Pgoff: 0, File: f}
	for _, tc := range []struct {
		name   string
		filter AddrFilter
		vma    *mm.VMA
		old    bool
		match  bool
		want   AddrFilterRange
	}{
		{"inside the text", AddrFilter{Offset: 0x1770, Size: 0x10}, text, false, true, AddrFilterRange{0x555555555770, 0x10}},
		{"pre-c60f83b813e5: vm_pgoff ignored", AddrFilter{Offset: 0x1770, Size: 0x10}, text, true, true, AddrFilterRange{0x555555556770, 0x10}},
		{"starts before the mapping", AddrFilter{Offset: 0x800, Size: 0x1000}, text, false, true, AddrFilterRange{0x555555555000, 0x800}},
		{"runs past its end", AddrFilter{Offset: 0x1f00, Size: 0x1000}, text, false, true, AddrFilterRange{0x555555555f00, 0x100}},
		{"another file", AddrFilter{Offset: 0x1770, Size: 0x10}, &mm.VMA{Start: 0x1000, End: 0x2000, Pgoff: 1, File: &mm.File{}}, false, false, AddrFilterRange{}},
		{"at the end of the first mapping: size 0", AddrFilter{Offset: 0x1000, Size: 0x10}, head, false, true, AddrFilterRange{0x555555555000, 0}},
		{"past it", AddrFilter{Offset: 0x1001, Size: 0x10}, head, false, false, AddrFilterRange{}},
	} {
		tc.filter.file, tc.filter.Path = f, f.Path
		var got AddrFilterRange
		m := perfAddrFilterVMAAdjust(&tc.filter, tc.vma, &got, tc.old, false)
		if m != tc.match || got != tc.want {
			t.Errorf("%s: match %v range %#x, want %v %#x", tc.name, m, got, tc.match, tc.want)
		}
	}
}

// The fuzz target: the parser never panics; an accepted string prints back
// (in the kernel's canonical spelling) to one that parses to the same
// filters; a refused one names an errno the kernel returns.
func FuzzParseAddrFilter(f *testing.F) {
	for _, s := range []string{"filter 0x1000/0x100@/bin/app", "start 0x10@/a,stop 0x20/8", "filter 010/0x8",
		"filter 0x/8", "stop 0xffffffffffffffff", "filter 1/1@@", "filter 1/1@/a/b@c", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, _, err := ParseAddrFilter(s, true, nil)
		if err != nil {
			var ae *AddrFilterError
			if !errors.As(err, &ae) || (ae.Errno != uapi.EINVAL && ae.Errno != uapi.ERANGE) {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		var b strings.Builder
		for _, f := range got {
			fmt.Fprintf(&b, "%s %#x", f.Action, f.Offset)
			if f.Size != 0 {
				fmt.Fprintf(&b, "/%#x", f.Size)
			}
			if f.Path != "" {
				b.WriteString("@" + f.Path)
			}
			b.WriteString(",")
		}
		again, _, err := ParseAddrFilter(b.String(), true, nil)
		if err != nil {
			t.Fatalf("%q printed as %q: %v", s, b.String(), err)
		}
		if d := cmp.Diff(got, again, cmpopts.IgnoreUnexported(AddrFilter{}), cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("%q printed as %q parses differently (-first +again):\n%s", s, b.String(), d)
		}
	})
}

// ExampleParseAddrFilter parses what perf record --filter 'filter worker @
// /usr/local/bin/app' writes to the event.
func ExampleParseAddrFilter() {
	filters, nrFile, err := ParseAddrFilter("filter 0x1770/0x10@/usr/local/bin/app", true, nil)
	fmt.Println(filters[0].Action, fmt.Sprintf("%#x/%#x", filters[0].Offset, filters[0].Size), filters[0].Path, nrFile, err)
	_, _, err = ParseAddrFilter("filter 0x1770@/usr/local/bin/app", true, nil)
	fmt.Println(err)
	// Output:
	// filter 0x1770/0x10 /usr/local/bin/app 1 <nil>
	// address filter: Invalid argument at "0x1770@/usr/local/bin/app"
}
