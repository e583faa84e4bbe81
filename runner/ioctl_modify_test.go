package runner

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// PERF_EVENT_IOC_MODIFY_ATTRIBUTES: only a breakpoint's bp_addr, bp_type,
// bp_len, disabled (and sig_data) may change; the errnos are the real
// kernel's (6.18, a write breakpoint with exclude_kernel, probe in the
// report): a new address and length 0, a misaligned one EINVAL, bp_type R
// EINVAL (x86 has no read-only breakpoints), RW 0, another sample_period
// EINVAL (modify_user_hw_breakpoint_check()'s memcmp), sig_data 0, another
// type EINVAL, disabled 0; a page-faults event EOPNOTSUPP, a cpu-clock
// event EINVAL.
func TestModifyAttributesErrnos(t *testing.T) {
	for _, tc := range []struct {
		open, modify, want string
	}{
		{"mem:0x1000/4:w:u", "mem:0x1008/8:w:u", ""},
		{"mem:0x1000/4:w:u", "mem:0x1001/8:w:u", "EINVAL"},
		{"mem:0x1000/4:w:u", "mem:0x1000/4:r:u", "EINVAL"},
		{"mem:0x1000/4:w:u", "mem:0x1000/4:rw:u", ""},
		{"mem:0x1000/4:w:u", "mem:0x1000/4:w:u period=2", "EINVAL"},
		{"mem:0x1000/4:w:u", "mem:0x1000/4:w:u sig_data=42", ""},
		{"mem:0x1000/4:w:u", "mem:0x1000/4:w:u disabled", ""},
		{"mem:0x1000/4:w:u", "page-faults:u", "EINVAL"},
		{"page-faults", "page-faults", "EOPNOTSUPP"},
		// perf_swevent_init() gives cpu-clock the type of the perf_cpu_clock
		// PMU, so the same attr no longer matches: EINVAL.
		{"cpu-clock", "cpu-clock", "EINVAL"},
	} {
		src := fmt.Sprintf("task app cpu0\n  open ev -e %s\n  ioctl ev MODIFY_ATTRIBUTES %s\n", tc.open, tc.modify)
		names := []string{"fd.errors", "errno.EINVAL", "errno.EOPNOTSUPP"}
		got, _ := runSrc(t, src, names...)
		want := map[string]int64{"fd.errors": 0, "errno.EINVAL": 0, "errno.EOPNOTSUPP": 0}
		if tc.want != "" {
			want["fd.errors"], want["errno."+tc.want] = 1, 1
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s -> %s (-want +got):\n%s", tc.open, tc.modify, d)
		}
	}
}

// A modified breakpoint watches its new range: the real kernel counts 3
// after a write to the old address, a modify to [0x1008, 0x1010), writes to
// 0x1000, 0x1008 and 0x1009 (1 + 2); a modify with disabled stops it (still
// 3 after a write), a modify without enables it again (4).
func TestModifyAttributesMovesBreakpoint(t *testing.T) {
	src := `task app cpu0
  open bp -e mem:0x1000/4:w:u
  access 0x1000 w 1
  access 0x1008 w 1
  ioctl bp MODIFY_ATTRIBUTES mem:0x1008/8:w:u
  access 0x1000 w 1
  access 0x1008 w 1
  access 0x1009 w 1
  read bp
  ioctl bp MODIFY_ATTRIBUTES mem:0x1008/8:w:u disabled
  access 0x1008 w 1
  read bp
  ioctl bp MODIFY_ATTRIBUTES mem:0x1008/8:w:u
  access 0x1008 w 1
  read bp
`
	got, _ := runSrc(t, src, "read.value", "bp.hits", "fd.errors")
	if d := cmp.Diff(map[string]int64{"read.value": 4, "bp.hits": 4, "fd.errors": 0}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
