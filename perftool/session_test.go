package perftool

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/scenarios"
	"perfsim/sched"
	"perfsim/sim"
)

// sessionRun is one simulated `perf record ... -- closes` run.
type sessionRun struct {
	ss      *Session
	k       *pmu.Kernel
	m       *cpu.Machine
	written []rb.Sample // every sample the kernel wrote (pmu's OnOutput oracle hook)
	wl      *sched.Task
}

// runCloses runs perf record with args over a workload on CPU 0 that makes n
// close syscalls, compute µs apart, with perf pinned to CPU 1.
func runCloses(t *testing.T, args []string, n int, compute sim.Duration, so SessionOptions, seed uint64) *sessionRun {
	t.Helper()
	m := cpu.NewMachine(cpu.Config{CPUs: 2}, sim.NewRandom(seed))
	t.Cleanup(m.Close)
	s := sched.New(m, sched.DefaultConfig())
	ko := pmu.DefaultOptions(2)
	ko.Tracepoints = KernelTracepoints()
	k := pmu.NewKernel(s, ko)
	run := &sessionRun{k: k, m: m}
	k.OnOutput = func(e *pmu.Event, c *cpu.CPU, smp *rb.Sample) { run.written = append(run.written, *smp) }
	r, err := Parse(append(args, "--", "closes"), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	run.wl = s.Spawn("closes", sched.MaskOf(0), sched.Loop(n, sched.Compute(compute), sched.Syscall("close")))
	so.CPU = 1
	run.ss, err = NewSession(r, k, s, run.wl, so)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(10 * sim.Second); err != nil {
		t.Fatal(err)
	}
	if !run.ss.Finished {
		t.Fatalf("perf did not finish; perf task state %v", run.ss.Perf.State)
	}
	if run.ss.Err != nil {
		t.Fatal(run.ss.Err)
	}
	return run
}

func (r *sessionRun) obs(t *testing.T, name string) int64 {
	t.Helper()
	v, ok := r.ss.Observe(name)
	if !ok {
		t.Fatalf("no observable %s", name)
	}
	return v
}

// syscallCounts counts the samples in perf.data by "event NR".
func syscallCounts(d *PerfData) map[string]int {
	out := map[string]int{}
	d.Parsed()
	for i := range d.Records {
		r := &d.Records[i]
		if r.Dec == nil || r.Dec.Sample == nil || r.Evsel < 0 {
			continue
		}
		fa := &d.Attrs[r.Evsel]
		nr := int64(-1)
		if fa.Tracepoint != nil && len(r.Dec.Sample.Raw) >= 16 {
			for _, f := range []string{"REC->id", "REC->__syscall_nr"} {
				if v, err := evalTpArg(fa.Tracepoint, r.Dec.Sample.Raw, f); err == nil {
					nr = int64(v.bits)
					break
				}
			}
		}
		out[fmt.Sprintf("%s NR %d", fa.Name, nr)]++
	}
	return out
}

// TestSessionRecordsEverySyscall: with the default 128-page rings and a
// reader on its own CPU, every raw_syscalls record of the workload reaches
// perf.data: N close enters and exits, plus the exit of the execve that
// enabled the events (the real perf shows the same "NR 59 = 0" first line).
func TestSessionRecordsEverySyscall(t *testing.T) {
	const n = 100
	run := runCloses(t, []string{"-e", "raw_syscalls:sys_enter,raw_syscalls:sys_exit"}, n, 20*sim.Microsecond, DefaultSessionOptions(), 1)
	want := map[string]int{
		"raw_syscalls:sys_enter NR 3": n,
		"raw_syscalls:sys_exit NR 3":  n,
		"raw_syscalls:sys_exit NR 59": 1,
	}
	if diff := cmp.Diff(want, syscallCounts(run.ss.Data)); diff != "" {
		t.Errorf("samples by syscall (-want +got):\n%s", diff)
	}
	for _, c := range []struct {
		name string
		want int64
	}{{"perf.samples", 2*n + 1}, {"perf.lost", 0}, {"perf.torn", 0}, {"perf.error", 0}, {"perf.done", 1}, {"perf.mmaps", 2}} {
		if got := run.obs(t, c.name); got != c.want {
			t.Errorf("%s = %d, want %d", c.name, got, c.want)
		}
	}
	if got := run.obs(t, "perf.samples"); got != int64(len(run.written)) {
		t.Errorf("perf.samples = %d, kernel wrote %d", got, len(run.written))
	}
	// Far below the half-ring watermark: perf sleeps in poll until the
	// events hang up with the workload ("Woken up 1 times").
	if got := run.obs(t, "perf.wakeups"); got != 1 {
		t.Errorf("perf.wakeups = %d, want 1", got)
	}
}

// TestSessionSmallBufferLoses: one data page and a slow writer of perf.data
// (a 200µs write(2)) against a workload closing every microsecond: the ring
// fills, the kernel drops samples and says so with PERF_RECORD_LOST. Every
// record written (the samples, the COMM of the exec, the EXIT) is either in
// perf.data, or counted in a LOST record, or still pending in rb->lost when
// the workload died.
func TestSessionSmallBufferLoses(t *testing.T) {
	const n = 400
	so := DefaultSessionOptions()
	so.WriteSyscall = 200 * sim.Microsecond
	run := runCloses(t, []string{"-m", "1", "-e", "raw_syscalls:sys_enter,raw_syscalls:sys_exit"}, n, sim.Microsecond, so, 1)
	samples, lost := run.obs(t, "perf.samples"), run.obs(t, "perf.lost")
	sideband := run.obs(t, "perf.comm") + run.obs(t, "perf.exit")
	var pending int64
	for _, m := range run.ss.Mmaps {
		pending += int64(m.Map.RB.Lost())
	}
	attempted := int64(2*n + 1)
	if lost == 0 || run.obs(t, "perf.lost_records") == 0 {
		t.Fatalf("no loss with a 1-page ring: samples %d lost %d", samples, lost)
	}
	if samples >= attempted {
		t.Errorf("samples %d, want fewer than the %d attempted", samples, attempted)
	}
	if samples+sideband+lost+pending != attempted+2 {
		t.Errorf("samples %d + COMM/EXIT %d + lost %d + pending %d = %d, want %d attempted", samples, sideband, lost, pending,
			samples+sideband+lost+pending, attempted+2)
	}
	if got := run.obs(t, "perf.torn"); got != 0 {
		t.Errorf("perf.torn = %d", got)
	}
}

// TestSessionOverwriteKeepsNewest: --overwrite maps the ring read-only and
// the kernel writes backward over the oldest records; perf reads it once, at
// the end, after PAUSE_OUTPUT. What it gets is the newest records the ring
// holds, no loss is ever counted, and nothing is torn.
func TestSessionOverwriteKeepsNewest(t *testing.T) {
	const n = 300
	run := runCloses(t, []string{"--overwrite", "-m", "1", "-e", "raw_syscalls:sys_enter"}, n, sim.Microsecond, DefaultSessionOptions(), 1)
	var got []uint64
	for i := range run.ss.Data.Parsed() {
		if s := run.ss.Data.Records[i].Dec; s != nil && s.Sample != nil {
			got = append(got, s.Sample.Time)
		}
	}
	if len(got) == 0 || len(got) >= n {
		t.Fatalf("read %d samples of %d written: want the newest that fit one page", len(got), len(run.written))
	}
	// The ring is read newest first; in time order it must be the tail of
	// what the kernel wrote.
	slicesReverse(got)
	var tail []uint64
	for _, s := range run.written[len(run.written)-len(got):] {
		tail = append(tail, s.Time)
	}
	if diff := cmp.Diff(tail, got); diff != "" {
		t.Errorf("read samples are not the newest written (-newest written +read):\n%s", diff)
	}
	for _, c := range []struct {
		name string
		want int64
	}{{"perf.lost", 0}, {"perf.torn", 0}} {
		if v := run.obs(t, c.name); v != c.want {
			t.Errorf("%s = %d, want %d", c.name, v, c.want)
		}
	}
}

func slicesReverse(a []uint64) {
	for i, j := 0, len(a)-1; i < j; i, j = i+1, j-1 {
		a[i], a[j] = a[j], a[i]
	}
}

// sessionSummary is the deterministic text of a run: observables and script.
func sessionSummary(ss *Session) string {
	var b strings.Builder
	for _, name := range ss.observableNames() {
		v, _ := ss.Observe(name)
		fmt.Fprintf(&b, "%s %d\n", name, v)
	}
	b.WriteString("--- perf script\n")
	ss.Script(&b)
	return b.String()
}

// observableNames are SessionObservableNames with an [EVENT] pattern
// expanded to each of the session's events.
func (ss *Session) observableNames() []string {
	var out []string
	for _, name := range SessionObservableNames() {
		if base, _, ok := scenarios.CutEventIndex(name); ok {
			for _, e := range ss.EventNames() {
				out = append(out, base+"["+e+"]")
			}
			continue
		}
		out = append(out, name)
	}
	return out
}

// TestSessionGolden runs fixed sessions and compares observables and perf
// script output with testdata/session-*.golden (go test -update rewrites
// them). Running twice must give the same bytes: the simulation is
// deterministic for a seed.
func TestSessionGolden(t *testing.T) {
	tests := []struct {
		name string
		args []string
		n    int
	}{
		{"session-raw-syscalls", []string{"-e", "raw_syscalls:sys_enter,raw_syscalls:sys_exit"}, 5},
		{"session-syscalls-close", []string{"-e", "syscalls:sys_enter_close,syscalls:sys_exit_close"}, 3},
		{"session-overwrite", []string{"--overwrite", "-e", "raw_syscalls:sys_enter"}, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sessionSummary(runCloses(t, tc.args, tc.n, 2*sim.Microsecond, DefaultSessionOptions(), 7).ss)
			again := sessionSummary(runCloses(t, tc.args, tc.n, 2*sim.Microsecond, DefaultSessionOptions(), 7).ss)
			if diff := cmp.Diff(got, again); diff != "" {
				t.Fatalf("two runs with seed 7 differ:\n%s", diff)
			}
			path := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s (-golden +got):\n%s", path, diff)
			}
		})
	}
}

// TestScriptRealCaptureUpdate re-captures testdata/script-real with the real
// perf under -update (root and perf needed; otherwise the captures stay).
func TestScriptRealCaptureUpdate(t *testing.T) {
	if !*update {
		t.Skip("only with -update")
	}
	if _, err := exec.LookPath("perf"); err != nil || os.Geteuid() != 0 {
		t.Skip("-update of testdata/script-real needs the real perf and root")
	}
	if out, err := exec.Command("sh", "testdata/script-real/capture.sh").CombinedOutput(); err != nil {
		t.Fatalf("capture: %v\n%s", err, out)
	}
}

// TestSessionObservables: every listed name is answered, others are not.
func TestSessionObservables(t *testing.T) {
	run := runCloses(t, []string{"-e", "raw_syscalls:sys_enter"}, 2, sim.Microsecond, DefaultSessionOptions(), 3)
	for _, name := range SessionObservableNames() {
		if SessionObservableHelp(name) == "" {
			t.Errorf("%s has no help", name)
		}
	}
	for _, name := range run.ss.observableNames() {
		if _, ok := run.ss.Observe(name); !ok {
			t.Errorf("Observe(%q) not answered", name)
		}
	}
	if _, ok := run.ss.Observe("perf.nonsense"); ok {
		t.Errorf("Observe(perf.nonsense) answered")
	}
}

// TestSessionSystemWideStop: `perf record -a` without a workload records
// every task (perf's own write syscalls included, as the real perf shows)
// until ^C; then it disables the events, drains the rings and exits.
func TestSessionSystemWideStop(t *testing.T) {
	m := cpu.NewMachine(cpu.Config{CPUs: 2}, sim.NewRandom(5))
	t.Cleanup(m.Close)
	s := sched.New(m, sched.DefaultConfig())
	ko := pmu.DefaultOptions(2)
	ko.Tracepoints = KernelTracepoints()
	k := pmu.NewKernel(s, ko)
	s.Spawn("closes", sched.MaskOf(0), sched.Loop(1000, sched.Compute(10*sim.Microsecond), sched.Syscall("close")))
	r, err := Parse([]string{"-a", "-e", "syscalls:sys_enter_close"}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	so := DefaultSessionOptions()
	so.CPU = 1
	ss, err := NewSession(r, k, s, nil, so)
	if err != nil {
		t.Fatal(err)
	}
	m.CPUs[1].NewTimer(false, cpu.Interrupt{Name: "ctrl-c", Fn: func(*cpu.CPU) { ss.Stop() }}).Arm(5 * sim.Millisecond)
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	if !ss.Finished || ss.Err != nil {
		t.Fatalf("finished %v err %v", ss.Finished, ss.Err)
	}
	// record__sig_exit(): perf dies of the SIGINT that stopped it
	if sig, _ := ss.Perf.ExitSignal(); sig != sched.SIGINT || ss.Perf.State != sched.Dead {
		t.Errorf("perf ended by signal %d (state %v), want SIGINT re-raised at exit", sig, ss.Perf.State)
	}
	counts := syscallCounts(ss.Data)
	got := counts["syscalls:sys_enter_close NR 3"]
	// About 5ms / 10µs closes were made before ^C, and none after it is
	// recorded. perf enables cpu0's event from cpu0 (__evlist__enable()'s
	// affinity), where it waits for the looping task's protected slice
	// (EEVDF: at most a base slice, 1.4 ms on 2 CPUs), so the first closes
	// go unrecorded.
	if got < 300 || got > 505 {
		t.Errorf("recorded %d close enters in 5ms of 10µs loops (%v)", got, counts)
	}
}
