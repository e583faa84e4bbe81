package runner

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestScriptSyscallsMatchRealPerf: perf script of the simulated
// testdata/script-syscalls/case.sim prints, line for line, what the real
// perf 6.1 printed for workload.c (real.txt, from capture.sh): the same
// arguments and return values through each format file's print fmt, and the
// comm changing at prctl(PR_SET_NAME). Compared from the program's first
// call (before it, the loader's mmaps and closes, which the scenario does
// not make). Masked: pid, time and CPU (another run), and the values that
// are addresses (ASLR and the image layout): prctl's arg2 and write's buf
// (the workload's .rodata and .bss), mmap's return value.
func TestScriptSyscallsMatchRealPerf(t *testing.T) {
	b, err := os.ReadFile("testdata/script-syscalls/real.txt")
	if err != nil {
		t.Fatal(err)
	}
	real := strings.Split(strings.TrimRight(string(b), "\n"), "\n")[1:]
	for i, l := range real {
		if strings.Contains(l, "sys_enter_close: fd: 0xffffffff") {
			real = real[i:]
			break
		}
	}
	f, err := Open("testdata/script-syscalls/case.sim")
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := RunOnce(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := r.Script(&sb); err != nil {
		t.Fatal(err)
	}
	sim := strings.Split(strings.TrimRight(sb.String(), "\n"), "\n")
	masks := []struct {
		re   *regexp.Regexp
		with string
	}{
		{regexp.MustCompile(`^( *\S+) +\d+ \[\d+\] +\d+\.\d+:`), "$1 PID [CPU] TIME:"},
		{regexp.MustCompile(`(arg2|buf): 0x[0-9a-f]+`), "$1: ADDR"},
		{regexp.MustCompile(`(sys_exit_mmap): 0x[0-9a-f]+$`), "$1: ADDR"},
	}
	mask := func(ls []string) []string {
		out := make([]string, len(ls))
		for i, l := range ls {
			for _, m := range masks {
				l = m.re.ReplaceAllString(l, m.with)
			}
			out[i] = l
		}
		return out
	}
	if len(real) != 10 {
		t.Fatalf("real.txt: %d lines from the program's first call, want 10", len(real))
	}
	if d := cmp.Diff(mask(real), mask(sim)); d != "" {
		t.Errorf("perf script (-real perf 6.1 +model):\n%s", d)
	}
}
