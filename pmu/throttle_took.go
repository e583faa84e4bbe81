package pmu

import (
	"perfsim/cpu"
	"perfsim/sim"
)

// nrAccumulatedSamples is NR_ACCUMULATED_SAMPLES: the running length decays
// by one average sample per sample.
const nrAccumulatedSamples = 128

// sampleTook is perf's watch on how long its NMI handler takes: per CPU the
// decaying running length, and the machine-wide allowance it lowers.
type sampleTook struct {
	running []uint64 // running_sample_length, per CPU
	// allowedNs is perf_sample_allowed_ns: the average handler length above
	// which the sample rate is lowered (0: the check is off).
	allowedNs uint64
	// maxPerTick is max_samples_per_tick once lowered (0: not lowered, the
	// sysctl's DIV_ROUND_UP(sample_rate, HZ)).
	maxPerTick uint64
	// lowered counts the "perf: interrupt took too long" reports.
	lowered uint64
}

func init() {
	RegisterObservable("perf.sample-rate-lowered", `times perf_sample_event_took() lowered kernel.perf_event_max_sample_rate ("perf: interrupt took too long")`,
		func(k *Kernel) int64 { return int64(k.took.lowered) })
	RegisterObservable("perf.max-sample-rate", "kernel.perf_event_max_sample_rate at the end of the run (lowered when the PMI handler takes too long)",
		func(k *Kernel) int64 { return int64(k.Opts.Sysctl.MaxSampleRate) })
}

// initSampleTook sets perf_sample_allowed_ns from the sysctls as
// update_perf_cpu_limits() does: the sample period's share of
// kernel.perf_cpu_time_max_percent (25% of 10us at the default 100000 Hz).
// kernel/events/core.c: update_perf_cpu_limits()
func (k *Kernel) initSampleTook(nrCPUs int) {
	k.took.running = make([]uint64, nrCPUs)
	rate := uint64(k.Opts.Sysctl.MaxSampleRate)
	if rate == 0 {
		rate = 100000
	}
	k.took.allowedNs = (1e9 / rate) * uint64(k.cpuTimeMaxPercent()) / 100
}

// cpuTimeMaxPercent is kernel.perf_cpu_time_max_percent (default 25; 0 or
// 100 turn the check off).
func (k *Kernel) cpuTimeMaxPercent() int {
	if p := k.Opts.Sysctl.CPUTimeMaxPercent; p > 0 {
		return min(p, 100)
	}
	return 25
}

// perfSampleEventTook is told how long the PMI handler ran on c; when the
// decaying average passes the allowance it lowers max_samples_per_tick and
// kernel.perf_event_max_sample_rate to fit perf_cpu_time_max_percent of a
// tick, so the overflow path throttles sooner. Only the cost model makes a
// handler take time (cost.Profile): with it free the check never fires.
// kernel/events/core.c: perf_sample_event_took()
func (k *Kernel) perfSampleEventTook(c *cpu.CPU, d sim.Duration) {
	if k.M.FootprintListening() {
		k.accessSampleTook(c, int64(d)) // footprint_overflow.go
	}
	t := &k.took
	maxLen := t.allowedNs
	if maxLen == 0 || k.cpuTimeMaxPercent() == 100 || d <= 0 {
		return
	}
	running := t.running[c.ID]
	running -= running / nrAccumulatedSamples
	running += uint64(d)
	t.running[c.ID] = running
	avg := running / nrAccumulatedSamples
	if avg <= maxLen {
		return
	}
	// "Compute a throttle threshold 25% below the current duration."
	avg += avg / 4
	tickNs := uint64(k.S.Cfg.Tick)
	maxPerTick := tickNs / 100 * uint64(k.cpuTimeMaxPercent())
	if avg < maxPerTick {
		maxPerTick /= avg
	} else {
		maxPerTick = 1
	}
	t.allowedNs, t.maxPerTick = avg, maxPerTick
	hz := uint64(k.S.Cfg.HZ)
	k.Opts.Sysctl.MaxSampleRate = int(maxPerTick * hz)
	t.lowered++
}

// timedPMI runs the PMI handler and tells perf_sample_event_took() how long
// it took, as perf_event_nmi_handler() does around x86_pmu.handle_irq().
// arch/x86/events/core.c: perf_event_nmi_handler()
func (k *Kernel) timedPMI(c *cpu.CPU, handler func(*cpu.CPU)) {
	start := c.Now()
	handler(c)
	k.perfSampleEventTook(c, sim.Duration(c.Now()-start))
}
