package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// A forced ipi also holds back the IPIs raised to its CPU before the label:
// perf_install_in_context()'s IPI for the open at the start reaches cpu1 only
// at its first syscall entry, 20us later, right after the force fired; the
// opener waits for it meanwhile (smp_call_function_single() with wait);
// the read's and the close's IPIs follow as usual.
func TestForcedIPIHeldUntilLabel(t *testing.T) {
	src := `cpus 2
task app cpu0
  open ev -e cycles/period=20000/ cpu1
  read ev
  compute 10us
  close ev
task spin cpu1
  compute 20us
  syscall getpid
  compute 20us
ipi cpu1 at syscall_enter_from_user_mode
`
	got, r := runSrc(t, src, "fd.reads", "fd.errors", "ipis")
	if d := cmp.Diff(map[string]int64{"fd.reads": 1, "fd.errors": 0, "ipis": 3}, got); d != "" {
		t.Errorf("observables (-want +got):\n%s", d)
	}
	type rec struct {
		Kind, Name, Detail string
		AtLeast20us        bool
	}
	var seq []rec
	for _, x := range r.Trace().Records {
		if x.CPU != 1 {
			continue
		}
		if (x.Kind == sim.KNote && x.Name == "force") || (x.Kind == sim.KEnter && x.Detail == "call_function_single") {
			seq = append(seq, rec{x.Kind.String(), x.Name, x.Detail, x.T >= sim.Time(20*sim.Microsecond)})
		}
	}
	want := []rec{
		{"note", "force", "ipi cpu1 at syscall_enter_from_user_mode", true},
		{"enter", "irq", "call_function_single", true}, // the install's IPI, held until here
		{"enter", "irq", "call_function_single", true}, // the read's
		{"enter", "irq", "call_function_single", true}, // the close's removal
	}
	if d := cmp.Diff(want, seq); d != "" {
		t.Errorf("cpu1 (-want +got):\n%s", d)
	}
}

// TestForcedActionNeverFiredEndsWithTheTasks: a forced action whose label
// is never reached (app's munmap finds nothing mapped, so perf_mmap_close()
// never runs) is canceled once the file's tasks are gone, even when the
// last two exit at once: app is still in do_exit() (its mm torn down) when
// spin's exit checks, so each sees the other alive unless one in do_exit()
// counts as gone. It hung ("no task can ever run again") before.
func TestForcedActionNeverFiredEndsWithTheTasks(t *testing.T) {
	got, r := runSrc(t, `cpus 2
task app cpu0
  open ev -e cycles/period=20000/ pid spin sample_type=IP|TID
  compute 20us
  munmap ev
  compute 100us
  close ev
task spin cpu1
  compute 150us
at perf_mmap_close:mmap_count-dec on cpu1: mmap ev 8
`, "forces.fired", "sched.all-exited")
	if d := cmp.Diff(map[string]int64{"forces.fired": 0, "sched.all-exited": 1}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if !r.S.AllExited() {
		t.Error("a task is left")
	}
}
