package rb

import (
	"encoding/binary"

	"perfsim/uapi"
)

// Read is PERF_RECORD_READ {pid, tid, struct read_format values}: an exiting
// inherit_stat child's count, written to its original's buffer. Values are
// the read_format bytes as perf_output_read() lays them out.
// kernel/events/core.c: perf_event_read_event()
type Read struct {
	Pid, Tid uint32
	Values   []byte
}

// RecordType implements Sideband.
func (*Read) RecordType() uint32 { return uapi.PERF_RECORD_READ }

// RecordMisc implements Sideband.
func (*Read) RecordMisc() uint16 { return 0 }
func (r *Read) bodySize() int    { return 8 + len(r.Values) }
func (r *Read) appendBody(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(le.AppendUint32(b, r.Pid), r.Tid)
	return append(b, r.Values...)
}
