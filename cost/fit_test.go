package cost

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// synthetic measurements whose differences are round numbers.
var synthetic = Measurements{
	"closeloop.base": 100, "closeloop.enter_close": 400, "closeloop.enter_close_filtered": 160,
	"closeloop.raw_enter_filtered": 220, "closeloop.raw_exit_filtered": 180, "deep0.enter_close": 400,
	"deep0.enter_close_g": 1200, "deep60.enter_close_g": 4200, "yield.base": 900, "yield.sched_switch": 2000,
	"cpu_clock.sample": 3000,
	// perf record: 2 ns a byte, 3 us a pass, on top of 100 us of start-up.
	"reader.startup.ns": 100000, "reader.default.ns": 132000, "reader.default.bytes": 1000, "reader.default.rounds": 10,
	"reader.nobuf.ns": 404000, "reader.nobuf.bytes": 2000, "reader.nobuf.rounds": 100,
}

// TestFitDerivations: each cost is the difference Fit's comment gives.
func TestFitDerivations(t *testing.T) {
	got, err := Fit("x", "synthetic", synthetic)
	if err != nil {
		t.Fatal(err)
	}
	want := Profile{Name: "x", Source: "synthetic",
		SyscallEntryExit: 100, SyscallTracepoint: 60, TraceEvent: 100, SampleRecord: 240,
		CallchainEntry: 50, CallchainSetup: 600, ContextSwitch: 800, PerfContextSwitch: 760, HrtimerSample: 2760,
		ReaderRound: 3000, ReaderPerKiB: 2048}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Fit (-want +got):\n%s", d)
	}
	if b, tr := got.SeedCloseLoop(); b != 100 || tr != 100+2*(100+240) {
		t.Errorf("SeedCloseLoop = %v, %v; want 100ns, 780ns", b, tr)
	}
	if got.Callchain(0) != 0 || got.Callchain(4) != 800*sim.Nanosecond {
		t.Errorf("Callchain(0), (4) = %v, %v; want 0, 800ns", got.Callchain(0), got.Callchain(4))
	}
}

// TestFitRefusesBadFigures: a missing figure, a difference that comes out
// negative, and unreadable lines are errors that say which.
func TestFitRefusesBadFigures(t *testing.T) {
	noisy := Measurements{}
	for k, v := range synthetic {
		noisy[k] = v
	}
	noisy["closeloop.enter_close_filtered"] = 90
	if _, err := Fit("x", "", noisy); err == nil || !strings.Contains(err.Error(), "syscalls:* tracepoint fire comes out at -10.0 ns") {
		t.Errorf("noisy: err = %v", err)
	}
	delete(noisy, "yield.base")
	if _, err := Fit("x", "", noisy); err == nil || err.Error() != "calibration: no yield.base" {
		t.Errorf("missing: err = %v", err)
	}
	for _, text := range []string{"a 1 2", "a -1", "a x", "a NaN"} {
		if _, err := ParseMeasurements(text); err == nil || !strings.HasPrefix(err.Error(), "line 1:") {
			t.Errorf("ParseMeasurements(%q): err = %v", text, err)
		}
	}
}

// TestThisMachineMatchesItsMeasurements: the committed calibration fits,
// and the fit predicts seed 002's recording on this machine (which Fit does
// not use) within 20%.
func TestThisMachineMatchesItsMeasurements(t *testing.T) {
	m, err := ParseMeasurements(thisMachineText)
	if err != nil {
		t.Fatal(err)
	}
	p := ThisMachine()
	_, traced := p.SeedCloseLoop()
	real := m["closeloop.raw_syscalls"]
	if real == 0 {
		t.Fatal("testdata/this-machine.txt has no closeloop.raw_syscalls")
	}
	if r := float64(traced) / real; r < 0.8 || r > 1.2 {
		t.Errorf("predicted %v per close(-1) under raw_syscalls:*, measured %.1f ns: off by %.0f%%", traced, real, (r-1)*100)
	}
}

// TestI74790ReproducesTheSeed: the seed machine's profile gives the seed's
// two figures (it is derived from them).
func TestI74790ReproducesTheSeed(t *testing.T) {
	p := I74790()
	base, traced := p.SeedCloseLoop()
	wantRatio := Seed002TracedUs / Seed002BaseUs
	if r := float64(traced) / float64(base); r < wantRatio*0.99 || r > wantRatio*1.01 {
		t.Errorf("ratio %.3f, seed %.3f", r, wantRatio)
	}
}

// FuzzParseMeasurements: any text gives measurements or an error.
func FuzzParseMeasurements(f *testing.F) {
	f.Add(thisMachineText)
	f.Fuzz(func(t *testing.T, s string) { _, _ = ParseMeasurements(s) })
}

// ExampleProfile_SeedCloseLoop prints what the seed machine's profile says
// seed 002's loop costs per call: the seed measured 266.7 ns per close(-1)
// and 751.3 ns under perf record -e 'raw_syscalls:*'.
func ExampleProfile_SeedCloseLoop() {
	p := I74790()
	base, traced := p.SeedCloseLoop()
	fmt.Println(base, traced)
	// Output: 267ns 753ns
}

// TestFitHrtimerLate: a throttle every other tick means no late expiry; a
// throttle every 3 ticks (q = 1/2) means 1 - 0.5^(1/400) = 1731 per million;
// the committed hrtimer-gaps.txt fits; figures without their samples are
// refused.
func TestFitHrtimerLate(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
		err  string
	}{
		{"throttle.run0 100\nsamples.run0 80000\n", 0, ""},
		{"throttle.run0 50\nsamples.run0 60000\nthrottle.run1 50\nsamples.run1 60000\n", 1731, ""},
		{"throttle.run0 50\n", 0, "calibration: throttle.run0 without samples.run0"},
		{"gap.1 5\n", 0, "calibration: no throttle.runI and samples.runI figures (cost/calibrate/hrtimer-gaps.sh)"},
	} {
		m, err := ParseMeasurements(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		got, err := FitHrtimerLate(m)
		if gotErr := fmt.Sprint(err); (tc.err == "" && err != nil) || (tc.err != "" && gotErr != tc.err) || got != tc.want {
			t.Errorf("FitHrtimerLate(%q) = %d, %v; want %d, %q", tc.text, got, err, tc.want, tc.err)
		}
	}
	if p := ThisMachine(); p.HrtimerLatePerMillion <= 0 || p.HrtimerLatePerMillion >= 1e6 {
		t.Errorf("this-machine HrtimerLatePerMillion = %d, want a share fitted from testdata/hrtimer-gaps.txt", p.HrtimerLatePerMillion)
	}
}

// TestHrtimerLateShare: the hash makes about the profile's share of
// expiries late, on every CPU.
func TestHrtimerLateShare(t *testing.T) {
	p := Profile{HrtimerLatePerMillion: 5000}
	for cpu := range 2 {
		n := 0
		for i := range uint64(1000000) {
			if p.HrtimerLate(cpu, i) {
				n++
			}
		}
		if n < 4800 || n > 5200 {
			t.Errorf("cpu%d: %d of 1,000,000 expiries late, want about 5000", cpu, n)
		}
	}
	if (&Free).HrtimerLate(0, 1) {
		t.Error("the free profile made an expiry late")
	}
}

// TestFitSchedulePick: with the split figures, the switch (800 ns) is shared
// as the two intervals less their tracepoint sample (300 ns each) and, after
// sched_switch, perf's context switch (760 ns): 600 ns before and 200 after,
// so 600 ns of it before trace_sched_switch; a split that comes out
// negative is refused.
func TestFitSchedulePick(t *testing.T) {
	m := Measurements{"yield.enter_to_switch": 900, "yield.switch_to_exit": 1260}
	for k, v := range synthetic {
		m[k] = v
	}
	p, err := Fit("x", "synthetic", m)
	if err != nil || p.SchedulePick != 600 || p.ContextSwitch != 800 {
		t.Errorf("Fit: SchedulePick %v of ContextSwitch %v, %v; want 600ns of 800ns", p.SchedulePick, p.ContextSwitch, err)
	}
	m["yield.switch_to_exit"] = 900
	if _, err := Fit("x", "synthetic", m); err == nil || !strings.Contains(err.Error(), "switch split") {
		t.Errorf("Fit with a negative split: err = %v", err)
	}
}

// TestFitReader: three ring sizes whose wake-ups cost exactly 5 us plus
// 0.5 ns a byte give ReaderPerKiB = 512 ns and ReaderRound = 5 us less the
// switch, the perf context switch and three syscalls the model charges on
// its own.
func TestFitReader(t *testing.T) {
	p := Profile{ContextSwitch: 700, PerfContextSwitch: 300, SyscallEntryExit: 100}
	m := Measurements{}
	for _, r := range []struct {
		name  string
		bytes float64
	}{{"m1", 2048}, {"m2", 4096}, {"m4", 8192}} {
		m["reader."+r.name+".bytes"] = r.bytes
		m["reader."+r.name+".run_ns"] = 5000 + 0.5*r.bytes
	}
	if err := FitReader(&p, m); err != nil {
		t.Fatal(err)
	}
	if got, want := [2]sim.Duration{p.ReaderRound, p.ReaderPerKiB}, [2]sim.Duration{5000 - 700 - 300 - 3*100, 512}; got != want {
		t.Errorf("ReaderRound, ReaderPerKiB = %v, want %v", got, want)
	}
	delete(m, "reader.m2.run_ns")
	if err := FitReader(&p, m); err == nil || !strings.Contains(err.Error(), "reader.m2.run_ns") {
		t.Errorf("FitReader without reader.m2.run_ns: %v, want an error naming it", err)
	}
	m["reader.m2.run_ns"] = 1000
	m["reader.m1.run_ns"], m["reader.m4.run_ns"] = 1000, 1000
	if err := FitReader(&p, m); err == nil {
		t.Errorf("FitReader with wake-ups cheaper than the model's own costs: no error")
	}
}

// ExampleFitReader fits perf record's per-wake-up cost from
// reader-wakeups.sh's committed figures.
func ExampleFitReader() {
	m, err := ParseMeasurements(ReaderWakeupsText())
	if err != nil {
		panic(err)
	}
	p := Profile{ContextSwitch: 723, PerfContextSwitch: 345, SyscallEntryExit: 111}
	if err := FitReader(&p, m); err != nil {
		panic(err)
	}
	fmt.Println("per wake-up:", p.ReaderRound, "per KiB:", p.ReaderPerKiB)
	// Output: per wake-up: 3.963us per KiB: 470ns
}

// TestFitFaults: faults.sh's four figures become the four fault costs,
// rounded to the nanosecond; a missing or non-positive figure is an error
// naming it.
func TestFitFaults(t *testing.T) {
	m := Measurements{"fault.anon_write": 2533.4, "fault.anon_read": 962.6, "fault.file_map": 4099.6, "fault.file_cow": 2811.5}
	var p Profile
	if err := FitFaults(&p, m); err != nil {
		t.Fatal(err)
	}
	got := []sim.Duration{p.AnonFault, p.ZeroPageFault, p.FileMapFault, p.CopyFault}
	if d := cmp.Diff([]sim.Duration{2533, 963, 4100, 2812}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, tc := range []struct {
		key  string
		v    float64
		want string
	}{
		{"fault.file_map", -1, "calibration: fault.file_map comes out at -1.0 ns: rerun faults.sh"},
		{"fault.anon_read", 0, "calibration: fault.anon_read comes out at 0.0 ns: rerun faults.sh"},
	} {
		bad := Measurements{}
		for k, v := range m {
			bad[k] = v
		}
		bad[tc.key] = tc.v
		if err := FitFaults(&p, bad); err == nil || err.Error() != tc.want {
			t.Errorf("%s = %v: error %v, want %q", tc.key, tc.v, err, tc.want)
		}
	}
	delete(m, "fault.file_cow")
	if err := FitFaults(&p, m); err == nil || err.Error() != "calibration: no fault.file_cow (cost/calibrate/faults.sh)" {
		t.Errorf("without fault.file_cow: %v", err)
	}
}

// TestFitFileIO: the per-KiB figures as measured; a missing one is an
// error.
func TestFitFileIO(t *testing.T) {
	var p Profile
	if err := FitFileIO(&p, Measurements{"file.read_ns_per_kib": 86.1, "file.write_ns_per_kib": 312.1}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]sim.Duration{86, 312}, []sim.Duration{p.FileReadPerKiB, p.FileWritePerKiB}); d != "" {
		t.Errorf("read, write per KiB (-want +got):\n%s", d)
	}
	if err := FitFileIO(&p, Measurements{"file.read_ns_per_kib": 86.1}); err == nil {
		t.Error("no write figure: no error")
	}
}

// TestFitDiskWrite: the line through diskwrite.sh's 4 KB and 8192 KB
// writebacks; a missing figure is an error.
func TestFitDiskWrite(t *testing.T) {
	var p Profile
	if err := FitDiskWrite(&p, Measurements{"disk.write_4kb_ns": 330000, "disk.write_8192kb_ns": 330000 + 8188*760}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]sim.Duration{326960, 760}, []sim.Duration{p.DiskWriteBase, p.DiskWritePerKiB}); d != "" {
		t.Errorf("base, per KiB (-want +got):\n%s", d)
	}
	if err := FitDiskWrite(&p, Measurements{"disk.read_4kb_ns": 1, "disk.read_8192kb_ns": 2}); err == nil {
		t.Error("a read's figures fitted a write")
	}
}

// TestFitDiskRead: the line through diskread.sh's 4 KB and 8192 KB reads;
// a missing figure, or a disk faster for more, is an error.
func TestFitDiskRead(t *testing.T) {
	var p Profile
	if err := FitDiskRead(&p, Measurements{"disk.read_4kb_ns": 240000, "disk.read_8192kb_ns": 240000 + 8188*1250}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]sim.Duration{235000, 1250}, []sim.Duration{p.DiskReadBase, p.DiskReadPerKiB}); d != "" {
		t.Errorf("base, per KiB (-want +got):\n%s", d)
	}
	for _, m := range []Measurements{{"disk.read_4kb_ns": 1}, {"disk.read_4kb_ns": 500000, "disk.read_8192kb_ns": 400000}} {
		if err := FitDiskRead(&p, m); err == nil {
			t.Errorf("%v: no error", m)
		}
	}
}

// TestFitExitSplit: each part of a life is its share of the life's CPU
// time, the shares taken over the sum of the parts (the user part not
// charged); the last switch's SchedulePick comes off the part that ends
// at sched_switch; a missing figure or a part that comes out negative is
// an error. The committed figures give this machine's.
func TestFitExitSplit(t *testing.T) {
	fe := Measurements{"fork.child": 2000, "thread.life": 200}
	sp := Measurements{"exit.fork.user": 400, "exit.fork.start": 50, "exit.fork.mm": 300, "exit.fork.files": 150, "exit.fork.dead": 100,
		"exit.thread.user": 30, "exit.thread.start": 10, "exit.thread.mm": 20, "exit.thread.rest": 40}
	p := Profile{SchedulePick: 20}
	if err := FitExitSplit(&p, fe, sp); err != nil {
		t.Fatal(err)
	}
	exits := func(p Profile) []sim.Duration {
		return []sim.Duration{p.ExitStart, p.ExitMMap, p.ExitFiles, p.ExitDead, p.ExitThreadStart, p.ExitThreadMM, p.ExitThreadRest}
	}
	if d := cmp.Diff([]sim.Duration{100, 600, 300, 180, 20, 40, 60}, exits(p)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	p.SchedulePick = 100
	if err := FitExitSplit(&p, fe, sp); err == nil || err.Error() != "calibration: a thread's exit after exit_mm_release(), less SchedulePick comes out at -20.0 ns: rerun forkexit.sh or exitsplit.sh" {
		t.Errorf("SchedulePick over the thread's rest: %v", err)
	}
	delete(sp, "exit.fork.files")
	if err := FitExitSplit(&p, fe, sp); err == nil || err.Error() != "calibration: no exit.fork.files (cost/calibrate/forkexit.sh, exitsplit.sh)" {
		t.Errorf("without exit.fork.files: %v", err)
	}
	if d := cmp.Diff([]sim.Duration{3876, 26850, 7421, 4115, 588, 1081, 1786}, exits(ThisMachine())); d != "" {
		t.Errorf("this machine (-want +got):\n%s", d)
	}
}

// TestFitExecSplit: ExecStart is the part up to exit_mmap()'s end less the
// old mm's teardown (ExitMMap), ExecLoad the rest less the two padzero()
// faults (CopyFault each, charged as faults); a missing figure or a
// teardown longer than the part it ends is an error. The committed figures
// give this machine's: 86,402 ns after exec_mmap(), 2 x 2,812 of it the
// faults.
func TestFitExecSplit(t *testing.T) {
	m := Measurements{"exec.start": 900, "exec.load": 700, "exec.end": 50}
	p := Profile{ExitMMap: 300, CopyFault: 20}
	if err := FitExecSplit(&p, m); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]sim.Duration{600, 710}, []sim.Duration{p.ExecStart, p.ExecLoad}); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	p.ExitMMap = 1000
	if err := FitExecSplit(&p, m); err == nil || err.Error() != "calibration: execve() to exec_mmap(), less the old mm's exit_mmap() (ExitMMap) comes out at -100.0 ns: rerun execsplit.sh" {
		t.Errorf("ExitMMap over exec.start: %v", err)
	}
	delete(m, "exec.load")
	if err := FitExecSplit(&p, m); err == nil || err.Error() != "calibration: no exec.load (cost/calibrate/execsplit.sh)" {
		t.Errorf("without exec.load: %v", err)
	}
	tm := ThisMachine()
	if d := cmp.Diff([]sim.Duration{56886, 80778}, []sim.Duration{tm.ExecStart, tm.ExecLoad}); d != "" {
		t.Errorf("this machine (-want +got):\n%s", d)
	}
}
