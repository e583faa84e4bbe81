package perftool

import (
	"perfsim/sched"
)

// snapTrigger is the state of auxtrace_snapshot_trigger (tools/perf/util/trigger.h).
type snapTrigger uint8

const (
	triggerReady snapTrigger = iota // TRIGGER_READY (after trigger_on in __cmd_record)
	triggerHit                      // TRIGGER_HIT
	triggerError                    // TRIGGER_ERROR
	triggerOff                      // TRIGGER_OFF (trigger_off once perf stops recording)
)

// hitAuxtraceSnapshotTrigger is the -S part of the SIGUSR2 handler: a ready
// trigger is hit and the PMU's snapshot_start runs (intel_pt disables the AUX
// evsel so that the buffer holds still while it is read); a SIGUSR2 while a
// snapshot is pending is ignored.
// tools/perf/builtin-record.c: snapshot_sig_handler() -> hit_auxtrace_snapshot_trigger()
func (ss *Session) hitAuxtraceSnapshotTrigger(t *sched.Task) {
	if ss.aux.trigger != triggerReady {
		return
	}
	ss.aux.trigger = triggerHit
	ss.aux.started = true // auxtrace_record__snapshot_started = 1
	ss.snapStart = true
	if ops := ss.auxOps(); ops.SnapshotStart != nil {
		if err := ops.SnapshotStart(ss, t); err != nil {
			ss.aux.trigger = triggerError
			ss.Warnings = append(ss.Warnings, "AUX area tracing snapshot failed: "+err.Error())
		}
	}
}

// auxOps returns the auxtrace_record callbacks of the session's AUX PMU.
func (ss *Session) auxOps() AuxtraceRecordOps {
	if i := ss.R.auxEvsel(); i >= 0 {
		return auxtraceRecords[ss.R.Evsels[i].PMU]
	}
	return AuxtraceRecordOps{}
}

// readAuxtraceSnapshot reads every AUX area in snapshot mode, then runs the
// PMU's snapshot_finish; the trigger is ready again unless something failed.
// tools/perf/builtin-record.c: record__read_auxtrace_snapshot() -> record__auxtrace_read_snapshot_all()
func (ss *Session) readAuxtraceSnapshot(t *sched.Task) {
	ss.stats.snapshots++
	if !ss.aux.started {
		return // SIGUSR2 without -S: counted, nothing to read
	}
	ss.aux.started = false
	if ss.aux.trigger == triggerError {
		return
	}
	ss.readAuxtraceSnapshotAll(t, false)
}

// readAuxtraceSnapshotAll reads every AUX area in snapshot mode and, unless
// perf is exiting, runs the PMU's snapshot_finish (intel_pt re-enables its
// evsel); the trigger is ready again unless something failed.
// tools/perf/builtin-record.c: record__read_auxtrace_snapshot()
func (ss *Session) readAuxtraceSnapshotAll(t *sched.Task, onExit bool) {
	size := ss.R.auxSnapshotSize()
	for _, mm := range ss.aux.mmaps {
		if mm.Map == nil {
			continue
		}
		// record__auxtrace_mmap_read_snapshot() -> auxtrace_mmap__read_snapshot()
		if _, err := ss.auxtraceMmapRead(t, mm, true, size); err != nil {
			ss.aux.errs++
			ss.aux.trigger = triggerError
			ss.Warnings = append(ss.Warnings, "AUX area tracing snapshot failed: "+err.Error())
			return
		}
	}
	// auxtrace_record__snapshot_finish(): "if (!on_exit && itr->snapshot_finish)"
	if ops := ss.auxOps(); ops.SnapshotFinish != nil && !onExit {
		if err := ops.SnapshotFinish(ss, t); err != nil {
			ss.aux.trigger = triggerError
			ss.Warnings = append(ss.Warnings, "AUX area tracing snapshot failed: "+err.Error())
			return
		}
	}
	ss.aux.trigger = triggerReady
}

// evselIoctl issues cmd on every fd of evsel ev: evsel__disable() / evsel__enable().
// tools/perf/util/evsel.c: evsel__disable(), evsel__enable()
func (ss *Session) evselIoctl(t *sched.Task, ev int, cmd uint64) error {
	var first error
	for i, o := range ss.R.Opens(len(ss.S.M.CPUs)) {
		if o.Evsel != ev || ss.FDs[i] < 0 {
			continue
		}
		if _, err := ss.K.Ioctl(t, ss.FDs[i], cmd, 0); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// auxtraceSnapshotExit is -Se: after the record loop, with the trigger off,
// one more snapshot, started here unless a SIGUSR2's is pending; the AUX
// event stays disabled afterwards.
// tools/perf/builtin-record.c: record__auxtrace_snapshot_exit()
func (ss *Session) auxtraceSnapshotExit(t *sched.Task) {
	if ss.aux.trigger == triggerError {
		return
	}
	if !ss.aux.started {
		if ops := ss.auxOps(); ops.SnapshotStart != nil {
			if err := ops.SnapshotStart(ss, t); err != nil {
				return
			}
		}
	}
	ss.aux.started = false
	ss.stats.snapshots++
	ss.readAuxtraceSnapshotAll(t, true)
}

// offAuxtraceSnapshotTrigger is trigger_off(&auxtrace_snapshot_trigger) as
// perf stops recording: a later SIGUSR2 starts no snapshot (and an earlier
// error is forgotten: trigger_off() sets the state whatever it was).
// tools/perf/util/trigger.h: trigger_off()
func (ss *Session) offAuxtraceSnapshotTrigger() { ss.aux.trigger = triggerOff }
