package runner

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/scenarios"
)

// runSrc builds and runs a scenario source on the quiet schedule and returns
// the named observables at the end.
func runSrc(t *testing.T, src string, names ...string) (map[string]int64, *Run) {
	t.Helper()
	f, err := Load(&scenarios.Source{Name: "t.sim", Src: []byte(src)})
	if err != nil {
		t.Fatalf("load:\n%v", err)
	}
	r, err := Build(f, Options{KeepTrace: true})
	if err != nil {
		t.Fatalf("build:\n%v", err)
	}
	if err := r.Execute(); err != nil {
		t.Fatalf("execute: %v", err)
	}
	got := map[string]int64{}
	for _, n := range names {
		v, ok := r.Observe(n)
		if !ok {
			t.Fatalf("no observable %s", n)
		}
		got[n] = v
	}
	return got, r
}

// The perf fd calls return the errno the kernel returns for bad input.
func TestPerfOpErrnos(t *testing.T) {
	for _, tc := range []struct {
		name string
		prog string
		want map[string]int64
	}{
		{"close of an fd number never opened", "  close 99\n",
			map[string]int64{"errno.EBADF": 1, "fd.errors": 1, "fd.closed": 0}},
		{"close twice", "  open ev -e cpu-clock\n  close ev\n  close ev\n",
			map[string]int64{"errno.EBADF": 1, "fd.errors": 1, "fd.closed": 1}},
		{"ioctl on a closed event", "  open ev -e cpu-clock\n  close ev\n  ioctl ev ENABLE\n",
			map[string]int64{"errno.EBADF": 1, "fd.errors": 1, "fd.closed": 1}},
		{"unknown request number", "  open ev -e cpu-clock\n  ioctl ev 0x2499\n  close ev\n",
			map[string]int64{"errno.ENOTTY": 1, "fd.errors": 1, "fd.closed": 1}},
		{"PERIOD on a counting event", "  open ev -e cpu-clock\n  ioctl ev PERIOD 100\n  close ev\n",
			map[string]int64{"errno.EINVAL": 1, "fd.errors": 1, "fd.closed": 1}},
		{"SET_OUTPUT to itself", "  open ev -e cycles/period=1000/ cpu0\n  ioctl ev SET_OUTPUT ev\n  close ev\n",
			map[string]int64{"errno.EINVAL": 1, "fd.errors": 1, "fd.closed": 1}},
		{"mmap of a non power of two", "  open ev -e cycles/period=1000/ cpu0\n  mmap ev 3\n  close ev\n",
			map[string]int64{"errno.EINVAL": 1, "fd.errors": 1, "fd.mmaps": 0}},
		{"sigtrap without remove_on_exec", "  open ev -e cycles/period=1000/ sigtrap\n",
			map[string]int64{"errno.EINVAL": 1, "fd.errors": 1, "fd.opened": 0}},
		{"sigtrap on a CPU event", "  open ev -e cycles/period=1000/ cpu0 sigtrap remove_on_exec\n",
			map[string]int64{"errno.EINVAL": 1, "fd.errors": 1, "fd.opened": 0}},
		{"group leader fd not open", "  open ev -e cpu-clock group 99\n",
			map[string]int64{"errno.EBADF": 1, "fd.errors": 1, "fd.opened": 0}},
		{"munmap with nothing mapped", "  open ev -e cpu-clock\n  munmap ev\n  close ev\n",
			map[string]int64{"fd.munmap-empty": 1, "fd.errors": 0, "fd.closed": 1}},
		{"ID", "  open ev -e cpu-clock\n  ioctl ev ID\n  close ev\n",
			map[string]int64{"ioctl.id": 1, "fd.errors": 0, "fd.closed": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var names []string
			for n := range tc.want {
				names = append(names, n)
			}
			got, _ := runSrc(t, "cpus 1\ntask app\n"+tc.prog, names...)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("observables (-want +got):\n%s", d)
			}
		})
	}
}

// What is statically wrong is refused at its place in the file.
func TestPerfOpStaticErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"task app\n  ioctl ev FROB\n", `t.sim:2:12: unknown ioctl request "FROB"`},
		{"task app\n  ioctl ev SET_OUTPUT\n", "t.sim:2:22: expected the fd name to redirect to"},
		{"task app\n  mmap ev many\n", `t.sim:2:11: expected the number of data pages`},
		{"task app\n  open ev -e cyclez\n", "t.sim:2:14: perf record: -e cyclez: event syntax error"},
		{"task app\n  open ev -e cycles sample_type=IP|FOO\n", `t.sim:2:21: open ev: sample_type: unknown bit "FOO"`},
		{"task app\n  open ev -e cycles frobnicate=1\n", "t.sim:2:21: open ev: frobnicate: unknown perf_event_attr field"},
		{"task app\n  open ev cpu0\n", "t.sim:2:3: open ev needs an event"},
		{"task app\n  compute 1us\nat perf_mmap:mmap_mutex on cpu3: close ev\n", "t.sim:3:28: cpu3 does not exist"},
		{"task app\n  compute 1us\nat perf_mmap:mmap_mutex on cpu0: frob ev\n", `t.sim:3:34: expected one of open, close, ioctl, mmap, munmap, read, fcntl after on cpu0:, found "frob"`},
		{"task app\n  compute 1us\nipi cpu0 at no_such_label\n", `t.sim:3:13: unknown step point "no_such_label"`},
		{"task app\n  open ev -e cycles\n  close evv\n", "t.sim:3:9: close: no open statement in this file names evv (every call on it would fail with EBADF); the fds it opens: ev"},
		{"task app\n  open ev -e cycles\n  ioctl ev SET_OUTPUT nosuch\n", "t.sim:3:23: ioctl: no open statement in this file names nosuch"},
		{"task app\n  open ev -e cycles group lead\n", "t.sim:2:27: open: no open statement in this file names lead"},
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

// A forced ipi delivers the pending call_function_single IPI at the label;
// a forced action wakes its thread, which closes the event.
func TestForcedIPIAndAction(t *testing.T) {
	src := `cpus 2
task app cpu0
  open ev -e cycles/period=20000/ cpu1
  repeat 3
    read ev
    compute 5us
  compute 100us
task spin cpu1
  repeat 30
    syscall getpid
    compute 1us
ipi cpu1 at syscall_enter_from_user_mode occurrence 3
at __perf_event_read:active occurrence 2 on cpu0: close ev
`
	got, r := runSrc(t, src, "fd.reads", "fd.closed", "events.closed", "errno.EBADF", "ipis")
	// The install, two reads and the release's removal: four IPIs to cpu1.
	want := map[string]int64{"fd.reads": 2, "fd.closed": 1, "events.closed": 1, "errno.EBADF": 1, "ipis": 4}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("observables (-want +got):\n%s", d)
	}
	// The forced ipi fired at the third syscall entry on cpu1 (and said
	// whether an IPI was pending there: cpu.ExpediteIRQ's test covers the
	// delivery).
	var fired bool
	for _, rec := range r.Trace().Records {
		if rec.Name == "force" && rec.CPU == 1 && rec.Detail == "ipi cpu1 at syscall_enter_from_user_mode occurrence 3" {
			fired = true
		}
	}
	if !fired {
		t.Errorf("the forced ipi did not fire at its label")
	}
}

// The breakpoint PMU: bp_type/bp_len checks, four slots per CPU for a task's
// breakpoints, a hit counted and, with sigtrap, SIGTRAP at the return to user
// (taken by the task's handler).
func TestBreakpointPMU(t *testing.T) {
	src := `cpus 2
task app cpu0
  sigaction SIGTRAP handler
  open bad type=5 bp_type=R bp_addr=0x1000 bp_len=8
  open mis type=5 bp_type=W bp_addr=0x1001 bp_len=8
  open b1 type=5 bp_type=W bp_addr=0x1000 bp_len=8 period=1 sigtrap remove_on_exec sig_data=9
  open b2 type=5 bp_type=W bp_addr=0x2000 bp_len=4 period=1
  open b3 type=5 bp_type=RW bp_addr=0x3000 bp_len=8 period=1
  open b4 type=5 bp_type=X bp_addr=0x4000 bp_len=8 period=1
  open b5 type=5 bp_type=W bp_addr=0x5000 bp_len=8 period=1
  access 0x1004 w
  access 0x2000 r
  access 0x3000 r
  read b1
  close b1
  open b6 type=5 bp_type=W bp_addr=0x5000 bp_len=8 period=1
  close b2
  close b3
  close b4
  close b6
  compute 10us
`
	got, _ := runSrc(t, src, "signals.sigtrap", "signals.sigtrap.data", "bp.hits", "bp.exceptions", "errno.ENOSPC", "errno.EINVAL", "read.value", "bp.slots-used")
	want := map[string]int64{
		"signals.sigtrap": 1, "signals.sigtrap.data": 9, // b1's SIGTRAP/TRAP_PERF
		"bp.hits": 2, "bp.exceptions": 2, // the write to b1 and the read of the RW b3; a read of the W b2 does not trap
		"errno.ENOSPC":  1, // b5: the task pins 4 slots (reserve_bp_slot())
		"errno.EINVAL":  2, // bp_type R alone, a misaligned address (arch_build_bp_info())
		"read.value":    1,
		"bp.slots-used": 0, // every slot released (bp_perf_event_destroy())
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("observables (-want +got):\n%s", d)
	}
}

// A breakpoint whose open fails after its slot was reserved gives the slot
// back (err_alloc: free_event() -> bp_perf_event_destroy()).
func TestBreakpointSlotReleasedOnFailedOpen(t *testing.T) {
	src := `cpus 1
task app
  open g -e cpu-clock
  open b type=5 bp_type=W bp_addr=0x1000 bp_len=8 period=1 group g pinned
  compute 1us
`
	got, _ := runSrc(t, src, "errno.EINVAL", "bp.slots-used", "fd.opened")
	want := map[string]int64{"errno.EINVAL": 1, "bp.slots-used": 0, "fd.opened": 1} // "Only a group leader can be exclusive or pinned"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("observables (-want +got):\n%s", d)
	}
}
