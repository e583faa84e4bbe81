package rb

import (
	"encoding/binary"

	"perfsim/uapi"
)

// Throttle is PERF_RECORD_THROTTLE (PERF_RECORD_UNTHROTTLE when Unthrottle)
// {time, id, stream_id}: the group leader was stopped until the next tick, or
// restarted.
// kernel/events/core.c: perf_log_throttle()
type Throttle struct {
	Unthrottle         bool
	Time, ID, StreamID uint64
}

// RecordType implements Sideband.
func (r *Throttle) RecordType() uint32 {
	if r.Unthrottle {
		return uapi.PERF_RECORD_UNTHROTTLE
	}
	return uapi.PERF_RECORD_THROTTLE
}

// RecordMisc implements Sideband.
func (*Throttle) RecordMisc() uint16 { return 0 }
func (*Throttle) bodySize() int      { return 24 }
func (r *Throttle) appendBody(b []byte) []byte {
	le := binary.LittleEndian
	return le.AppendUint64(le.AppendUint64(le.AppendUint64(b, r.Time), r.ID), r.StreamID)
}
