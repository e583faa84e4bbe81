package coresight

import (
	"fmt"

	"perfsim/sim"
)

// Values of the driver's knobs.
const (
	SyncEveryStop = "every-stop" // today: etm_event_stop(PERF_EF_UPDATE) always updates
	SyncIsActive  = "is-active"  // Leo Yan's dropped patch
	PauseSkip     = "skip"       // today (973f47a9886a): no update on pause for a per-CPU sink
	PauseUpdate   = "update"     // etm_event_pause() before 973f47a9886a
)

// Knobs are the CoreSight driver's kernel knobs; zero values are today's.
type Knobs struct {
	// SnapshotSync is coresight-snapshot-sync.
	SnapshotSync string
	// PausePercpu is coresight-pause-percpu-update.
	PausePercpu string
}

func (k *Knobs) check() error {
	if k.SnapshotSync == "" {
		k.SnapshotSync = SyncEveryStop
	}
	if k.PausePercpu == "" {
		k.PausePercpu = PauseSkip
	}
	for _, spec := range KnobSpecs {
		v := k.SnapshotSync
		if spec.Name == KnobPausePercpu {
			v = k.PausePercpu
		}
		if err := spec.Check(v); err != nil {
			return fmt.Errorf("coresight: %w", err)
		}
	}
	return nil
}

// Knob names.
const (
	KnobSnapshotSync = "coresight-snapshot-sync"
	KnobPausePercpu  = "coresight-pause-percpu-update"
)

// KnobSpecs are the driver's kernel knobs.
var KnobSpecs = []sim.KnobSpec{{
	Name:   KnobSnapshotSync,
	Values: []string{SyncEveryStop, SyncIsActive},
	Help: "etm_event_stop(PERF_EF_UPDATE): every-stop (today) has the sink copy its trace into the AUX buffer and " +
		"perf_aux_output_end() on every stop, sched-out included; is-active is Leo Yan's patch, which in snapshot mode " +
		"copied only when event->ctx->is_active (the snapshot's PERF_EVENT_IOC_DISABLE) and ended the handle with size 0 " +
		"on a sched-out, so only the period running at the snapshot is kept, at most the sink's size",
	Source: "[PATCH v1 1/3] coresight: etm-perf: Correct buffer syncing for snapshot (Leo Yan, RFC 2021-04-28, v1 2021-05-28; " +
		"Mathieu Poirier 2021-06-08: 4 MB AUX behind a 1 MB sink, N:1 topologies; dropped 2021-06-12 for the tool fix 2f01c200d440)",
	Package: "pmu/coresight",
}, {
	Name:   KnobPausePercpu,
	Values: []string{PauseSkip, PauseUpdate},
	Help: "etm_event_pause() (PERF_EF_PAUSE, possibly from an NMI): skip (today) returns after pausing the source when the " +
		"sink is per-CPU (TRBE), whose own IRQ handler commits the buffer; update calls update_buffer(), perf_aux_output_end() " +
		"and perf_aux_output_begin() for it too, racing the TRBE interrupt handler over handle->head",
	Source:  "973f47a9886a (v6.16, Leo Yan's AUX pause series for CoreSight): the coresight_is_percpu_sink() early return in etm_event_pause()",
	Package: "pmu/coresight",
}}
