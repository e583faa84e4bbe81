package runner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/scenarios"
)

// PERF_EVENT_IOC_SET_FILTER on syscalls:sys_enter_close (field "unsigned int
// fd", offset 16, size 8): what the filter lets through, and the count after
// close(1000), close(1001), close(1002), close(1003), close(1000). The counts
// are the real kernel's (6.18, the same five closes; probe in the report):
// "fd == 1000" 2, "fd != 1000" 3, "fd > 1000 && fd < 1003" 2,
// "fd == 1000 || fd == 1002" 3, "!(fd == 1000)" 3, "fd & 1" 2,
// comm == / comm ~ the task's comm 5, "common_pid == 1" 0, and a trailing
// "&&" accepted ("fd == 1000 &&" 2).
func TestSetFilterCounts(t *testing.T) {
	for _, tc := range []struct {
		filter       string
		count, drops int64
	}{
		{"fd == 1000", 2, 3},
		{"fd != 1000", 3, 2},
		{"fd > 1000 && fd < 1003", 2, 3},
		{"fd == 1000 || fd == 1002", 3, 2},
		{"!(fd == 1000)", 3, 2},
		{"fd & 1", 2, 3},
		{`comm == "app"`, 5, 0},
		{`comm ~ "a*"`, 5, 0},
		{`comm ~ "*pp"`, 5, 0},
		{`comm != "app"`, 0, 5},
		{"common_pid == 1", 0, 5},
		{"fd == 1000 &&", 2, 3},
		{"(fd == 1001 || fd == 1003) && !(fd & 2)", 1, 4},
	} {
		src := fmt.Sprintf(`task app cpu0
  open tp -e syscalls:sys_enter_close
  ioctl tp SET_FILTER %s
  syscall close 1000
  syscall close 1001
  syscall close 1002
  syscall close 1003
  syscall close 1000
  read tp
`, tc.filter)
		got, _ := runSrc(t, src, "read.value", "tp.filtered", "fd.errors")
		want := map[string]int64{"read.value": tc.count, "tp.filtered": tc.drops, "fd.errors": 0}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.filter, d)
		}
	}
}

// The errno of each bad filter, and of a second filter (EEXIST), as the real
// kernel returns them (6.18, sched:sched_switch; probe in the report):
// calc_stack()'s and predicate_parse()'s raw -1/-2/-3 reach user space as
// EPERM, ENOENT and ESRCH.
func TestSetFilterErrnos(t *testing.T) {
	for _, tc := range []struct{ filter, want string }{
		{"prev_pid == 5", ""},
		{`prev_comm ~ "ba*"`, ""},
		{"prev_pid == -1", ""},
		{"CPU == 1", ""},
		{"nosuch == 1", "EINVAL"},
		{"prev_pid", "EINVAL"},
		{"prev_pid ==", "EINVAL"},
		{"prev_pid == 5 next_pid == 3", "EPERM"},
		{"(prev_pid == 5", "ENOENT"},
		{"prev_pid == 5)", "EPERM"},
		{`prev_comm == "bash`, "ESRCH"},
		{`prev_comm < "a"`, "EINVAL"},
		{`prev_pid == "x"`, "EINVAL"},
		{"prev_comm == 5", "EINVAL"},
		{"prev_pid ~ 5", "EINVAL"},
		{"prev_pid == x", "EINVAL"},
		{"prev_comm == bash", "EINVAL"},
		{"prev_pid == 99999999999999999999", "EINVAL"},
		{"prev_pid = 5", "EINVAL"},
		{"&& prev_pid == 1", "EPERM"},
	} {
		src := fmt.Sprintf(`task app cpu0
  open tp -e sched:sched_switch
  ioctl tp SET_FILTER %s
  ioctl tp SET_FILTER prev_pid == 1
`, tc.filter)
		names := []string{"errno.EINVAL", "errno.EPERM", "errno.ENOENT", "errno.ESRCH", "errno.EEXIST"}
		got, _ := runSrc(t, src, names...)
		want := map[string]int64{}
		for _, n := range names {
			want[n] = 0
		}
		if tc.want == "" {
			want["errno.EEXIST"] = 1 // the second filter
		} else {
			want["errno."+tc.want] = 1 // and the second is set
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.filter, d)
		}
	}
}

// SET_FILTER on an event that is no tracepoint (and has no address
// filters) is EINVAL; an empty filter cannot be written (the statement
// needs one).
func TestSetFilterNotTracepoint(t *testing.T) {
	got, _ := runSrc(t, "task app cpu0\n  open ev -e page-faults\n  ioctl ev SET_FILTER filter 0x1000/8\n", "errno.EINVAL")
	if got["errno.EINVAL"] != 1 {
		t.Errorf("errno.EINVAL = %d, want 1", got["errno.EINVAL"])
	}
}

// The new ioctl forms' static mistakes are file:line:col errors from check
// and run alike.
func TestIoctlFilterModifyStaticErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"task app\n  ioctl ev SET_FILTER\n", "t.sim:2:22: expected a filter like prev_pid == 5"},
		{"task app\n  ioctl ev MODIFY_ATTRIBUTES\n", "t.sim:2:29: expected the new event like mem:0x2000/8:w"},
		{"task app\n  ioctl ev MODIFY_ATTRIBUTES mem:0x1000:ww\n", "t.sim:2:30: perf record: -e mem:0x1000:ww: event syntax error"},
		{"task app\n  ioctl ev MODIFY_ATTRIBUTES mem:0x1000:w frob=1\n", "t.sim:2:43: ioctl ev: frob: unknown perf_event_attr field"},
		{"task app\n  ioctl ev MODIFY_ATTRIBUTES mem:0x1000:w +x\n", `t.sim:2:43: expected an attr field like sig_data=42 after the event of MODIFY_ATTRIBUTES, found "+x"`},
	} {
		f, err := Load(&scenarios.Source{Name: "t.sim", Src: []byte(tc.src)})
		if err == nil {
			_, err = Validate(f, Options{})
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got error %v, want one containing %q", tc.src, err, tc.want)
		}
	}
}
