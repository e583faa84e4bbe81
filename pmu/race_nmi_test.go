package pmu_test

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// nmiSchedOutRun: a task samples its own cycles (period = exactly one compute
// chunk, so the counter overflows as the chunk ends and the PMI is pending
// while the task yields to a second task on the same CPU). force, when set,
// takes the pending PMI at every step point with that label. It returns the
// first violation of:
//   - a sample is written only for an event ACTIVE on the writing CPU;
//   - the count is all there: count == cycles/ns * time running;
//   - overflows are not lost silently: sum(sample periods) <= count and the
//     shortfall is less than a period per sched-out that swallowed one.
func nmiSchedOutRun(ch sim.Chooser, force string) (msg string, samples uint64) {
	return nmiSchedOutRunWith(ch, force, false, "")
}

// nmiSchedOutRunWith is nmiSchedOutRun with the event precise (PEBS) and
// sampling callchains when precise is set, under the given
// pebs-disable-order knob value ("" for today's). A model oops is returned as
// the violation, prefixed "oops: ".
func nmiSchedOutRunWith(ch sim.Chooser, force string, precise bool, pebsOrder string) (msg string, samples uint64) {
	if force != "" {
		ch = atLabel(force)
	}
	var knobs pmu.Knobs
	if pebsOrder != "" {
		if _, err := pmu.ApplyKnob(&knobs, "pebs-disable-order", pebsOrder); err != nil {
			return err.Error(), 0
		}
	}
	mc := newMachine(nil, 1, ch, knobs)
	defer mc.m.Close()
	const period = 3000 // 1us of cycles at 3/ns
	violation := ""
	var sampled uint64
	mc.k.OnOutput = func(e *pmu.Event, c *cpu.CPU, s *rb.Sample) {
		if e.State() != pmu.StateActive || e.OnCPU() != c.ID {
			violation = fmt.Sprintf("sample for event %d in state %v oncpu %d written on cpu%d", e.ID(), e.State(), e.OnCPU(), c.ID)
		}
		sampled += s.Period
	}
	var ev *pmu.Event
	var count int64
	mc.s.Spawn("other", sched.MaskOf(0), sched.Loop(20, sched.Compute(700), sched.Yield()))
	mc.s.Spawn("work", sched.MaskOf(0), sched.Call(func(t *sched.Task) {
		a := cyclesAttr(period)
		if precise {
			a.PreciseIP = 2
			a.SampleType |= uapi.PERF_SAMPLE_CALLCHAIN
		}
		fd, err := mc.k.PerfEventOpen(t, &a, 0, -1, -1, 0)
		if err != nil {
			panic(err)
		}
		if _, err := mc.k.Mmap(t, fd, 0, 9*4096, pmu.ProtRead|pmu.ProtWrite); err != nil {
			panic(err)
		}
		ev = mc.k.EventOf(t, fd)
		mc.s.RunOps(t, []sched.Op{sched.Loop(20, sched.Compute(sim.Microsecond), sched.Yield())})
		b, err := mc.k.Read(t, fd)
		if err != nil {
			panic(err)
		}
		count = int64(binary.LittleEndian.Uint64(b))
		_, _ = mc.k.Ioctl(t, fd, uapi.PERF_EVENT_IOC_DISABLE, 0)
	}))
	if err := mc.m.Run(sim.Second); err != nil {
		if o, ok := err.(*sim.Oops); ok {
			return "oops: " + o.Msg, 0
		}
		return err.Error(), 0
	}
	if violation != "" {
		return violation, 0
	}
	_, running := ev.TotalTimes()
	if count != 3*int64(running) {
		return fmt.Sprintf("count %d != 3 * running %d: counts lost", count, running), 0
	}
	if int64(sampled) > count {
		return fmt.Sprintf("samples claim %d cycles, count is %d", sampled, count), 0
	}
	if short := count - int64(sampled); short >= period*int64(1+mc.s.Switches) {
		return fmt.Sprintf("%d cycles neither sampled nor explained", short), 0
	}
	return "", sampled / period
}

// atLabel is a forced interleaving: at every step point labelled so, take
// option 1, which on a single CPU with an NMI pending is "deliver the NMI
// now" (cpu.CPU.Step orders the options: nothing, NMI, irq, other CPUs).
type atLabel string

func (l atLabel) Choose(n int, what string) int {
	if what == string(l) {
		return 1
	}
	return 0
}

// TestNMIInSchedOutForced: the PMI forced at each step of the sched-out path
// (before and after pmu->del) never writes a sample for an event that is not
// ACTIVE on this CPU, and the count stays whole.
func TestNMIInSchedOutForced(t *testing.T) {
	// Before pmu->del the counter is still in active_mask: the PMI samples
	// (20 chunks, 20 overflows). From pmu->del on it is not: x86_pmu_stop()
	// folded the count, the PMI finds nothing, and the overflow is not
	// sampled; the next pmu->add reprograms a fresh period.
	for _, tc := range []struct {
		label   string
		samples uint64
	}{
		{"perf_event_task_sched_out", 20}, {"perf_event_context_sched_out:disabled", 20}, {"ctx_sched_out", 20},
		{"event_sched_out", 20}, {"event_sched_out:del", 0}, {"context_switch", 0},
		{"perf_event_task_sched_in", 0}, {"event_sched_in", 0},
	} {
		msg, n := nmiSchedOutRun(nil, tc.label)
		if msg != "" {
			t.Errorf("PMI at %s: %s", tc.label, msg)
		}
		if n != tc.samples {
			t.Errorf("PMI at %s: %d samples, want %d", tc.label, n, tc.samples)
		}
	}
}

// TestNMIInIntelPMUDisableEvent: the PMI forced inside x86_pmu_stop() ->
// intel_pmu_disable_event() of a precise event with callchains. Today the
// counter is off and its PEBS bit still set: the PEBS drain samples the
// (still ACTIVE) event, 20 samples, no oops. Before 6f55967ad9d9 the PEBS bit
// was cleared first: the PMI takes the generic path and perf_prepare_sample()
// dereferences the NULL data->callchain.
func TestNMIInIntelPMUDisableEvent(t *testing.T) {
	for _, tc := range []struct {
		label, knob string
		samples     uint64
		oops        string // "" for none
	}{
		{"event_sched_out", "today", 20, ""},
		{"intel_pmu_disable_event", "today", 20, ""},
		{"event_sched_out:del", "today", 0, ""},
		{"event_sched_out", "pre-6f55967ad9d9", 20, ""},
		{"intel_pmu_disable_event", "pre-6f55967ad9d9", 0, "NULL pointer dereference in perf_prepare_sample: data->callchain"},
		{"event_sched_out:del", "pre-6f55967ad9d9", 0, ""},
	} {
		msg, n := nmiSchedOutRunWith(nil, tc.label, true, tc.knob)
		switch {
		case tc.oops == "" && msg != "":
			t.Errorf("%s, PMI at %s: %s", tc.knob, tc.label, msg)
		case tc.oops != "" && !strings.Contains(msg, tc.oops):
			t.Errorf("%s, PMI at %s: got %q, want an oops %q", tc.knob, tc.label, msg, tc.oops)
		}
		if n != tc.samples {
			t.Errorf("%s, PMI at %s: %d samples, want %d", tc.knob, tc.label, n, tc.samples)
		}
	}
}

// TestNMIInSchedOutRandom: seeded random schedules decide where the pending
// PMIs land (among them inside perf_event_task_sched_out); all are clean.
func TestNMIInSchedOutRandom(t *testing.T) {
	for s := 1; s <= 200; s++ {
		if msg, _ := nmiSchedOutRun(sim.NewRandom(uint64(s)), ""); msg != "" {
			t.Fatalf("seed %d: %s", s, msg)
		}
	}
}
