package perftool

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
)

// perf61Session records `perf record ARGS -- spin` as perf 6.1 would (its
// 128-byte attr, so the real perf here reads the file). spin computes and
// calls getpid; with stack, inside the user frames main;work;leaf.
func perf61Session(t *testing.T, args []string) *Session { return perf61SessionStack(t, args, false) }

func perf61SessionStack(t *testing.T, args []string, stack bool) *Session {
	t.Helper()
	o := DefaultOptions()
	o.Tool = ToolPerf61
	return sessionWith(t, args, stack, o)
}

// sessionWith records `perf record ARGS -- spin` with the tool o.
func sessionWith(t *testing.T, args []string, stack bool, o Options) *Session {
	t.Helper()
	m := cpu.NewMachine(cpu.Config{CPUs: 2}, sim.NewRandom(1))
	t.Cleanup(m.Close)
	s := sched.New(m, sched.DefaultConfig())
	ko := pmu.DefaultOptions(2)
	ko.Tracepoints = KernelTracepoints()
	k := pmu.NewKernel(s, ko)
	r, err := Parse(append(args, "--", "spin"), o)
	if err != nil {
		t.Fatal(err)
	}
	prog := []sched.Op{sched.Loop(5, sched.Compute(30*sim.Microsecond), sched.Syscall("getpid"))}
	if stack {
		prog = append([]sched.Op{sched.UserStack("main", "work", "leaf")}, prog...)
	}
	wl := s.Spawn("spin", sched.MaskOf(0), prog...)
	so := DefaultSessionOptions()
	so.CPU = 1
	ss, err := NewSession(r, k, s, wl, so)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(10 * sim.Second); err != nil {
		t.Fatal(err)
	}
	if !ss.Finished || ss.Err != nil {
		t.Fatalf("perf finished %v, err %v", ss.Finished, ss.Err)
	}
	return ss
}

// TestPerfDataFileLayout: the header fields point where the sections are,
// and the features are those perf record writes for a session without
// tracepoints.
func TestPerfDataFileLayout(t *testing.T) {
	ss := perf61Session(t, []string{"-e", "cpu-clock", "-c", "10000"})
	var b bytes.Buffer
	if err := ss.Data.WriteFile(&b); err != nil {
		t.Fatal(err)
	}
	f := b.Bytes()
	u64 := func(off int) uint64 {
		return uint64(f[off]) | uint64(f[off+1])<<8 | uint64(f[off+2])<<16 | uint64(f[off+3])<<24 | uint64(f[off+4])<<32 | uint64(f[off+5])<<40 | uint64(f[off+6])<<48 | uint64(f[off+7])<<56
	}
	type layout struct {
		Magic                       string
		HeaderSize, AttrSize        uint64
		AttrsSize, DataOff, DataLen uint64
		Features                    uint64
	}
	ids := 0
	for _, a := range ss.Data.Attrs {
		ids += len(a.IDs)
	}
	attrs := uint64(len(ss.Data.Attrs)) * (128 + 16)
	got := layout{string(f[:8]), u64(8), u64(16), u64(32), u64(40), u64(48), u64(72)}
	// perf record's features on a machine with a core PMU with caps: all
	// but TRACING_DATA (no tracepoints), BRANCH_STACK, GROUP_DESC, AUXTRACE, STAT, CLOCKID, DIR_FORMAT,
	// COMPRESSED, CLOCK_DATA and HYBRID_TOPOLOGY.
	var feats uint64
	for _, b := range []uint{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 20, 21, 22, 25, 26, 28, 31} {
		feats |= 1 << b
	}
	want := layout{"PERFILE2", 104, 128 + 16, attrs, 104 + 8*uint64(ids) + attrs, uint64(len(ss.Data.Data)), feats}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("perf.data header (-want +got):\n%s", d)
	}
}

// TestPerfDataFileRealPerfScript: the real perf script (when there is one)
// reads the model's perf.data and prints what the model's perf script prints
// (perf 6.1 on the machine this was written on; CI has no perf and skips).
func TestPerfDataFileRealPerfScript(t *testing.T) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("no perf in PATH")
	}
	// The expectations are perf 6.1's (its perf script, its 128-byte attr).
	if v, err := exec.Command(perf, "version").Output(); err != nil || !strings.HasPrefix(string(v), "perf version 6.1.") {
		t.Skipf("perf here is %q, not 6.1", strings.TrimSpace(string(v)))
	}
	for _, args := range [][]string{
		{"-e", "cpu-clock", "-c", "10000"},
		{"-e", "cycles", "-c", "40000", "-g"},
		{"-e", "{cycles,instructions}", "-c", "50000"},
		{"-e", "task-clock", "-F", "100000", "-a"},
		{"-e", "syscalls:sys_enter_getpid", "-e", "syscalls:sys_exit_getpid"},
		{"-e", "raw_syscalls:*"},
		{"--overwrite", "-e", "syscalls:sys_enter_getpid"},
		{"-e", "cycles:u", "-c", "40000"},
		{"-e", "cpu-clock", "-c", "10000", "--per-thread"},
		{"-e", "{cycles,instructions}:S", "-c", "50000"},
		{"-e", "cpu-clock", "-c", "10000", "-C", "0"},
		{"-e", "cycles", "-c", "40000", "--call-graph", "fp"},
		{"-e", "cpu-clock", "-c", "10000", "--no-inherit"},
		{"-e", "cycles", "-c", "40000", "--call-graph", "dwarf,1024"},
		{"-e", "cycles", "-c", "40000", "-d"},
		{"-e", "cpu-clock", "-c", "10000", "-R"},
		{"-e", "cpu-clock", "-c", "10000", "--sample-cpu"},
		{"-e", "cpu-clock", "-c", "10000", "--switch-events"},
		{"-e", "cpu-clock", "-c", "10000", "--switch-events", "-a"},
		{"-e", "cpu-clock", "-F", "20000"},
		{"-e", "instructions:k", "-c", "500", "-g"}, // the getpids' 1us of kernel time
		{"-e", "cpu-clock", "-c", "10000", "-m", "4"},
		// --call-graph lbr only with user frames (below): an empty LBR call
		// stack makes perf 6.1 read a callchain entry past it.
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) { realPerfScript(t, perf, args, false) })
	}
	// With user frames: fp, and LBR call stacks built from the same frames.
	for _, args := range [][]string{
		{"-e", "cycles", "-c", "40000", "-g"},
		{"-e", "cycles", "-c", "40000", "--call-graph", "lbr"},
	} {
		t.Run(strings.Join(args, " ")+" (stack)", func(t *testing.T) { realPerfScript(t, perf, args, true) })
	}
}

func realPerfScript(t *testing.T, perf string, args []string, stack bool) {
	ss := perf61SessionStack(t, args, stack)
	path := filepath.Join(t.TempDir(), "perf.data")
	var b bytes.Buffer
	if err := ss.Data.WriteFile(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	// The synthetic images the user IPs are in (image.go): perf names them.
	if _, err := ss.WriteImages(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(perf, "script", "-f", "-i", path, "--symfs", filepath.Dir(path)).CombinedOutput()
	if err != nil {
		// perf ran and refused the model's file: a layout the model got wrong
		t.Fatalf("perf script -i the model's perf.data: %v: %s", err, out)
	}
	var want bytes.Buffer
	if err := ss.Script(&want); err != nil {
		t.Fatal(err)
	}
	// The model has no MMAP records, so the real perf cannot name the
	// symbol and DSO of an IP: compare everything up to the IP.
	sym := regexp.MustCompile(`(\s[0-9a-f]+) \S+ \([^)]*\)$`)
	lines := func(s string) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
			out = append(out, sym.ReplaceAllString(l, "$1"))
		}
		return out
	}
	if strings.TrimSpace(want.String()) == "" {
		t.Fatal("the model's perf script printed nothing: nothing to compare")
	}
	if d := cmp.Diff(lines(want.String()), lines(string(out))); d != "" {
		t.Errorf("real perf script of the model's perf.data (-model +real):\n%s", d)
	}
}

// TestDwarfStackDumpShrinks: --call-graph dwarf,65528 asks for a user stack
// dump that with the rest of the sample does not fit a u16 record; the
// kernel shrinks the dump (perf_sample_ustack_size()) instead of losing the
// sample: every overflow is a sample of at most 65535 bytes.
func TestDwarfStackDumpShrinks(t *testing.T) {
	ss := perf61Session(t, []string{"-e", "cycles", "-c", "40000", "--call-graph", "dwarf,65528"})
	ss.process()
	n := 0
	for _, r := range ss.Data.Parsed() {
		if r.Header.Type == 9 {
			n++
			if r.Err != nil || len(r.Dec.Sample.StackUser) >= 65528 {
				t.Errorf("sample of %d bytes: err %v, dump %d bytes", r.Header.Size, r.Err, len(r.Dec.Sample.StackUser))
			}
		}
	}
	overflows, _ := ss.K.Observe("overflows")
	if lost, _ := ss.K.Observe("rb.lost"); n == 0 || int64(n) != overflows || lost != 0 {
		t.Errorf("%d samples of %d overflows, %d lost", n, overflows, lost)
	}
}
