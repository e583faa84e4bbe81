package coresight

import "perfsim/pmu"

// DeviceOf returns the CoreSight device of k's cs_etm PMU, or nil.
func DeviceOf(k *pmu.Kernel) *Device {
	if k == nil {
		return nil
	}
	for _, p := range k.PMUs() {
		if cs, ok := p.(*PMU); ok {
			return cs.dev
		}
	}
	return nil
}

// The driver's kernel observables (0 without a cs_etm PMU).
func init() {
	stat := func(name, help string, get func(d *Device) int64) {
		pmu.RegisterObservable(name, help, func(k *pmu.Kernel) int64 {
			if d := DeviceOf(k); d != nil {
				return get(d)
			}
			return 0
		})
	}
	stat("cs.periods", "etm_event_start()s that enabled an ETM (each begins a period of trace)",
		func(d *Device) int64 { return int64(d.Stats.Periods) })
	stat("cs.emitted", "trace bytes the ETMs produced", func(d *Device) int64 { return int64(d.Stats.Emitted) })
	stat("cs.updates", "update_buffer() calls (sched-out, disable, pause)", func(d *Device) int64 { return int64(d.Stats.Updates) })
	stat("cs.update-bytes", "bytes update_buffer() and the TRBE interrupt committed", func(d *Device) int64 { return int64(d.Stats.UpdateBytes) })
	stat("cs.commits", "perf_aux_output_end()s with a non-zero size", func(d *Device) int64 { return int64(len(d.Commits)) })
	stat("cs.recommitted", "trace bytes committed to an AUX buffer a second time (the pause vs TRBE interrupt race)",
		func(d *Device) int64 { return int64(d.Stats.Recommitted) })
	stat("cs.trbe-irqs", "TRBE maintenance interrupts handled", func(d *Device) int64 { return int64(d.Stats.TRBEIRQs) })
	stat("cs.event-data", "struct etm_event_data alive now (etm_setup_aux() made, free_event_data() not yet freed): an AUX area's driver data",
		func(d *Device) int64 { return int64(d.Stats.EventData) })
	stat("cs.warnings", "WARN_ON()s the CoreSight driver hit", func(d *Device) int64 { return int64(len(d.Warnings)) })
}
