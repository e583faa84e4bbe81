package runner

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"perfsim/scenarios"
	"perfsim/sim"
)

// fuzzOptions are the tiny limits the fuzz targets run with: every run stops
// within a few thousand steps or a few milliseconds of virtual time, and the
// wall clock and heap limits are far enough not to decide anything (a run
// stopped by them would not be reproducible).
func fuzzOptions() Options {
	return Options{Limit: 5 * sim.Millisecond, MaxSteps: 30_000, MaxWall: time.Minute, MaxMemory: 4 << 30,
		KeepTrace: true, PerfDataKeep: 1 << 20, Chooser: ScheduleChooser(7, 0)}
}

// fuzzRun loads src and, when it loads, runs it twice with fuzzOptions: no
// Go panic (a model crash is an oops in the Result, a runaway a
// *LimitError), every error a scenario error or a limit, and the second run
// byte-identical to the first (its Result JSON, with the trace's hash; or
// the same limit).
func fuzzRun(t *testing.T, src []byte) {
	f, err := Load(&scenarios.Source{Name: "fuzz.sim", Src: src})
	if err != nil {
		return
	}
	first, err1 := fuzzOnce(f)
	second, err2 := fuzzOnce(f)
	if err1 != err2 || first != second {
		t.Fatalf("two runs differ:\n%s%s\n----\n%s%s\nscenario:\n%s", err1, first, err2, second, src)
	}
}

func fuzzOnce(f *scenarios.File) (string, string) {
	_, res, err := RunOnce(f, fuzzOptions())
	if err != nil {
		var le *LimitError
		var se *scenarios.Error
		var list scenarios.ErrorList
		if !errors.As(err, &le) && !errors.As(err, &se) && !errors.As(err, &list) {
			panic(fmt.Sprintf("RunOnce error %T: %v", err, err))
		}
		return "", err.Error()
	}
	var b bytes.Buffer
	if err := res.WriteJSON(&b); err != nil {
		panic(err)
	}
	return b.String(), ""
}

// FuzzRunText mutates scenario files (the built-ins and the language's
// examples) and runs what still loads, twice, with tiny limits.
//
//	go test -run=NONE -fuzz=FuzzRunText ./runner/
func FuzzRunText(f *testing.F) {
	for _, b := range scenarios.Builtins() {
		f.Add(b.Src)
	}
	files, _ := filepath.Glob("../scenarios/testdata/examples/*.sim")
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Fuzz(fuzzRun)
}

// FuzzRunGenerated builds small scenarios from the grammar, each choice
// taken from the fuzzer's bytes (genScenario), and runs them twice with tiny
// limits. Most load, so the fuzzer spends its time in the runtime.
//
//	go test -run=NONE -fuzz=FuzzRunGenerated ./runner/
func FuzzRunGenerated(f *testing.F) {
	for _, seed := range []string{"", "\x01\x02\x03\x04", "\x03\x05\x07\x09\x0b\x0d\x0f\x11\x13", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, choices []byte) { fuzzRun(t, []byte(genScenario(choices))) })
}

// TestFuzzSeeds runs the fuzz targets' seeds and a few dozen generated
// scenarios as an ordinary test.
func TestFuzzSeeds(t *testing.T) {
	for i := range 40 {
		choices := make([]byte, 64)
		for j := range choices {
			choices[j] = byte(i*131 + j*17 + (i*j)%7)
		}
		fuzzRun(t, []byte(genScenario(choices)))
	}
}

// picker hands out choices from the fuzzer's bytes (zeros once they run out).
type picker struct {
	b []byte
	i int
}

func (p *picker) n(k int) int {
	if p.i >= len(p.b) || k <= 1 {
		p.i++
		return 0
	}
	v := int(p.b[p.i]) % k
	p.i++
	return v
}

func (p *picker) pick(xs ...string) string { return xs[p.n(len(xs))] }

// genScenario writes a small scenario from the grammar of scenarios/doc.go:
// CPUs, PMUs, kernel knobs, tasks with programs (nested repeats), record
// lines, actions, forced interleavings and outcomes.
func genScenario(choices []byte) string {
	p := &picker{b: choices}
	var b strings.Builder
	cpus := 1 + p.n(4)
	fmt.Fprintf(&b, "cpus %d\n", cpus)
	cpu := func() string { return fmt.Sprintf("cpu%d", p.n(cpus)) }
	if p.n(3) == 0 {
		b.WriteString(p.pick("pmu intel_pt caps=aux-pause,itrace\n", "pmu cs_etm sink=etr sink-size=1M\n", "pmu cpu skid=200ns\n"))
	}
	if p.n(3) == 0 {
		b.WriteString(p.pick("kernel rb-put-handle=pre-1b038c6e05ff\n", "kernel task-work-nmi=pre-ef1ea98c8fff\n",
			"kernel sched-balance=on\n", "kernel pause-output-rb-check=posted\n", "tool overwrite-reader=unpaused\n"))
	}
	ntasks := 1 + p.n(3)
	var ops func(depth int, indent string)
	ops = func(depth int, indent string) {
		for range 1 + p.n(4) {
			switch k := p.n(9); {
			case k == 0 && depth < 3:
				fmt.Fprintf(&b, "%srepeat %d\n", indent, 1+p.n(12))
				ops(depth+1, indent+"  ")
			case k <= 2:
				fmt.Fprintf(&b, "%scompute %dus\n", indent, p.n(200))
			case k <= 4:
				fmt.Fprintf(&b, "%ssyscall %s\n", indent, p.pick("close", "newuname", "read 20us", "write", "close 1us"))
			case k == 5:
				fmt.Fprintf(&b, "%ssleep %dus\n", indent, 1+p.n(300))
			case k == 6:
				fmt.Fprintf(&b, "%s%s\n", indent, p.pick("migrate "+cpu(), "pin "+cpu(), fmt.Sprintf("pin cpus 0-%d", cpus-1)))
			case k == 7:
				fmt.Fprintf(&b, "%s%s\n", indent, p.pick("stack user main;foo;bar", "stack kernel f;g"))
			default:
				if p.n(8) == 0 {
					fmt.Fprintf(&b, "%sexit\n", indent)
				} else {
					fmt.Fprintf(&b, "%scompute 1us\n", indent)
				}
			}
		}
	}
	for i := range ntasks {
		fmt.Fprintf(&b, "task t%d%s\n", i, p.pick("", " "+cpu(), " nice 5"))
		ops(0, "  ")
	}
	nrec := p.n(3)
	for i := range nrec {
		fmt.Fprintf(&b, "record s%d: %s %s %s\n", i,
			p.pick("-e 'raw_syscalls:*'", "-e cycles -c 10000", "-e cpu-clock -F 20000", "-e raw_syscalls:sys_enter -g",
				"-e '{intel_pt/aux-action=start-paused/k,cycles/aux-action=pause/}'", "-e intel_pt//u -S", "-e cs_etm//u -S",
				"-e cycles/period=5000/ --call-graph fp,defer", "-e task-clock -c 50000 --overwrite"),
			p.pick("", "-m 3", "-m 1", "-F 1000000000", "--switch-events", "-c 0", "-m 4,8"),
			p.pick(fmt.Sprintf("-- t%d", p.n(ntasks)), "-a", "-C 0", fmt.Sprintf("-a -- t%d", p.n(ntasks))))
	}
	for range p.n(4) {
		at := fmt.Sprintf("at %dus ", p.n(3000))
		if nrec > 0 && p.n(2) == 0 {
			s := fmt.Sprintf("s%d", p.n(nrec))
			b.WriteString(at + p.pick("read "+s, "pause-output "+s, "resume-output "+s, "snapshot "+s, "disable "+s,
				"enable "+s, "munmap "+s, "stop "+s, "refresh "+s+" 2", "spin-read "+s) + "\n")
		} else {
			b.WriteString(at + p.pick("nmi "+cpu(), "task-work-nmi "+cpu(), fmt.Sprintf("signal t%d", p.n(ntasks))) + "\n")
		}
	}
	if p.n(2) == 0 {
		fmt.Fprintf(&b, "%s at %s occurrence %d\n", p.pick("nmi "+cpu(), fmt.Sprintf("preempt t%d", p.n(ntasks)),
			fmt.Sprintf("migrate t%d to %s", p.n(ntasks), cpu())),
			p.pick("syscall_enter_from_user_mode", "perf_output_get_handle:nest-inc", "perf_event_aux_pause:guard-set", "__schedule:irqs-off"),
			1+p.n(3))
	}
	b.WriteString(p.pick("always task.t0.exited\n", "sometimes perf.samples > 0\n", "always samples >= 0\n",
		"never rb.data-head-backwards > 0\n", "always cpu0.nmis * 2 >= cpu0.nmis at 1ms\n"))
	return b.String()
}
