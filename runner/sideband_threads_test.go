package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSideBandRereadsThreads: perf record -p opens the BPF side band after
// its rings are mapped, with a thread map read again from /proc
// (evlist__start_sb_thread() -> evlist__create_maps(evlist, target)), so a
// thread that exited after perf's own map was read is not opened: the side
// band opens one dummy per CPU for the thread left, and perf prints no
// "Couldn't start the BPF side band thread". With -t naming only that thread,
// the new map has nothing and the side band is not started (the debug
// message, which perf prints only with -v), while the record itself goes on.
func TestSideBandRereadsThreads(t *testing.T) {
	const body = `
cpus 2
task shell cpu0
  compute 10us                           # perf, on cpu0 too, reads its thread map after this: the worker is there
  sleep 1ms
task server cpu1
  thread worker
    compute 100us                        # alive at perf's open, gone before its rings are mapped (~210us)
    exit
  sleep 460us
  repeat 5
    syscall close -1
    compute 1us
  exit_group
`
	const noSB = "Couldn't start the BPF side band thread: BPF programs starting from now on won't be annotatable"
	for _, tc := range []struct {
		name, record string
		fds          int
		warnings     []string
	}{
		{"pid", "record -e syscalls:sys_enter_close -p server", 2, nil},
		{"tid", "record -e syscalls:sys_enter_close -t worker", 0, nil}, // perf's pr_debug: printed only with -v
		{"tid -v", "record -v -e syscalls:sys_enter_close -t worker", 0, []string{noSB}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, r := runSrc(t, "scenario sb\n"+body+tc.record+"\n")
			ss := r.Perf.(*pmuRun).sessions[0]
			if len(ss.R.Threads) != 2 && tc.name == "pid" {
				t.Errorf("perf's thread map %v: want server and worker (both alive at its start)", ss.R.Threads)
			}
			if len(ss.SideBandFDs) != tc.fds {
				t.Errorf("%d side-band fds, want %d (one per CPU for each thread alive when the side band opens)", len(ss.SideBandFDs), tc.fds)
			}
			if d := cmp.Diff(tc.warnings, ss.Warnings); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}
