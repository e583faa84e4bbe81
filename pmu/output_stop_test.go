package pmu

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
)

// outputStopRun is what perf_pmu_output_stop() did in outputStopRig.
type outputStopRun struct {
	Driver  []string // the AUX and counter drivers' calls
	IPIs    uint64   // cross-calls taken
	Retries uint64   // funccall.output-stop-eagain
	Steps   []string // "cpuN" at each perf_pmu_output_stop:retry
}

// outputStopRig: a 2-CPU kernel whose buffer buf has on its event_list the
// per-CPU-task AUX event 10 (a perf record of a workload: pid app, cpu 0),
// INACTIVE, and the task AUX event 11 (cpu -1), running nowhere. Cpu0's
// task context (app's child, scheduled in there) holds 12, the child 10's
// inherit made, bound to cpu0 and ACTIVE, 15, another child of 10, OFF, and
// 16, the child of a cpu1 event of buf, bound to cpu1 and INACTIVE; cpu0's
// CPU context holds a counter 13 writing into buf and an AUX event 14
// writing into another buffer, both ACTIVE. tweak changes the events (and
// cpu0's task context) before the call; onRetry runs at each
// perf_pmu_output_stop:retry.
func outputStopRig(t *testing.T, tweak func(ev map[uint64]*Event, taskCtx *Context), onRetry func(ev map[uint64]*Event)) outputStopRun {
	t.Helper()
	m := cpu.NewMachine(cpu.Config{CPUs: 2}, nil)
	t.Cleanup(m.Close)
	s := sched.New(m, sched.DefaultConfig())
	k := NewKernel(s, DefaultOptions(2))
	var run outputStopRun
	aux := &fakeAuxPMU{fakePMU{pmuBase: pmuBase{index: 7}, typ: 8, log: &run.Driver}}
	cnt := &fakePMU{pmuBase: pmuBase{index: 7}, typ: 4, log: &run.Driver}
	newBuf := func() *rb.Buffer {
		b, err := rb.NewBuffer(1, 0, rb.RingBufferWritable)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	buf, other := newBuf(), newBuf()
	bs := &bufState{}
	k.bufs[buf] = bs
	child := &Context{}
	child.init(k, nil, -1)
	k.cpuCtx[0].taskCtx = child
	ev := map[uint64]*Event{}
	mk := func(p PMU, id uint64, bound int, ctx *Context, st EventState, r *rb.Buffer, parent *Event) *Event {
		e := &Event{k: k, id: id, pmu: p, ctx: ctx, cpu: bound, oncpu: -1, state: st, rb: r, parent: parent}
		if st == StateActive {
			e.oncpu = 0
		}
		e.leader = e
		if ctx != nil {
			ctx.events = append(ctx.events, e)
		}
		ev[id] = e
		return e
	}
	p10 := mk(aux, 10, 0, nil, StateInactive, buf, nil)
	p11 := mk(aux, 11, -1, nil, StateInactive, buf, nil)
	mk(aux, 12, 0, child, StateActive, nil, p10)
	mk(cnt, 13, -1, &k.cpuCtx[0].ctx, StateActive, buf, nil)
	mk(aux, 14, -1, &k.cpuCtx[0].ctx, StateActive, other, nil)
	mk(aux, 15, 0, child, StateOff, nil, p10)
	mk(aux, 16, 1, child, StateInactive, nil, mk(aux, 17, 1, nil, StateInactive, buf, nil))
	bs.eventList = []*Event{p10, p11}
	if tweak != nil {
		tweak(ev, child)
	}
	m.AddStepHook(func(c *cpu.CPU, label string) {
		if label == "perf_pmu_output_stop:retry" {
			run.Steps = append(run.Steps, "cpu"+itoa(c.ID))
			if onRetry != nil {
				onRetry(ev)
			}
		}
	})
	s.Spawn("perf", sched.MaskOf(1), sched.Call(func(tk *sched.Task) {
		ipis := k.stats.ipis
		k.perfPMUOutputStop(tk, buf)
		run.IPIs = k.stats.ipis - ipis
		run.Retries = k.stats.outputStopRetries
	}))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	return run
}

// TestPerfPMUOutputStop: the munmap of an AUX area stops the AUX events
// that write into its buffer, found where they run: one cross-call to cpu0
// for event 10 (its event->cpu, though it is not running) stops its inherited
// child 12, ACTIVE in cpu0's task context, with PERF_EF_UPDATE; the task
// event 11 runs nowhere (oncpu -1) and gets no call; the counter 13 (no
// setup_aux), the AUX event 14 of another buffer, the OFF child 15 and the
// cpu1 child 16 are left alone. Before, the model stopped only ACTIVE events
// on the buffer's own list, so 12 went on writing.
//
// Once the task event 11 runs in cpu0's task context, it is stopped there
// too, by 10's cross-call and again by its own (to its oncpu, cpu0).
//
// An -EAGAIN starts the list again from its head: one retry step on perf's
// cpu1, then the same stop. In the kernel the cross-call runs with irqs off
// on the CPU whose contexts it walks, so an event of those contexts ACTIVE
// elsewhere (here the child, set ACTIVE on cpu1 until the retry) hardly
// happens; the restart is there as in core.c.
func TestPerfPMUOutputStop(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tweak   func(ev map[uint64]*Event, taskCtx *Context)
		onRetry func(ev map[uint64]*Event)
		want    outputStopRun
	}{
		{"inherited-child", nil, nil, outputStopRun{Driver: []string{"stop 12 4"}, IPIs: 1}},
		{"task-event-running", func(ev map[uint64]*Event, taskCtx *Context) {
			ev[11].state, ev[11].oncpu, ev[11].ctx = StateActive, 0, taskCtx
			taskCtx.events = append(taskCtx.events, ev[11])
		}, nil, outputStopRun{Driver: []string{"stop 12 4", "stop 11 4", "stop 12 4", "stop 11 4"}, IPIs: 2}},
		{"retry", func(ev map[uint64]*Event, _ *Context) { ev[12].oncpu = 1 }, func(ev map[uint64]*Event) { ev[12].oncpu = 0 },
			outputStopRun{Driver: []string{"stop 12 4"}, IPIs: 2, Retries: 1, Steps: []string{"cpu1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := outputStopRig(t, tc.tweak, tc.onRetry)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("perf_pmu_output_stop() (-want +got):\n%s", d)
			}
		})
	}
}
