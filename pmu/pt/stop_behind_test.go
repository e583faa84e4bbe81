package pt_test

import (
	"strings"
	"testing"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
)

// TestStopMarkerBehindOverwritesUnread drives pt_buffer_reset_markers() into
// the case TestResetMarkers calls "carry", end to end. A task traces its own
// user time into a 32K AUX area (4K output regions, 1000 bytes/us), reading
// it once, as perf does, up to aux_head 12800. It traces on to 42000 and
// sleeps; nobody reads. At the sched-in, perf_aux_output_begin() finds 3567
// bytes of room (up to aux_tail + 32K = 45568), a page boundary inside it:
// the page count drops the carry, STOP and INT go on entries behind the
// hardware, and the output runs past 45568 over the trace the reader has not
// read (aux-no-overwrite-unread): the upstream bug of
// docs/upstream/pt-reset-markers-carry.md. With pt-reset-markers=proposed
// STOP goes on the entry ending at 45056 and the same run is clean.
func TestStopMarkerBehindOverwritesUnread(t *testing.T) {
	joined := runStopBehind(t, nil)
	if !strings.Contains(joined, "aux-no-overwrite-unread: the hardware wrote AUX bytes [0xb200,") {
		t.Errorf("want the hardware to write past 0xb200 (45568):\n%s", joined)
	}
	if joined := runStopBehind(t, map[string]string{"pt-reset-markers": "proposed"}); joined != "" {
		t.Errorf("pt-reset-markers=proposed: want no violation, got:\n%s", joined)
	}
}

// runStopBehind runs the case with the given kernel knobs and returns the
// buffer invariants' violations, one a line.
func runStopBehind(t *testing.T, knobs map[string]string) string {
	t.Helper()
	mc := newMachine(t, sim.NewRandom(1), knobs)
	mc.k.TraceBuffers(0)
	var m *pmu.Mapping
	mc.s.Spawn("app", sched.MaskOf(0), sched.Call(func(task *sched.Task) {
		a := ptAttr()
		a.AuxStartPaused, a.ExcludeUser, a.ExcludeKernel = false, false, true
		fd, err := mc.k.PerfEventOpen(task, &a, 0, -1, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if m, err = mapAux(task, mc.k, fd, pmu.ProtRead|pmu.ProtWrite); err != nil {
			t.Fatal(err)
		}
	}),
		sched.Sleep(sim.Microsecond), // sched-in: perf_aux_output_begin() at 0
		sched.Compute(12800*sim.Nanosecond),
		sched.Sleep(sim.Microsecond),                                            // sched-out: aux_head 12800
		sched.Call(func(*sched.Task) { m.RB.User.AuxTail = m.RB.User.AuxHead }), // auxtrace_mmap__read()
		sched.Compute(29200*sim.Nanosecond),
		sched.Sleep(sim.Microsecond), // aux_head 42000; at the sched-in 3567 bytes of room
		sched.Compute(5*sim.Microsecond))
	if err := mc.m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range mc.k.BufferLogs() {
		for _, v := range l.Check() {
			got = append(got, v.String())
		}
	}
	return strings.Join(got, "\n")
}
