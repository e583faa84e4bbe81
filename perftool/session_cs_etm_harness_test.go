package perftool

import (
	"fmt"

	"perfsim/pmu"
	"perfsim/pmu/coresight"
	"perfsim/rb"
	"perfsim/sim"
)

// csHost is a coresight.Host whose clock the test moves.
type csHost struct{ now sim.Time }

func (h *csHost) Now() sim.Time               { return h.now }
func (h *csHost) Stepper(int) rb.Stepper      { return rb.NoSteps{} }
func (h *csHost) ArmIRQ(cpu int, at sim.Time) {}
func (h *csHost) advance(d sim.Duration)      { h.now += sim.Time(d) }

// csEvent is a per-CPU task event of `perf record -e cs_etm// -S -- dd`:
// its own ring buffer with a read-only (snapshot) AUX area.
type csEvent struct {
	rb.SimpleEvent
	cpu      int
	buf      *rb.Buffer
	hwState  int
	isActive int
	aux      int // AUX records posted
}

func (e *csEvent) CPU() int                                     { return e.cpu }
func (e *csEvent) RB() *rb.Buffer                               { return e.buf }
func (e *csEvent) HWState() int                                 { return e.hwState }
func (e *csEvent) SetHWState(s int)                             { e.hwState = s }
func (e *csEvent) CtxIsActive() int                             { return e.isActive }
func (e *csEvent) OwnerPID() int                                { return 100 }
func (e *csEvent) AuxPaused() bool                              { return false }
func (e *csEvent) Excludes() (bool, bool)                       { return false, false }
func (e *csEvent) DisableInatomic()                             {}
func (e *csEvent) AuxRecord(rb.Stepper, uint64, uint64, uint64) { e.aux++ }

// csPeriod is one stint of the traced task: CPU and length.
type csPeriod struct {
	cpu int
	d   sim.Duration
}

// csRun is one replay of a schedule: the device, one event per CPU.
type csRun struct {
	host *csHost
	dev  *coresight.Device
	evs  []*csEvent
	mms  []*AuxtraceMmap
}

// newCSRun maps a 1-page data ring and an auxSize read-only AUX area per CPU
// (perf record -S with -m,auxSize) and sets the driver up on each.
func newCSRun(t interface {
	Helper()
	Fatal(...any)
}, cpus int, cfg coresight.Config, auxSize int) *csRun {
	t.Helper()
	r := &csRun{host: &csHost{}}
	cfg.CPUs = cpus
	dev, err := coresight.New(cfg, r.host)
	if err != nil {
		t.Fatal(err)
	}
	r.dev = dev
	for c := 0; c < cpus; c++ {
		buf, err := rb.NewBuffer(1, 0, rb.RingBufferWritable)
		if err != nil {
			t.Fatal(err)
		}
		ev := &csEvent{cpu: c, buf: buf, hwState: 1}
		ops := &rb.AuxOps{
			SetupAux: func(data []byte, n int, overwrite bool) any {
				if ed := dev.SetupAux(ev, data, n, overwrite); ed != nil {
					return ed
				}
				return nil
			},
			FreeAux: func(p any) { dev.FreeAux(p.(*coresight.EventData)) },
		}
		if err := buf.AllocAux(ops, 2, auxSize/rb.PageSize, 0, 0); err != nil {
			t.Fatal(err)
		}
		buf.AuxMmapSet(1)
		r.evs = append(r.evs, ev)
		r.mms = append(r.mms, &AuxtraceMmap{Idx: c, CPU: c, Len: uint64(auxSize)})
	}
	return r
}

// run replays the periods (the task is scheduled in on p.cpu, runs p.d,
// and is scheduled out, except the last, which is still running) and then
// takes a snapshot: PERF_EVENT_IOC_DISABLE stops the running event with
// ctx->is_active set, and the tool reads every AUX buffer.
func (r *csRun) run(ps []csPeriod, findSnapshot string) []coresight.Chunk {
	r.replay(ps)
	return r.read(findSnapshot)
}

// replay is run without the read: the kernel side, up to the snapshot's
// disable.
func (r *csRun) replay(ps []csPeriod) {
	for i, p := range ps {
		ev := r.evs[p.cpu]
		ev.isActive = 7 // ctx_sched_in: EVENT_ALL|EVENT_TIME
		r.dev.Start(p.cpu, ev, 0)
		r.host.advance(p.d)
		if i < len(ps)-1 {
			ev.isActive = 0 // perf_event_context_sched_out(): ctx_sched_out clears it before the events go
			r.dev.Stop(p.cpu, ev, pmu.PERF_EF_UPDATE)
		}
	}
	if n := len(ps); n > 0 { // cs_etm_snapshot_start(): evsel__disable()
		last := ps[n-1]
		r.dev.Stop(last.cpu, r.evs[last.cpu], pmu.PERF_EF_UPDATE)
	}
}

// freshMmaps gives the tool new auxtrace_mmaps (nothing read yet), so that
// another tool can read the same AUX buffers as the first read did.
func (r *csRun) freshMmaps() *csRun {
	for i, mm := range r.mms {
		r.mms[i] = &AuxtraceMmap{Idx: mm.Idx, CPU: mm.CPU, Len: mm.Len}
	}
	return r
}

// read is record__read_auxtrace_snapshot(): every AUX buffer, in mmap order.
func (r *csRun) read(findSnapshot string) []coresight.Chunk {
	var out []coresight.Chunk
	for i, ev := range r.evs {
		got := r.mms[i].ReadSnapshot(ev.buf.User.AuxHead, ev.buf.AuxData(), r.mms[i].Len, findSnapshot)
		if len(got.Data) > 0 {
			out = append(out, coresight.Chunk{CPU: ev.cpu, Data: got.Data})
		}
	}
	return out
}

func ms(n int64) sim.Duration { return sim.Duration(n) * sim.Millisecond }

// seed004 is the thread's diagram: P1..P5 on CPU0, CPU3, CPU1, CPU2, CPU1.
var seed004 = []csPeriod{{0, ms(10)}, {3, ms(10)}, {1, ms(10)}, {2, ms(10)}, {1, ms(10)}}

func csKnobName(kernel, tool string) string { return fmt.Sprintf("%s/%s", kernel, tool) }

func fmtAny(v any) string { return fmt.Sprint(v) }
