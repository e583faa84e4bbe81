package rb

// The AUX transaction as the invariants see it: perf_aux_output_begin() opens
// one on a buffer (TraceAuxBegin), perf_aux_output_end() closes it
// (TraceAuxCommit). The hardware may store trace (TraceAuxWrite) only while
// one is open: outside, the buffer belongs to nobody (its head was published,
// the reader may be consuming it, the pages may go with the next munmap).

// TraceAuxBegin: perf_aux_output_begin() opened an AUX transaction at aux_head
// Pos (logged after the room check, so a failed begin logs nothing).
const TraceAuxBegin TraceKind = 96

// TraceAuxHWEnable: a PMU driver enabled trace output into the AUX area at
// free-running position Pos (Intel PT's pt_config_start() setting TraceEn). The
// hardware stores packets from that moment (a PSB+ at once), so enabling it
// outside a transaction is the write into a stale buffer, even before any time
// passes.
const TraceAuxHWEnable TraceKind = 97

// TraceAuxThrottleStop: perf_event_throttle() stopped the AUX event with id
// Pos with pmu->stop() flags Value. Without PERF_EF_UPDATE (today's core, knob
// aux-throttle) an intel_pt or cs_etm driver marks the event stopped but
// leaves its AUX transaction open, and no later stop ends it.
const TraceAuxThrottleStop TraceKind = 100

// AuxHWEnable logs that the PMU enabled trace output into this AUX area at
// free-running position pos (for aux-write-in-transaction).
func (rb *Buffer) AuxHWEnable(pos uint64) { rb.trace(TraceEvent{Kind: TraceAuxHWEnable, Pos: pos}) }

var auxTxnInvariant = Invariant{"aux-write-in-transaction",
	"the hardware writes AUX bytes only while an AUX transaction is open on the buffer (perf_aux_output_begin .. perf_aux_output_end)",
	"after pmu::stop has ended the transaction tracing must be off, or it writes into a stale buffer the tool is reading (08c7454ceb94, knob pt-pause-resume)"}

// auxTxnCheck is the aux-write-in-transaction part of auxCheck.
func auxTxnCheck(log []TraceEvent, bad func(name, format string, args ...any), at *int) {
	open := false
	defer func() { *at = -1 }()
	for i := range log {
		*at = i
		switch e := &log[i]; e.Kind {
		case TraceAuxBegin:
			open = true
		case TraceAuxCommit:
			open = false
		case TraceAuxHWEnable:
			if !open {
				bad("aux-write-in-transaction", "the PMU enabled tracing into the AUX area at AUX position %#x with no AUX transaction open (tracing re-enabled after perf_aux_output_end)",
					e.Pos)
			}
		case TraceAuxWrite:
			if !open {
				bad("aux-write-in-transaction", "the hardware wrote %d AUX bytes at AUX position %#x with no AUX transaction open (tracing left on after perf_aux_output_end)",
					e.Size, e.Pos)
			}
		}
	}
}

func init() { Invariants = append(Invariants, auxTxnInvariant) }

// throttleOpenCause is what the AUX invariants add to a violation that an AUX
// transaction left open by a throttle stop explains (auxLeftOpenByThrottle).
const throttleOpenCause = " (an AUX transaction left open by a throttle stop without PERF_EF_UPDATE: docs/upstream/pt-throttle-group.md)"

// auxLeftOpenByThrottle returns the log index of the TraceAuxBegin of the AUX
// transaction that was open when perf_event_throttle() stopped the AUX event
// without PERF_EF_UPDATE and that no perf_aux_output_end() closed afterwards,
// or -1. Such a transaction keeps rb->aux_nest and an aux_refcount for good.
func auxLeftOpenByThrottle(log []TraceEvent) int {
	begin, left := -1, -1
	for i := range log {
		switch e := &log[i]; e.Kind {
		case TraceAuxBegin:
			begin = i
		case TraceAuxCommit:
			begin, left = -1, -1
		case TraceAuxThrottleStop:
			if e.Value&perfEFUpdate == 0 && begin >= 0 {
				left = begin
			}
		}
	}
	return left
}

// perfEFUpdate is PERF_EF_UPDATE (include/linux/perf_event.h).
const perfEFUpdate = 0x04
