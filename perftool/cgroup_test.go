package perftool

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/uapi"
)

// TestCgroupOption is -G as perf 6.1 parses it (tools/perf/util/cgroup.c:
// parse_cgroups(), builtin-record.c: cmd_record()). The errors and flags are
// those perf 6.1.187 printed on a 6.18.44 kernel (cgroup2 mounted):
//
//	perf record -G perfsim-test -e cpu-clock -- true
//	  must define events before cgroups
//	perf record -e cpu-clock -G perfsim-test -o g2.data -- sleep 1
//	  Error: cgroup monitoring only available in system-wide mode
//	perf record -vv -a -e cpu-clock -G perfsim-test -- sleep 0.1
//	  sys_perf_event_open: pid 3  cpu 0  group_fd -1  flags 0xc = 6   (cpu-clock: the cgroup dir's fd)
//	  sys_perf_event_open: pid -1  cpu 0  group_fd -1  flags 0x8 = 8  (the tracking dummy)
func TestCgroupOption(t *testing.T) {
	type open struct {
		Evsel  string
		Cgroup string
		PID    int
		Flags  uint64
	}
	type result struct {
		Err   string
		Opens []open // CPU 0's
	}
	cg := uint64(uapi.PERF_FLAG_PID_CGROUP | uapi.PERF_FLAG_FD_CLOEXEC)
	for _, tc := range []struct {
		name string
		args []string
		want result
	}{
		{"system-wide", []string{"-a", "-e", "cpu-clock", "-G", "perfsim-test", "--", "sleep"},
			result{Opens: []open{{"cpu-clock", "perfsim-test", PIDCgroup, cg}, {"dummy:u", "", -1, uapi.PERF_FLAG_FD_CLOEXEC}}}},
		{"before -e", []string{"-a", "-G", "perfsim-test", "-e", "cpu-clock", "--", "sleep"},
			result{Err: "perf record: -G: must define events before cgroups"}},
		{"not system-wide", []string{"-e", "cpu-clock", "-G", "perfsim-test", "--", "sleep"},
			result{Err: "perf record: -G: cgroup monitoring only available in system-wide mode"}},
		{"-C is not -a", []string{"-C", "0", "-e", "cpu-clock", "-G", "perfsim-test", "--", "sleep"},
			result{Err: "perf record: -G: cgroup monitoring only available in system-wide mode"}},
		{"by position", []string{"-a", "-e", "context-switches", "-e", "cpu-clock", "-G", ",grp", "--", "sleep"},
			result{Opens: []open{{"context-switches", "", -1, uapi.PERF_FLAG_FD_CLOEXEC}, {"cpu-clock", "grp", PIDCgroup, cg}, {"dummy:u", "", -1, uapi.PERF_FLAG_FD_CLOEXEC}}}},
		{"one name for all", []string{"-a", "-e", "context-switches", "-e", "cpu-clock", "--cgroup", "grp", "--", "sleep"},
			result{Opens: []open{{"context-switches", "grp", PIDCgroup, cg}, {"cpu-clock", "grp", PIDCgroup, cg}, {"dummy:u", "", -1, uapi.PERF_FLAG_FD_CLOEXEC}}}},
		{"more names than events", []string{"-a", "-e", "cpu-clock", "-G", "a,b", "--", "sleep"},
			result{Err: "perf record: -G: perf prints its usage: add_cgroup() finds no event 2 for cgroup b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got result
			r, err := Parse(tc.args, DefaultOptions())
			if err != nil {
				got.Err = err.Error()
			} else {
				for _, o := range r.Opens(r.NrCPUs) {
					if o.CPU == 0 {
						e := r.Evsels[o.Evsel]
						got.Opens = append(got.Opens, open{e.Name, e.Cgroup, o.PID, o.Flags})
					}
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("perf record %v (-want +got):\n%s", tc.args, d)
			}
		})
	}
}
