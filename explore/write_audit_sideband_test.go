package explore

import (
	"testing"

	"perfsim/scenarios"
)

// TestWriteAuditSideband: the fragment that starts at
// perf_output_put_handle:nest-zero after a side-band record and returns
// through the rest of perf_iterate_sb()'s walk into the record's caller
// (pmu/footprint_sideband.go) writes nothing it does not annotate: the
// COMMs of prctl(PR_SET_NAME) back into prctl's return
// (backward-ring-buffer), the MMAPs of mmap(2) back into its return
// (page-faults-preempt, with -d), the context switch records back into
// perf_event_task_sched_out()/_in() (sidebandSwitchSrc), and both
// prctl's COMMs and mmap(2)'s MMAPs with another CPU's task making the
// same syscalls (sidebandCommMmapSrc). Each run checks nest-zero at least
// once. (The FORK and EXIT records' callers are marked: no fragment after
// one is checked.)
func TestWriteAuditSideband(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	const nestZero = "perf_output_put_handle:nest-zero"
	for _, tc := range []struct {
		name   string
		repeat int      // its loops cut to this many iterations (0: as shipped)
		src    string   // a scenario of this test's own
		want   []string // the starts checked at least once
	}{
		{"backward-ring-buffer", 5, "", []string{nestZero}},
		{"page-faults-preempt", 0, "", []string{nestZero}},
		{"sideband-switch", 0, sidebandSwitchSrc, []string{nestZero, "perf_event_task_sched_out"}},
		{"sideband-comm-mmap", 0, sidebandCommMmapSrc, []string{nestZero}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f *scenarios.File
			switch {
			case tc.src != "":
				f = outputAuditFile(t, tc.name, [2]string{}, tc.src)
			case tc.repeat > 0:
				f = cutBuiltin(t, tc.name, tc.repeat)
			default:
				f = loadBuiltin(t, tc.name)
			}
			auditChecked(t, f, tc.want)
		})
	}
}

// sidebandSwitchSrc records the context switches (--switch-events: a
// PERF_RECORD_SWITCH at each sched-out and sched-in) of a task and its
// child, which yield to each other on cpu0 while another task runs on
// cpu1.
const sidebandSwitchSrc = `scenario sideband-switch
cpus 2
task parent cpu0
  compute 2us
  fork child
    repeat 4
      compute 3us
      yield
  repeat 4
    compute 3us
    yield
  wait
task other cpu1
  repeat 4
    compute 3us
    syscall getpid
record rec: -e task-clock -c 1000000 --switch-events -- parent
`

// sidebandCommMmapSrc writes COMMs (prctl(PR_SET_NAME)) and MMAPs
// (mmap(2) of an anonymous and of a file mapping: -d records both) of a
// task while another CPU's task makes the same syscalls unrecorded.
const sidebandCommMmapSrc = `scenario sideband-comm-mmap
cpus 2
task p cpu0
  repeat 3
    syscall prctl PR_SET_NAME "p:n" 0 0 0
    syscall mmap 0 8192 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0
    compute 1us
  syscall openat AT_FDCWD "/var/data/table" O_RDONLY 0 as fd
  syscall mmap 0 65536 PROT_READ MAP_PRIVATE fd 0
task q cpu1
  repeat 3
    syscall prctl PR_SET_NAME "q:n" 0 0 0
    syscall mmap 0 8192 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0
    compute 1us
record rec: -e task-clock -c 1000000 -d -- p
`
