package perftool

import "perfsim/sched"

// tailSynthesize is what perf record writes after the main loop when
// opts.tail_synthesize is set, which --overwrite sets ("if
// (record.opts.overwrite) record.opts.tail_synthesize = true"): the
// FINISHED_INIT marker and, for a forked workload, its thread map
// synthesized from /proc: the workload has exited but is not reaped yet, so
// /proc/PID/status still gives its last comm (a COMM with no time) and its
// maps are gone (no MMAP).
// tools/perf/builtin-record.c: __cmd_record() -> write_finished_init(rec, true),
// record__synthesize_workload(rec, true)
func (ss *Session) tailSynthesize(t *sched.Task) {
	if !ss.R.Overwrite || ss.Err != nil {
		return
	}
	ss.writeSynth(t, headerOnly(RecordFinishedInit))
	if ss.R.Target.None() && ss.Workload != nil {
		w := ss.Workload
		ss.writeSynth(t, synthComm(&ss.Data.Attrs[0].Attr, w.PID, w.TID, w.Comm))
	}
}
