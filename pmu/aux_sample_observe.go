package pmu

import "perfsim/cpu"

// auxSampleWhy counts, for the outcomes of AUX sampling scenarios, why a
// PERF_SAMPLE_AUX sample got aux_size 0, and the copies made from a sampler
// that was not ACTIVE on the CPU (an observation, not kernel state).
type auxSampleWhy struct {
	nested       uint64 // rb->aux_in_sampling was set: an NMI inside another sample's snapshot copy
	inactive     uint64 // the sampler was not ACTIVE, or not on this CPU (the WARN_ON_ONCEs)
	fromInactive uint64 // snapshot_aux ran while the sampler was not ACTIVE on this CPU
}

// observeSnapshotSampler records a snapshot_aux call from a sampler that is
// not ACTIVE on c (perf_prepare_sample_aux() should have made aux_size 0).
func (k *Kernel) observeSnapshotSampler(c *cpu.CPU, sampler *Event) {
	if sampler.state != StateActive || sampler.oncpu != c.ID {
		k.aux.sampleWhy.fromInactive++
	}
}

func init() {
	RegisterObservable("aux.samples.nested", "PERF_SAMPLE_AUX samples with aux_size 0 because rb->aux_in_sampling was set (an NMI inside another sample's snapshot copy)",
		func(k *Kernel) int64 { return int64(k.aux.sampleWhy.nested) })
	RegisterObservable("aux.samples.inactive", "PERF_SAMPLE_AUX samples with aux_size 0 because the sampler was not ACTIVE on this CPU",
		func(k *Kernel) int64 { return int64(k.aux.sampleWhy.inactive) })
	RegisterObservable("aux.samples.from_inactive", "snapshot_aux copies made while the sampler was not ACTIVE on the CPU (must stay 0)",
		func(k *Kernel) int64 { return int64(k.aux.sampleWhy.fromInactive) })
}
