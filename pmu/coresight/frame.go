package coresight

// FrameSize is the unit the simulated sinks store trace in: a CoreSight
// formatter frame is 16 bytes (the ETR's formatted mode), and the TRBE's raw
// trace is written in 16-byte units too so that every length stays a
// multiple of it.
const FrameSize = 16

// barrierFrame is CORESIGHT_BARRIER_PKT, four words 0x7fffffff (four frame
// synchronisation packets): the ETR inserts one where trace was lost, so that
// a decoder (OpenCSD, OCSD_DFRMTR_RESET_ON_4X_FSYNC) resets and looks for the
// next A-sync.
// drivers/hwtracing/coresight/coresight-core.c: coresight_barrier_pkt
var barrierFrame = [FrameSize]byte{
	0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0x7f,
	0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0x7f,
}

// Frame is what a decoded 16-byte unit of trace is: the trace the ETM of CPU
// produced as the Index-th unit of its Period, the Seq-th unit the session's
// ETMs produced. Decode finds CPU from the trace ID (formatted) or the
// buffer (raw) and the unit's time from its timestamp packet; the Ledger maps
// those to Period, Index and Seq.
type Frame struct {
	CPU    int    // the ETM that produced it
	Period int    // 1-based: the n-th etm_event_start() of the session
	Index  uint32 // unit number within its period
	Seq    uint64 // session-wide emission number
}

// FrameKind says what a 16-byte slot of a trace holds.
type FrameKind uint8

// Frame kinds.
const (
	KindData    FrameKind = iota // ETMv4 trace
	KindBarrier                  // the ETR's barrier packet (trace was lost before it)
	KindZero                     // never written (zeroed AUX pages)
	KindGarbage                  // anything else (a torn or misaligned unit, a bad packet)
)
