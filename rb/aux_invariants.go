package rb

import (
	"bytes"
	"fmt"
)

// The AUX area's invariants, judged by Check on the same buffer log as the
// data ring's: what the hardware wrote (TraceAuxWrite), what drivers
// committed (TraceAuxCommit), the refcount (TraceAuxRefcount, TraceAuxFree),
// the core's PERF_EF_PAUSE/RESUME calls (TraceAuxCallbackEnter/Exit) and AUX
// samples (TraceAuxSampleBegin, TraceAuxSample). None of them reads model state.
var auxInvariants = []Invariant{
	{"pmu-pause-resume-exclusive", "pmu->stop(PERF_EF_PAUSE) and pmu->start(PERF_EF_RESUME) never overlap each other on one event",
		"the PMU contract of 18d92bb57c39 (include/linux/perf_event.h); rb->aux_in_pause_resume makes the NMI lose instead (knob aux-pause-guard)"},
	{"aux-bytes-accounted", "every AUX byte the hardware wrote (full-trace mode) lies in a PERF_RECORD_AUX range by the end of the run",
		"the tool decodes only what PERF_RECORD_AUX announces; a wrap reported as size 0 loses a whole buffer (5b590160d2cf, knob pt-wrapped); " +
			"today a group throttle leaves an AUX transaction open and its bytes unannounced, an upstream bug (docs/upstream/pt-throttle-group.md, knob aux-throttle)"},
	{"aux-sample-is-newest", "the AUX data of a PERF_SAMPLE_AUX sample are the newest bytes written before its snapshot began",
		"AUX sampling gives the history leading to the overflow; a copy racing the hardware is corrupt (d92792a4b26e, knob pt-snapshot-stop)"},
	{"aux-no-overwrite-unread", "outside snapshot mode the hardware never writes AUX bytes at or past aux_tail + the area's size (over trace the reader has not read)",
		"the driver's STOP marker must end the output where the free space perf_aux_output_begin() found ends (pt_buffer_reset_markers()); " +
			"today's intel_pt breaks it when that room is under a page and crosses a page boundary, an upstream bug, not a simulator one " +
			"(docs/upstream/pt-reset-markers-carry.md, knob pt-reset-markers)"},
	{"aux-refcount", "aux_refcount never drops below zero and the AUX pages are freed only from the unmap path",
		"freeing AUX pages from an NMI or atomic context is a bug (95ff4ca26c49, 57ffc5ca679f)"},
}

// auxCheck is the AUX part of Check.
// at is Check's cursor: set to the index being judged, -1 after the loop.
func auxCheck(log []TraceEvent, f Final, bad func(name, format string, args ...any), at *int) {
	auxTxnCheck(log, bad, at)         // aux_txn.go
	auxLifetimeCheck(log, f, bad, at) // aux_lifetime.go

	inFlight := map[uint64]TraceEvent{} // per event id: the callback in flight
	type span struct {
		lo, hi uint64
		idx    int // log index of the write
	}
	var writes, commits []span
	overwrite := false
	var shadow []byte // the AUX area as the writes left it (for samples)
	var lastEnd uint64
	var begin *TraceEvent
	var want []byte
	var wantEnd uint64
	for i := range log {
		*at = i
		e := &log[i]
		switch e.Kind {
		case TraceAuxCallbackEnter:
			if prev, ok := inFlight[e.Pos]; ok {
				bad("pmu-pause-resume-exclusive", "%s of event %d entered on cpu%d while its %s (cpu%d) was in flight",
					efName(e.Value), e.Pos, e.Size, efName(prev.Value), prev.Size)
			}
			inFlight[e.Pos] = *e
		case TraceAuxCallbackExit:
			delete(inFlight, e.Pos)
		case TraceAuxWrite:
			if end := e.Pos + uint64(e.Size); e.Value != 0 && end > e.Value {
				bad("aux-no-overwrite-unread", "the hardware wrote AUX bytes [%#x, %#x) past %#x, where unread trace starts (aux_tail + the area's size)",
					max(e.Pos, e.Value), end, e.Value)
			}
			writes = append(writes, span{e.Pos, e.Pos + uint64(e.Size), i})
			if len(shadow) > 0 {
				mask := uint64(len(shadow) - 1)
				for j, b := range e.Rec {
					shadow[(e.Pos+uint64(j))&mask] = b
				}
			}
			lastEnd = e.Pos + uint64(e.Size)
		case TraceAuxCommit:
			if e.Backward {
				overwrite = true
			}
			if e.Size > 0 {
				commits = append(commits, span{e.Pos, e.Pos + uint64(e.Size), i})
			}
		case TraceAuxRefcount:
			if int64(e.Value) < 0 {
				bad("aux-refcount", "aux_refcount went to %d", int64(e.Value))
			}
		case TraceAuxFree:
			if e.Counted {
				bad("aux-refcount", "AUX pages freed from atomic context (not perf_mmap_close)")
			}
		case TraceAuxSampleBegin:
			if n := int(e.Value); n > 0 && n&(n-1) == 0 && len(shadow) != n {
				shadow = replayAux(log[:i], n)
			}
			begin = e
			want = append(want[:0], shadow...)
			wantEnd = lastEnd
		case TraceAuxSample:
			if begin == nil || len(want) == 0 {
				continue
			}
			got := e.Rec
			mask := uint64(len(want) - 1)
			exp := make([]byte, len(got))
			for j := range exp {
				exp[j] = want[(wantEnd-uint64(len(got))+uint64(j))&mask]
			}
			if !bytes.Equal(got, exp) {
				k := 0
				for k < len(got) && got[k] == exp[k] {
					k++
				}
				bad("aux-sample-is-newest", "AUX sample of %d bytes ending at AUX position %#x differs from the trace written before it at byte %d: got % x, want % x",
					len(got), wantEnd, k, head16(got[k:]), head16(exp[k:]))
			}
			begin = nil
		}
	}
	*at = -1
	if !f.Drained || overwrite || len(writes) == 0 {
		return
	}
	// Full-trace mode: the commits are contiguous from aux_head 0; every write
	// must lie below the end of the union of the committed ranges and in one.
	for _, w := range writes {
		covered := w.lo
		for covered < w.hi {
			next := covered
			for _, c := range commits {
				if c.lo <= covered && covered < c.hi {
					next = c.hi
					break
				}
			}
			if next == covered {
				break
			}
			covered = next
		}
		if covered < w.hi {
			*at = w.idx
			cause := ""
			if left := auxLeftOpenByThrottle(log); left >= 0 && w.idx > left {
				cause = throttleOpenCause
			}
			bad("aux-bytes-accounted", "AUX bytes [%#x, %#x) written by the hardware are in no PERF_RECORD_AUX range%s", covered, w.hi, cause)
			return
		}
	}
}

// replayAux rebuilds the AUX area (size bytes) from the writes in log.
func replayAux(log []TraceEvent, size int) []byte {
	shadow := make([]byte, size)
	mask := uint64(size - 1)
	for _, e := range log {
		if e.Kind == TraceAuxWrite {
			for j, b := range e.Rec {
				shadow[(e.Pos+uint64(j))&mask] = b
			}
		}
	}
	return shadow
}

func efName(flag uint64) string {
	switch flag {
	case 0x08:
		return "PERF_EF_PAUSE"
	case 0x10:
		return "PERF_EF_RESUME"
	}
	return fmt.Sprintf("flags %#x", flag)
}

func init() { Invariants = append(Invariants, auxInvariants...) }
