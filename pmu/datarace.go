package pmu

import (
	"fmt"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
)

// The data-race oracle: what KCSAN says about the perf core's shared fields,
// with no invariant a scenario has to write. The model's accesses to the
// fields below are annotated where they happen (cpu.CPU.Access, one line
// each, citing the access in core.c); the happens-before edges come from
// the modelled locks (ctx->lock, ctx->mutex and every sched mutex and
// rw_semaphore), IPIs and their completion, irq_work queued on another CPU,
// wake-ups, task switches and task_work (cpu/race.go says what "concurrent"
// means). A report names both accesses, KCSAN's way:
//
//	BUG: KCSAN: data-race in find_get_context / perf_unpin_context: read-write to ctx->pin_count of ...; read-write to ...
//
// Annotated fields: ctx->pin_count, event->state, event->oncpu,
// event->pending_disable, event->pending_work, ctx->is_active, ctx->task,
// cpuctx->task_ctx.
//
// The oracle is the data-race invariant (knob data-race=on|off).

// dataRaceKnob turns the oracle off.
var dataRaceKnob = sim.KnobSpec{
	Name:   "data-race",
	Values: []string{"on", "off"},
	Help: "the data-race oracle (CONFIG_KCSAN): on reports two accesses to an annotated perf field from different CPUs, at least one a write, " +
		"at least one plain (not READ_ONCE/WRITE_ONCE/atomic), neither data_race(), that no lock, IPI, irq_work, wake-up, task switch or task_work " +
		"orders (happens-before), as the data-race invariant with both accesses; off records nothing",
	Source:  "kernel/kcsan/ (on by default, as in a KCSAN kernel with CONFIG_KCSAN_INTERRUPT_WATCHER=n)",
	Package: "pmu",
}

// unpinLockKnob is the historical race the oracle finds.
var unpinLockKnob = sim.KnobSpec{
	Name:    "unpin-ctx-lock",
	Values:  []string{"today", "pre-6c605f837115"},
	Implies: map[string][]string{"pre-6c605f837115": closeFputPreV66}, // v5.13
	Help: "pre-6c605f837115: perf_unpin_context() decrements ctx->pin_count without ctx->lock, as before 6c605f837115, while find_get_context() increments it " +
		"under ctx->lock: two perf_event_open() on one task's context race (KCSAN: data-race in find_get_context / perf_unpin_context)",
	Source:  "6c605f8371159432ec61cbb1488dcf7ad24ad19a (perf: Fix data race between pin_count increment/decrement)",
	Package: "pmu",
}

// DataRaceInvariants is the oracle's invariant.
var DataRaceInvariants = []struct{ Name, Says, Why string }{
	{"data-race",
		"no two accesses to an annotated perf field (event->state, event->oncpu, event->pending_disable, event->pending_work, ctx->pin_count, ctx->is_active, ctx->task, cpuctx->task_ctx) from different CPUs, at least one a write and one plain, neither data_race(), are unordered by happens-before (locks, IPIs, irq_work, wake-ups, task switches, task_work)",
		"KCSAN: a plain access racing a write on another CPU can tear or be fused by the compiler; perf's fields are written under ctx->lock or marked READ_ONCE/WRITE_ONCE where they are read without it (6c605f837115)"},
}

// DataRaceViolation is one report of the oracle.
type DataRaceViolation struct {
	Invariant string
	T         sim.Time
	CPU       int
	Message   string
}

func init() {
	KnobSpecs = append(KnobSpecs, dataRaceKnob, unpinLockKnob)
	RegisterObservable("datarace.reports", "reports of the data-race oracle (pairs of unordered conflicting accesses to an annotated field)",
		func(k *Kernel) int64 {
			if k.race == nil {
				return 0
			}
			return int64(k.race.Reports)
		})
}

// dataRaceInit installs the detector when the oracle is on and the machine
// has more than one CPU.
func (k *Kernel) dataRaceInit() {
	if k.KnobIs(dataRaceKnob.Name, "off") {
		return
	}
	if len(k.M.CPUs) < 2 {
		// Accesses of one CPU never race each other (cpu/race.go: its
		// interrupt handlers are ordered with the code they interrupt):
		// on one CPU the detector could only cost.
		return
	}
	d := cpu.NewRaceDetector(k.M)
	d.Name = raceObjName
	d.ShadowOf = raceShadow
	d.TaskOf = func(th *cpu.Thread) string {
		if t := sched.TaskOf(th); t != nil {
			return t.String()
		}
		return th.Name
	}
	d.SyscallOf = func(th *cpu.Thread) string {
		if t := sched.TaskOf(th); t != nil {
			return t.Syscall
		}
		return ""
	}
	d.Report = func(r cpu.Race) {
		if k.raceHook != nil {
			k.raceHook(DataRaceViolation{Invariant: "data-race", T: r.Second.T, CPU: r.Second.CPU, Message: r.String()})
		}
	}
	k.race = d
}

// SetDataRaceHook installs the oracle's report (the runner's violation).
func (k *Kernel) SetDataRaceHook(f func(DataRaceViolation)) { k.raceHook = f }

// raceShadow returns the Shadow of an annotated object.
func raceShadow(obj any) *cpu.Shadow {
	switch o := obj.(type) {
	case *Event:
		return &o.race
	case *Context:
		return &o.race
	case *perfCPUContext:
		return &o.race
	}
	return nil
}

// raceObjName names an annotated object for a report.
func raceObjName(obj any) string {
	switch o := obj.(type) {
	case *Event:
		return fmt.Sprintf("event %d", o.id)
	case *Context:
		if o.task != nil {
			return "the context of " + o.task.String()
		}
		return fmt.Sprintf("the context of cpu%d", o.cpu)
	case *perfCPUContext:
		return fmt.Sprintf("cpuctx of cpu%d", o.ctx.cpu)
	}
	return fmt.Sprintf("%T", obj)
}
