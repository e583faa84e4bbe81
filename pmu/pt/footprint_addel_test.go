package pt_test

import (
	"testing"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
)

func TestAddDelFootprintsDump(t *testing.T) {
	mc := newMachine(t, sim.NewRandom(1), nil)
	l := &fragLog{}
	mc.m.OnSegments(l)
	mc.s.Spawn("traced", sched.MaskOf(0), sched.Call(func(task *sched.Task) {
		a := ptAttr()
		a.AuxStartPaused = false
		fd, err := mc.k.PerfEventOpen(task, &a, 0, -1, -1, 0)
		if err != nil {
			panic(err)
		}
		if _, err := mapAux(task, mc.k, fd, pmu.ProtRead|pmu.ProtWrite); err != nil {
			panic(err)
		}
	}), sched.Loop(2, sched.Sleep(2*sim.Microsecond), sched.Compute(700*sim.Nanosecond)))
	if err := mc.m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"event_sched_in", "event_sched_out", "pt_config:started", "pt_event_stop:config-stopped", "perf_aux_output_begin:aux_refcount", "perf_aux_output_end:nest-zero", "pt_event_stop:handle-nmi-cleared"} {
		for _, f := range l.started(s) {
			t.Logf("%s: %s", s, f)
		}
	}
}
