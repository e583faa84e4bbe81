package pt_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/perftool"
	"perfsim/pmu"
	"perfsim/pmu/pt"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

type machine struct {
	m  *cpu.Machine
	s  *sched.Sched
	k  *pmu.Kernel
	pt *pt.PMU
}

func newMachine(tb testing.TB, ch sim.Chooser, knobs map[string]string) *machine {
	m := cpu.NewMachine(cpu.Config{CPUs: 1}, ch)
	s := sched.New(m, sched.DefaultConfig())
	o := pmu.DefaultOptions(1)
	o.Knobs.Extra = knobs
	o.Tracepoints = perftool.KernelTracepoints()
	k := pmu.NewKernel(s, o)
	p := pt.New(k, 1000, 4096, pt.DefaultCaps)
	if err := k.RegisterPMU(p); err != nil {
		tb.Fatal(err)
	}
	if tb != nil {
		tb.Cleanup(m.Close)
	}
	return &machine{m: m, s: s, k: k, pt: p}
}

func ptAttr() pmu.Attr {
	return pmu.Attr{Type: pt.TypeIntelPT, Size: uapi.AttrSize, SamplePeriod: 1, AuxStartPaused: true, ExcludeUser: true,
		SampleType: uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME, SampleIDAll: true}
}

func tpAttr(tb testing.TB, name string) pmu.Attr {
	r, err := perftool.Parse([]string{"-o", "/dev/null", "-e", "syscalls:" + name, "--", "task"}, perftool.DefaultOptions())
	if err != nil {
		tb.Fatal(err)
	}
	a := r.Evsels[0].Attr
	a.SamplePeriod = 1
	return a
}

// mapAux maps a 1+8 page data ring and an 8-page AUX area on fd as perf does:
// aux_offset and aux_size written into the user page first.
func mapAux(t *sched.Task, k *pmu.Kernel, fd int, prot pmu.Prot) (*pmu.Mapping, error) {
	m, err := k.Mmap(t, fd, 0, 9*4096, pmu.ProtRead|pmu.ProtWrite)
	if err != nil {
		return nil, err
	}
	m.RB.User.AuxOffset, m.RB.User.AuxSize = 9*4096, 8*4096
	return k.Mmap(t, fd, 9, 8*4096, prot)
}

func TestAuxMmapErrnos(t *testing.T) {
	for _, tc := range []struct {
		name             string
		noData           bool
		offset, size     uint64 // written into the user page
		pgoff, length    uint64 // of the AUX mmap
		want             error
		mapTwice, differ bool
	}{
		{name: "ok", offset: 9 * 4096, size: 8 * 4096, pgoff: 9, length: 8 * 4096},
		{name: "no rb", noData: true, offset: 9 * 4096, size: 8 * 4096, pgoff: 9, length: 8 * 4096, want: uapi.EINVAL},
		{name: "aux_offset inside the data area", offset: 8 * 4096, size: 8 * 4096, pgoff: 8, length: 8 * 4096, want: uapi.EINVAL},
		{name: "aux_offset != vm_pgoff", offset: 9 * 4096, size: 8 * 4096, pgoff: 10, length: 8 * 4096, want: uapi.EINVAL},
		{name: "aux_size != length", offset: 9 * 4096, size: 4 * 4096, pgoff: 9, length: 8 * 4096, want: uapi.EINVAL},
		{name: "not a power of 2", offset: 9 * 4096, size: 3 * 4096, pgoff: 9, length: 3 * 4096, want: uapi.EINVAL},
		{name: "second mapping, same", offset: 9 * 4096, size: 8 * 4096, pgoff: 9, length: 8 * 4096, mapTwice: true},
		{name: "second mapping, other size", offset: 9 * 4096, size: 8 * 4096, pgoff: 9, length: 8 * 4096, mapTwice: true, differ: true, want: uapi.EINVAL},
	} {
		mc := newMachine(t, sim.NewRandom(1), nil)
		var got error
		mc.s.Spawn("perf", sched.MaskOf(0), sched.Call(func(task *sched.Task) {
			a := ptAttr()
			fd, err := mc.k.PerfEventOpen(task, &a, 0, -1, -1, 0)
			if err != nil {
				t.Errorf("%s: open: %v", tc.name, err)
				return
			}
			if !tc.noData {
				m, err := mc.k.Mmap(task, fd, 0, 9*4096, pmu.ProtRead|pmu.ProtWrite)
				if err != nil {
					t.Errorf("%s: data mmap: %v", tc.name, err)
					return
				}
				m.RB.User.AuxOffset, m.RB.User.AuxSize = tc.offset, tc.size
				if tc.mapTwice {
					if _, err := mc.k.Mmap(task, fd, tc.pgoff, tc.length, pmu.ProtRead|pmu.ProtWrite); err != nil {
						t.Errorf("%s: first AUX mmap: %v", tc.name, err)
					}
					if tc.differ {
						m.RB.User.AuxSize = 4 * 4096
						tc.length = 4 * 4096
					}
				}
			}
			_, got = mc.k.Mmap(task, fd, tc.pgoff, tc.length, pmu.ProtRead|pmu.ProtWrite)
		}))
		if err := mc.m.Run(sim.Second); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s: AUX mmap = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestAuxOpenErrnos(t *testing.T) {
	cycles := func() pmu.Attr {
		return pmu.Attr{Type: uapi.PERF_TYPE_HARDWARE, Size: uapi.AttrSize, Config: uapi.PERF_COUNT_HW_CPU_CYCLES, SamplePeriod: 1000}
	}
	for _, tc := range []struct {
		name     string
		leaderPT bool // open under a PT leader (else a cycles leader, or none)
		noLeader bool
		attr     func(a *pmu.Attr)
		want     error
	}{
		{"aux_pause under PT", true, false, func(a *pmu.Attr) { a.AuxPause = true }, nil},
		{"aux_resume under PT", true, false, func(a *pmu.Attr) { a.AuxResume = true }, nil},
		{"aux_pause and aux_resume", true, false, func(a *pmu.Attr) { a.AuxPause, a.AuxResume = true, true }, uapi.EINVAL},
		{"aux_pause without a leader", false, true, func(a *pmu.Attr) { a.AuxPause = true }, uapi.EINVAL},
		{"aux_pause under a non-AUX leader", false, false, func(a *pmu.Attr) { a.AuxPause = true }, uapi.EINVAL},
		{"aux_start_paused on cycles", false, true, func(a *pmu.Attr) { a.AuxStartPaused = true }, uapi.EOPNOTSUPP},
		{"aux_output with aux_pause", true, false, func(a *pmu.Attr) { a.AuxOutput, a.AuxPause = true, true }, uapi.EOPNOTSUPP},
		{"aux_sample_size under PT", true, false, func(a *pmu.Attr) { a.AuxSampleSize = 4096; a.SampleType |= uapi.PERF_SAMPLE_AUX }, nil},
		{"aux_sample_size without a leader", false, true, func(a *pmu.Attr) { a.AuxSampleSize = 4096 }, uapi.EINVAL},
	} {
		mc := newMachine(t, sim.NewRandom(1), nil)
		var got error
		mc.s.Spawn("perf", sched.MaskOf(0), sched.Call(func(task *sched.Task) {
			leader := -1
			if !tc.noLeader {
				la := cycles()
				if tc.leaderPT {
					la = ptAttr()
				}
				var err error
				if leader, err = mc.k.PerfEventOpen(task, &la, 0, -1, -1, 0); err != nil {
					t.Errorf("%s: leader: %v", tc.name, err)
					return
				}
			}
			a := cycles()
			tc.attr(&a)
			_, got = mc.k.PerfEventOpen(task, &a, 0, -1, leader, 0)
		}))
		if err := mc.m.Run(sim.Second); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s: open = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// pauseResumeRun is the aux-pause-resume-nmi setup: a PT leader started paused,
// sys_enter_newuname (task context) resumes, a cycles counter (NMI) pauses.
func pauseResumeRun(tb testing.TB, ch sim.Chooser, guard string) (k *pmu.Kernel, p *pt.PMU) {
	mc := newMachine(nil, ch, map[string]string{"aux-pause-guard": guard})
	defer mc.m.Close()
	mc.s.Spawn("uname", sched.MaskOf(0), sched.Call(func(task *sched.Task) {
		la := ptAttr()
		leader, err := mc.k.PerfEventOpen(task, &la, 0, -1, -1, 0)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := mapAux(task, mc.k, leader, pmu.ProtRead|pmu.ProtWrite); err != nil {
			tb.Fatal(err)
		}
		ra := tpAttr(tb, "sys_enter_newuname")
		ra.AuxResume = true
		ra.Inherit, ra.UseClockid, ra.Clockid, ra.Disabled, ra.EnableOnExec = false, false, 0, false, false
		if _, err := mc.k.PerfEventOpen(task, &ra, 0, -1, leader, 0); err != nil {
			tb.Fatal(err)
		}
		ca := pmu.Attr{Type: uapi.PERF_TYPE_HARDWARE, Size: uapi.AttrSize, Config: uapi.PERF_COUNT_HW_CPU_CYCLES, SamplePeriod: 1500, AuxPause: true}
		if _, err := mc.k.PerfEventOpen(task, &ca, 0, -1, leader, 0); err != nil {
			tb.Fatal(err)
		}
	}), sched.Loop(30, sched.Syscall("newuname"), sched.Compute(700*sim.Nanosecond)))
	if err := mc.m.Run(sim.Second); err != nil {
		tb.Fatal(err)
	}
	return mc.k, mc.pt
}

func TestPauseResumeGuard(t *testing.T) {
	type tally struct{ Overlaps, Dropped, Calls bool }
	for _, tc := range []struct {
		guard string
		want  tally
	}{
		{"on", tally{Overlaps: false, Dropped: true, Calls: true}},
		{"off", tally{Overlaps: true, Dropped: false, Calls: true}},
	} {
		var got tally
		for seed := uint64(1); seed <= 300 && !(got.Overlaps == tc.want.Overlaps && got.Dropped == tc.want.Dropped && got.Calls); seed++ {
			k, _ := pauseResumeRun(t, sim.NewRandom(seed), tc.guard)
			o, _ := k.Observe("aux.pause_resume.overlaps")
			d, _ := k.Observe("aux.pause_resume.dropped")
			c, _ := k.Observe("aux.pause_resume.calls")
			got.Overlaps = got.Overlaps || o > 0
			got.Dropped = got.Dropped || d > 0
			got.Calls = got.Calls || c > 0
			if tc.guard == "on" && o > 0 {
				t.Fatalf("seed %d: guard on, overlap: %s", seed, k.PauseResumeViolation())
			}
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("aux-pause-guard=%s over 300 schedules (-want +got):\n%s", tc.guard, d)
		}
	}
}

// BenchmarkPauseResumeNMI runs the aux-pause-resume-nmi setup (30 uname
// syscalls, a cycles NMI every 1500 cycles) once per iteration, each with its
// own random schedule: schedules per second = iterations per second.
func BenchmarkPauseResumeNMI(b *testing.B) {
	for i := 0; i < b.N; i++ {
		pauseResumeRun(b, sim.NewRandom(uint64(i)+1), "off")
	}
}
