package coresight_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/pmu/coresight"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// kernelRun is seed 004 on the perf core with the cs_etm PMU and no tool:
// dd opens one cs_etm event per CPU on itself (what `perf record -e cs_etm//
// -S -- dd` opens), maps a read-only 4 MiB AUX area on each, runs P1..P5 on
// CPU0, CPU3, CPU1, CPU2, CPU1 (enabled once mapped) and, in P5, disables every event (the
// snapshot's evsel__disable()).
type kernelRun struct {
	dev      *coresight.Device
	heads    map[int]string // AUX head per CPU buffer, in MiB
	periods  map[int][]int  // periods each whole AUX buffer holds
	isActive []int          // CtxIsActive() seen at the disable, per event
	owner    int
}

func runSeed004(t *testing.T, knobs coresight.Knobs, sink string) kernelRun {
	t.Helper()
	m := cpu.NewMachine(cpu.Config{CPUs: 4}, sim.NewRandom(1))
	defer m.Close()
	s := sched.New(m, sched.DefaultConfig())
	k := pmu.NewKernel(s, pmu.DefaultOptions(4))
	p, err := coresight.NewPMU(k, coresight.Config{Sink: sink, Rate: 300 << 20, Knobs: knobs})
	if err != nil {
		t.Fatal(err)
	}
	if err := k.RegisterPMU(p); err != nil {
		t.Fatal(err)
	}
	const auxSize = 4 << 20
	var fds []int
	var maps []*pmu.Mapping
	var evs []*pmu.Event
	run := kernelRun{dev: p.Device(), heads: map[int]string{}, periods: map[int][]int{}}
	open := func(task *sched.Task) {
		for c := 0; c < 4; c++ {
			a := pmu.Attr{Type: coresight.TypeCSETM, Config: 1<<28 | 1<<14, Size: uapi.AttrSize, SamplePeriod: 1, // timestamp, contextid
				SampleType: uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME, SampleIDAll: true, Disabled: true}
			fd, err := k.PerfEventOpen(task, &a, 0, c, -1, 0)
			if err != nil {
				t.Errorf("perf_event_open cpu%d: %v", c, err)
				return
			}
			m, err := k.Mmap(task, fd, 0, 2*pmu.PageSize, pmu.ProtRead|pmu.ProtWrite)
			if err != nil {
				t.Errorf("mmap cpu%d: %v", c, err)
				return
			}
			m.RB.User.AuxOffset, m.RB.User.AuxSize = 2*pmu.PageSize, auxSize
			if _, err := k.Mmap(task, fd, 2, auxSize, pmu.ProtRead); err != nil {
				t.Errorf("AUX mmap cpu%d: %v", c, err)
				return
			}
			fds, maps = append(fds, fd), append(maps, m)
		}
		for _, fd := range fds { // evlist__enable() once the rings are mapped
			if _, err := k.Ioctl(task, fd, uapi.PERF_EVENT_IOC_ENABLE, 0); err != nil {
				t.Errorf("enable: %v", err)
			}
		}
		for _, e := range k.Events() {
			if e.PMU() == p {
				evs = append(evs, e)
			}
		}
	}
	disable := func(task *sched.Task) {
		for _, e := range evs {
			if e.State() == pmu.StateActive {
				run.isActive = append(run.isActive, e.CtxIsActive())
				run.owner = e.OwnerPID()
			}
		}
		for _, fd := range fds {
			if _, err := k.Ioctl(task, fd, uapi.PERF_EVENT_IOC_DISABLE, 0); err != nil {
				t.Errorf("disable: %v", err)
			}
		}
	}
	// read each AUX buffer as the snapshot would, before dd's exit unmaps
	// them (exit_mmap())
	read := func(*sched.Task) {
		for c, mp := range maps {
			head := mp.RB.User.AuxHead
			if head == 0 {
				continue
			}
			run.heads[c] = coresight.MiB(int64(head))
			n := min(head, auxSize)
			rep := p.Device().NewAnalyzer().Analyze([]coresight.Chunk{{CPU: c, Data: mp.RB.AuxCopyOut(head-n, int(n))}})
			run.periods[c] = rep.PeriodList()
		}
	}
	ms := func(n int64) sim.Duration { return sim.Duration(n) * sim.Millisecond }
	s.Spawn("dd", sched.MaskOf(0), sched.Call(open),
		sched.Compute(ms(10)), sched.Migrate(3), sched.Compute(ms(10)), sched.Migrate(1), sched.Compute(ms(10)),
		sched.Migrate(2), sched.Compute(ms(10)), sched.Migrate(1), sched.Compute(ms(10)), sched.Call(disable), sched.Call(read))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	return run
}

// TestPMUSeed004Kernel drives the cs_etm PMU through the perf core: every
// sched-out of dd commits its period into that CPU's AUX buffer (today), or
// only the disable of the running event does (is-active).
func TestPMUSeed004Kernel(t *testing.T) {
	type result struct {
		Heads    map[int]string
		Periods  map[int][]int
		IsActive []int
	}
	tests := []struct {
		name  string
		knobs coresight.Knobs
		want  result
	}{{
		"every-stop", coresight.Knobs{},
		result{Heads: map[int]string{0: "3.0MiB", 1: "6.0MiB", 2: "3.0MiB", 3: "3.0MiB"},
			// CPU1's 4 MiB hold P3's last MiB and P5 (6 MiB went in).
			Periods:  map[int][]int{0: {1}, 1: {3, 5}, 2: {4}, 3: {2}},
			IsActive: []int{pmu.EVENT_ALL | pmu.EVENT_TIME}},
	}, {
		"is-active", coresight.Knobs{SnapshotSync: coresight.SyncIsActive},
		result{Heads: map[int]string{1: "3.0MiB"}, Periods: map[int][]int{1: {5}},
			IsActive: []int{pmu.EVENT_ALL | pmu.EVENT_TIME}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runSeed004(t, tc.knobs, coresight.SinkETR)
			got := result{Heads: r.heads, Periods: r.periods, IsActive: r.isActive}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if r.owner <= 0 {
				t.Errorf("OwnerPID = %d, want dd's pid", r.owner)
			}
			if len(r.dev.Warnings) != 0 {
				t.Errorf("driver warnings: %v", r.dev.Warnings)
			}
			if r.dev.Stats.Periods != 5 {
				t.Errorf("periods = %d, want 5", r.dev.Stats.Periods)
			}
		})
	}
}

// TestPMUTRBESeed004 is the same schedule behind per-CPU TRBEs: the trace
// goes straight into each CPU's AUX buffer; no warnings, five periods.
func TestPMUTRBESeed004(t *testing.T) {
	r := runSeed004(t, coresight.Knobs{}, coresight.SinkTRBE)
	if len(r.dev.Warnings) != 0 {
		t.Errorf("driver warnings: %v", r.dev.Warnings)
	}
	want := map[int][]int{0: {1}, 1: {3, 5}, 2: {4}, 3: {2}}
	if d := cmp.Diff(want, r.periods); d != "" {
		t.Errorf("periods per AUX buffer (-want +got):\n%s", d)
	}
}

// TestPMURegistered checks the driver's registration: name, attributes,
// knobs and what New builds.
func TestPMURegistered(t *testing.T) {
	d, ok := pmu.LookupDriver("cs_etm")
	if !ok {
		t.Fatal("cs_etm not registered")
	}
	if len(d.Knobs) != 2 || d.Attrs["sink"] == nil || d.Attrs["sink-size"] == nil || d.Attrs["rate"] == nil {
		t.Errorf("driver = %+v", d)
	}
	m := cpu.NewMachine(cpu.Config{CPUs: 2}, sim.NewRandom(1))
	defer m.Close()
	k := pmu.NewKernel(sched.New(m, sched.DefaultConfig()), pmu.DefaultOptions(2))
	for _, tc := range []struct {
		attrs map[string]string
		err   bool
	}{
		{map[string]string{"sink": "trbe", "rate": "100M"}, false},
		{map[string]string{"sink": "etr", "sink-size": "1M"}, false},
		{map[string]string{"sink-size": "10"}, true},
		{map[string]string{"rate": "fast"}, true},
	} {
		p, err := d.New(k, tc.attrs)
		if (err != nil) != tc.err {
			t.Errorf("New(%v) = %v, want error %v", tc.attrs, err, tc.err)
			continue
		}
		if err == nil {
			cs := p.(*coresight.PMU)
			if cs.Type() != coresight.TypeCSETM || cs.Capabilities() != coresight.DefaultCaps || cs.Name() != "cs_etm" {
				t.Errorf("PMU %s type %d caps %#x", cs.Name(), cs.Type(), cs.Capabilities())
			}
		}
	}
}
