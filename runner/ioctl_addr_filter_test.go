package runner

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// PERF_EVENT_IOC_SET_FILTER on an intel_pt event as a task statement: the
// errno of each filter string through perf_ioctl() ->
// perf_event_set_filter() -> perf_event_set_addr_filter(): the core's
// parser (EINVAL, ERANGE; a file filter on a CPU-wide event EOPNOTSUPP) and
// pt_event_addr_filters_validate() (a "start" filter, a single address, or
// more filters than the 2 address ranges: EOPNOTSUPP).
func TestSetAddrFilterErrnos(t *testing.T) {
	for _, tc := range []struct{ target, filter, want string }{
		{"", "filter 0x1000/0x100@/usr/local/bin/app", ""},
		{"", "filter 0xffffffff81000000/0x1000", ""},
		{"", "stop 0x1000/8@/usr/local/bin/app", ""},
		{"", "filter 0x1000/8@/a,filter 0x2000/8@/a", ""},
		{"", "filter 0x1000/8@/a,filter 0x2000/8@/a,filter 0x3000/8@/a", "EOPNOTSUPP"},
		{"", "start 0x1000@/usr/local/bin/app", "EOPNOTSUPP"},
		{"", "stop 0x1000@/usr/local/bin/app", "EOPNOTSUPP"},
		{"", "filter 0x1000@/usr/local/bin/app", "EINVAL"},
		{"", "filter 0x1000/8@/dev/null", "EINVAL"},
		{"", "filter 0x10000000000000000/8", "ERANGE"},
		{"", "tracestop 0x1000/8", "EINVAL"},
		{"cpu0 pid -1", "filter 0x1000/8@/usr/local/bin/app", "EOPNOTSUPP"},
		{"cpu0 pid -1", "filter 0xffffffff81000000/0x1000", ""},
	} {
		src := fmt.Sprintf(`pmu intel_pt
task app cpu0
  open pt -e intel_pt//u %s
  ioctl pt SET_FILTER %s
`, tc.target, tc.filter)
		names := []string{"errno.EINVAL", "errno.EOPNOTSUPP", "errno.ERANGE", "addr-filter.set"}
		got, _ := runSrc(t, src, names...)
		want := map[string]int64{"errno.EINVAL": 0, "errno.EOPNOTSUPP": 0, "errno.ERANGE": 0, "addr-filter.set": 1}
		if tc.want != "" {
			want["errno."+tc.want], want["addr-filter.set"] = 1, 0
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s on %q (-want +got):\n%s", tc.filter, tc.target, d)
		}
	}
}

// An intel_pt PMU with no address ranges (addr-ranges=0: CPUID leaf 0x14
// without IP filtering) has no address filters: SET_FILTER is EINVAL.
func TestSetAddrFilterNoRanges(t *testing.T) {
	got, _ := runSrc(t, "pmu intel_pt addr-ranges=0\ntask app cpu0\n  open pt -e intel_pt//u\n  ioctl pt SET_FILTER filter 0x1000/8@/a\n", "errno.EINVAL")
	if got["errno.EINVAL"] != 1 {
		t.Errorf("errno.EINVAL = %d, want 1", got["errno.EINVAL"])
	}
}
