package perftool

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/uapi"
)

// Breakpoint events as perf's parser reads them (the cases of
// tools/perf/tests/parse-events.c: test__checkevent_breakpoint*).
func TestParseBreakpointEvent(t *testing.T) {
	type bp struct {
		Name                string
		Type, BPType        uint32
		Addr, Len, Period   uint64
		ExclKernel, ExclUsr bool
	}
	for _, tc := range []struct {
		arg  string
		want bp
		err  string
	}{
		{"mem:0", bp{"mem:0x0:rw", uapi.PERF_TYPE_BREAKPOINT, pmu.HW_BREAKPOINT_RW, 0, 4, 1, false, false}, ""},
		{"mem:0x1000:w", bp{"mem:0x1000:w", uapi.PERF_TYPE_BREAKPOINT, pmu.HW_BREAKPOINT_W, 0x1000, 4, 1, false, false}, ""},
		{"mem:0:x", bp{"mem:0x0:x", uapi.PERF_TYPE_BREAKPOINT, pmu.HW_BREAKPOINT_X, 0, 8, 1, false, false}, ""},
		{"mem:0/1", bp{"mem:0x0:rw", uapi.PERF_TYPE_BREAKPOINT, pmu.HW_BREAKPOINT_RW, 0, 1, 1, false, false}, ""},
		{"mem:0x2000/8:w", bp{"mem:0x2000:w", uapi.PERF_TYPE_BREAKPOINT, pmu.HW_BREAKPOINT_W, 0x2000, 8, 1, false, false}, ""},
		{"mem:0:u", bp{"mem:0x0:rw:u", uapi.PERF_TYPE_BREAKPOINT, pmu.HW_BREAKPOINT_RW, 0, 4, 1, true, false}, ""},
		{"mem:0:rw:k", bp{"mem:0x0:rw:k", uapi.PERF_TYPE_BREAKPOINT, pmu.HW_BREAKPOINT_RW, 0, 4, 1, false, true}, ""},
		{"mem:0/4:rw/name=breakpoint/u", bp{"breakpoint", uapi.PERF_TYPE_BREAKPOINT, pmu.HW_BREAKPOINT_RW, 0, 4, 1, true, false}, ""},
		{"mem:0:ww", bp{}, "event syntax error: 'mem:0:ww'"},
		{"mem:zz", bp{}, "event syntax error: 'mem:zz'"},
		{"mem:0:rwxr", bp{}, "event syntax error: 'mem:0:rwxr'"},
	} {
		p := &eventParser{opts: &Options{NrCPUs: 1}}
		err := p.parse(tc.arg)
		if tc.err != "" {
			if err == nil || err.(*Error).Reason != tc.err {
				t.Errorf("%s: error %v, want %q", tc.arg, err, tc.err)
			}
			continue
		}
		if err != nil || len(p.evsels) != 1 {
			t.Fatalf("%s: %v (%d evsels)", tc.arg, err, len(p.evsels))
		}
		e := p.evsels[0]
		got := bp{e.Name, e.Attr.Type, e.Attr.BPType, e.Attr.Config1, e.Attr.Config2, e.Attr.SamplePeriod, e.Attr.ExcludeKernel, e.Attr.ExcludeUser}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.arg, d)
		}
	}
}

// FuzzParseBreakpoint: the breakpoint parser never panics, and what it
// accepts has a type perf allows and a length it set.
func FuzzParseBreakpoint(f *testing.F) {
	for _, s := range []string{"mem:0", "mem:0x1000/8:w", "mem:0:rw:kp", "mem:0/4:rw/name=bp/u", "mem:", "mem:0/:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, _, _, _, _, ok := parseBreakpoint(s)
		if ok && (a.BPType == 0 || a.BPType > 7 || a.Config2 == 0 || a.Type != uapi.PERF_TYPE_BREAKPOINT) {
			t.Errorf("%q: accepted with bp_type %d bp_len %d type %d", s, a.BPType, a.Config2, a.Type)
		}
		p := &eventParser{opts: &Options{NrCPUs: 1}}
		_ = p.parse(s)
	})
}
