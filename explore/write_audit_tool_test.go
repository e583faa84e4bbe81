package explore

import "testing"

// toolAuditSkip are the perf tool's own memory that its record loop writes
// (perftool/footprint_record.go): only perf's threads touch it, and every
// one of them but the loop's pass runs Go code nobody annotated (marked:
// dependent on everything), so it is no state another context's complete
// fragment can see; auditSkip has them too.
var toolAuditSkip = []string{
	"perftool.Mmap.Prev",              // the reader's positions (struct perf_mmap: prev, start, end, flush) ...
	"perftool.Mmap.Start",             //
	"perftool.Mmap.End",               //
	"perftool.Mmap.Flush",             //
	"perftool.Mmap.eventCopy",         // ... its bounce buffer for a record that wraps and the record it returned
	"perftool.Mmap.out",               //
	"perftool.Mmap.Warnings",          // ... and what it printed
	"perftool.SessionMmap.pushedEnd",  // what the pass pushed of each ring (the dup_bytes observable's memory)
	"perftool.SessionMmap.pushedAny",  //
	"perftool.SessionMmap.traceRec",   // tracePushed's copy of the record it tells the ring's log (an oracle's)
	"perftool.Session.stats",          // the pass's counts (observables)
	"perftool.Session.bkw",            // the overwrite rings' state machine (evlist->bkw_mmap_state)
	"perftool.Session.headerSynth",    // records perf made itself, written with its next write(2)
	"perftool.Session.Data",           // the perf.data written: only perf writes it, the run's judges read it after
	"perftool.SessionAuxMmap.Prev",    // the AUX reader's position (struct auxtrace_mmap: prev) ...
	"perftool.SessionAuxMmap.Reads",   // ... and its counts (observables)
	"perftool.SessionAuxMmap.Bytes",   //
	"perftool.auxState.auxtraceRec",   // the AUX reads' counts (observables)
	"perftool.auxState.bytes",         //
	"perftool.auxState.errs",          //
	"perftool.Session.FDs",            // the setup's and teardown's tables (footprint_record.go: annotated): the fds perf opened ...
	"perftool.Session.Mmaps",          // ... the rings it mapped
	"perftool.SessionMmap.Outputs",    // ... the fds redirected into each
	"perftool.auxState.mmaps",         // ... the AUX areas
	"perftool.SessionAuxMmap.Map",     // ... each one's mapping
	"perftool.Session.pollFDs",        // ... the fds it polls
	"perftool.Session.pollIn",         //
	"perftool.Session.SideBandFDs",    // ... the side band's fds and mappings
	"perftool.Session.sideBandMaps",   //
	"perftool.Session.strayFDs",       // ... the fds of threads dropped from a -p thread map
	"perftool.Session.ignoredThreads", //
	"perftool.Session.Warnings",       // ... what it printed
	"perftool.Session.cgroupFDs",      // ... the -G cgroups' fds
	"perftool.Record.Threads",         // ... the -p thread map
	"perftool.Session.draining",       // the loop's own flags: every fd hung up (poll); the ones signal handlers set are written in perf's thread, in code nobody annotated
	"perftool.Session.switchHit",      //
	"perftool.Session.snapStart",      //
	"perftool.Session.disabled",       //
	"perftool.Session.forked",         // evlist__prepare_workload() ran: whether perf's end kills and waits for its workload
}

func init() { auditSkip = append(auditSkip, toolAuditSkip...) }

// recordLoopStarts are the readers' step points of perf record's loop
// (perftool/footprint_record.go), which TestWriteAuditRealModel's
// scenarios (intel_pt's full trace) check.
var recordLoopStarts = []string{"auxtrace_mmap__read_head:loaded", "auxtrace_mmap__write_tail:mb", "ring_buffer_read_head:loaded"}

// TestWriteAuditRecordLoop: the perf tool's record loop, run as annotated
// user code (perftool/footprint_record.go: the pass over the rings, its
// write(2)s of perf.data, and "ring_buffer_read_head:loaded" declared
// complete), writes nothing it does not annotate, on built-ins whose perf
// record reads forward rings with no AUX area (whose read is marked): the
// syscall tracepoints' samples (rb-data-head-backwards: its spinner is a
// tool thread, whose reads are marked), an overwrite ring
// (backward-ring-buffer), rings an action unmaps (munmap-ring-twice), -p
// on threads that exit (attach-pid-thread-exit). Each run checks at least
// once the reader's step point, perf's write(2) of perf.data (its body
// annotated), and the return from it into the pass.
func TestWriteAuditRecordLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	for _, tc := range []struct {
		name string
		want []string // the fragments checked at least once
	}{
		{"rb-data-head-backwards", []string{"ring_buffer_read_head:loaded", "exit_to_user_mode_loop", "syscall_enter_from_user_mode"}},
		{"backward-ring-buffer", []string{"ring_buffer_read_head:loaded", "exit_to_user_mode_loop", "syscall_enter_from_user_mode"}},
		{"munmap-ring-twice", []string{"ring_buffer_read_head:loaded", "exit_to_user_mode_loop", "syscall_enter_from_user_mode"}},
		{"attach-pid-thread-exit", []string{"ring_buffer_read_head:loaded", "exit_to_user_mode_loop", "syscall_enter_from_user_mode"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auditChecked(t, loadBuiltin(t, tc.name), tc.want)
		})
	}
}
