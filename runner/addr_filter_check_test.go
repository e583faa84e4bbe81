package runner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/scenarios"
)

// simrun check (Validate) notes each SET_FILTER address filter the kernel
// will refuse, at the filter's position, with the errno the ioctl returns
// at run time (TestSetAddrFilterErrnos): the same parser and driver check.
func TestCheckNotesAddrFilterErrnos(t *testing.T) {
	for _, tc := range []struct{ target, filter, want string }{
		{"", "filter 0x1000/0x100@/usr/local/bin/app", ""},
		{"", "filter 0xffffffff81000000/0x1000", ""},
		{"", "filter 0x1000/8@/a,filter 0x2000/8@/a,filter 0x3000/8@/a", `t.sim:4:23: ioctl pt SET_FILTER "filter 0x1000/8@/a,filter 0x2000/8@/a,filter 0x3000/8@/a": the kernel refuses this address filter: EOPNOTSUPP from the driver's addr_filters_validate()`},
		{"", "start 0x1000@/usr/local/bin/app", `t.sim:4:23: ioctl pt SET_FILTER "start 0x1000@/usr/local/bin/app": the kernel refuses this address filter: EOPNOTSUPP from the driver's addr_filters_validate()`},
		{"", "filter 0x1000@/usr/local/bin/app", `t.sim:4:23: ioctl pt SET_FILTER "filter 0x1000@/usr/local/bin/app": the kernel refuses this address filter: EINVAL from perf_event_parse_addr_filter() at "0x1000@/usr/local/bin/app"`},
		{"", "filter 0x1000/8@/dev/null", `t.sim:4:23: ioctl pt SET_FILTER "filter 0x1000/8@/dev/null": the kernel refuses this address filter: EINVAL from perf_event_parse_addr_filter() at "0x1000/8@/dev/null"`},
		{"", "filter 0x10000000000000000/8", `t.sim:4:23: ioctl pt SET_FILTER "filter 0x10000000000000000/8": the kernel refuses this address filter: ERANGE from perf_event_parse_addr_filter() at "0x10000000000000000/8"`},
		{"", "tracestop 0x1000/8", `t.sim:4:23: ioctl pt SET_FILTER "tracestop 0x1000/8": the kernel refuses this address filter: EINVAL from perf_event_parse_addr_filter() at "tracestop"`},
		{" cpu0 pid -1", "filter 0x1000/8@/usr/local/bin/app", `t.sim:4:23: ioctl pt SET_FILTER "filter 0x1000/8@/usr/local/bin/app": the kernel refuses this address filter: EOPNOTSUPP from perf_event_parse_addr_filter() at "0x1000/8@/usr/local/bin/app"`},
	} {
		src := fmt.Sprintf("pmu intel_pt\ntask app cpu0\n  open pt -e intel_pt//u%s\n  ioctl pt SET_FILTER %s\n", tc.target, tc.filter)
		f, err := Load(&scenarios.Source{Name: "t.sim", Src: []byte(src)})
		if err != nil {
			t.Fatalf("%s: %v", tc.filter, err)
		}
		msgs, err := Validate(f, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.filter, err)
		}
		var got []string
		for _, m := range msgs {
			if strings.Contains(m, "SET_FILTER") {
				got = append(got, m)
			}
		}
		var want []string
		if tc.want != "" {
			want = []string{tc.want}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s%s (-want +got):\n%s", tc.filter, tc.target, d)
		}
	}
}
