package runner

import (
	"strconv"
	"strings"
	"testing"

	"perfsim/cost"
)

// TestExecCost: the workload's execve() takes the CPU time this machine's
// exec takes (cost/testdata/execsplit.txt, sys_enter_execve to
// sys_exit_execve of a dynamically linked image after a fork: 170.8 us):
// ExecStart up to exec_mmap(), the old mm's exit_mmap() (ExitMMap: the
// fork's copy has no other user), ExecLoad after it with elf_load()'s two
// padzero() faults (CopyFault each). perf record -a hears
// the exec's tracepoints, as execsplit.sh's recording did; the samples and
// side band it writes meanwhile add their own costs (under a microsecond
// each).
func TestExecCost(t *testing.T) {
	r, _ := runQuiet(t, "execcost.sim", `scenario execcost
cpus 2
task w cpu0
  compute 10us
record -a -e syscalls:sys_enter_execve,syscalls:sys_exit_execve -- w
`)
	var b strings.Builder
	if err := r.Script(&b); err != nil {
		t.Fatal(err)
	}
	var enter, exit float64
	for _, l := range strings.Split(b.String(), "\n") {
		f := strings.Fields(l)
		if len(f) < 5 {
			continue
		}
		at, err := strconv.ParseFloat(strings.TrimSuffix(f[3], ":"), 64)
		if err != nil {
			continue
		}
		switch f[4] {
		case "syscalls:sys_enter_execve:":
			enter = at
		case "syscalls:sys_exit_execve:":
			exit = at
		}
	}
	if enter == 0 || exit == 0 {
		t.Fatalf("no sys_enter_execve or sys_exit_execve sample:\n%s", b.String())
	}
	took := (exit - enter) * 1e9 // perf script prints microseconds: 1 us either way
	t.Logf("execve() took %.0f ns", took)
	p := cost.ThisMachine()
	charged := float64(p.ExecStart + p.ExitMMap + p.ExecLoad + cost.ExecPadzeroFaults*p.CopyFault)
	if took < charged-1000 || took > charged+3000 {
		t.Errorf("execve() took %.0f ns, want the %.0f ns charged (ExecStart %d + ExitMMap %d + ExecLoad %d + %d padzero() faults of %d) and the recording's own costs (at most 3 us)",
			took, charged, p.ExecStart, p.ExitMMap, p.ExecLoad, cost.ExecPadzeroFaults, p.CopyFault)
	}
	const measured = 170759 // cost/testdata/execsplit.txt: exec.total
	if d := took/measured - 1; d < -0.05 || d > 0.05 {
		t.Errorf("execve() took %.0f ns, this machine's %d ns (execsplit.txt): %+.1f%%, want within 5%%", took, measured, 100*d)
	}
}
