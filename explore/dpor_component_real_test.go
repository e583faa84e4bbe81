package explore

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"perfsim/cpu"
	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// auxPerCPU is the must-show scenario on the real model: the shape of the
// built-in aux-pause-resume-nmi replicated on c CPUs, each with its own
// task (pinned), its own group (intel_pt started paused, the
// sys_enter_newuname tracepoint resuming it, a cycles counter whose
// overflow NMI pauses it) and its own buffers; k task triggers per CPU and
// a cycles period that gives about n overflows in them (under the default
// cost model an iteration is about 3,400 cycles).
func auxPerCPU(c, k, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "scenario aux-pause-resume-nmi-percpu\ntitle \"aux-pause-resume-nmi on each of %d CPUs\"\n\ncpus %d\n", c, c)
	b.WriteString("pmu intel_pt rate=1000 region=4K\npmu cpu skid=200ns\nkernel aux-pause-guard=on\n\n")
	for i := 0; i < c; i++ {
		fmt.Fprintf(&b, "task uname%d cpu%d\n  repeat %d\n    syscall newuname\n    compute 700ns\n", i, i, k)
	}
	period := 3400 * k / max(n, 1)
	for i := 0; i < c; i++ {
		fmt.Fprintf(&b, "record r%d: -e '{intel_pt/aux-action=start-paused/k,syscalls:sys_enter_newuname/aux-action=resume/,cycles/period=%d,aux-action=pause/}' -m 8,8 -- uname%d\n", i, period, i)
	}
	b.WriteString("\nalways perf.error == 0\nsometimes aux.pause_resume.calls > 0\nalways aux.pause_resume.overlaps == 0\n")
	return b.String()
}

// realRun is porWalk's and compWalk's run function over a scenario of the
// real model: built, attached, executed to its end.
func realRun(t testing.TB, f *scenarios.File, knobs map[string]string) func(ch sim.Chooser, attach func(*cpu.Machine)) {
	return func(ch sim.Chooser, attach func(*cpu.Machine)) { walkedRun(t, f, knobs, ch, attach) }
}

// walkedRun builds a run of f under knobs whose engine asks ch, attaches a
// walk's listener (attach, if any) and executes it to its end: a
// violation does not stop it.
func walkedRun(t testing.TB, f *scenarios.File, knobs map[string]string, ch sim.Chooser, attach func(*cpu.Machine)) *runner.Run {
	t.Helper()
	opts := Options{Knobs: knobs}.runOptions(ch, false)
	opts.StopAtViolation = false
	r, err := runner.Build(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	if attach != nil {
		attach(r.M)
	}
	if err := r.Execute(); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCompRealShapeRefused: on the real model, the replicated scenario's
// CPUs run code nobody declared complete (or declared fragments that reach
// unaudited code, or touch what the other CPU's touch: the fd tables
// perf's opens write), so the
// component-wise walk refuses at once and says so; the survey lists every reason in its first
// schedules (what must be annotated before the claim can be made).
func TestCompRealShapeRefused(t *testing.T) {
	f, err := scenarios.Parse("aux-pause-resume-nmi-percpu.sim", []byte(auxPerCPU(2, 2, 1)))
	if err != nil {
		t.Fatal(err)
	}
	run := realRun(t, f, nil)
	s, ex := compWalk(100, run)
	if ex || !strings.HasSuffix(s.Refused, "not declared complete (cpu.DeclareComplete)") && !strings.HasSuffix(s.Refused, "(cpu.CPU.Unaudited)") &&
		!strings.Contains(s.Refused, " is touched by ") && !strings.Contains(s.Refused, " posts to another CPU ") || s.Runs != 1 {
		t.Fatalf("complete %v after %d schedules, refused %q; want refused in the first schedule, on an undeclared fragment, one that reaches unaudited code, an object two CPUs share or a post across CPUs (perf's install IPIs)", ex, s.Runs, s.Refused)
	}
	reasons := compSurvey(3, run)
	var lines []string
	for r, n := range reasons {
		lines = append(lines, fmt.Sprintf("%6d  %s", n, r))
	}
	sort.Strings(lines)
	t.Logf("refused: %s\nsurvey of 3 schedules (%d reasons):\n%s", s.Refused, len(lines), strings.Join(lines, "\n"))
}
