package rb

import (
	"encoding/binary"

	"perfsim/uapi"
)

// CallchainDeferred is PERF_RECORD_CALLCHAIN_DEFERRED {cookie, nr, ips[nr]},
// written with misc PERF_RECORD_MISC_USER and a sample_id trailer.
// kernel/events/core.c: perf_callchain_deferred_output()
type CallchainDeferred struct {
	Cookie uint64
	IPs    []uint64
}

// RecordType implements Sideband.
func (*CallchainDeferred) RecordType() uint32 { return uapi.PERF_RECORD_CALLCHAIN_DEFERRED }

// RecordMisc implements Sideband.
func (*CallchainDeferred) RecordMisc() uint16 { return uapi.PERF_RECORD_MISC_USER }
func (r *CallchainDeferred) bodySize() int    { return 16 + 8*len(r.IPs) }
func (r *CallchainDeferred) appendBody(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint64(b, r.Cookie)
	b = le.AppendUint64(b, uint64(len(r.IPs)))
	for _, ip := range r.IPs {
		b = le.AppendUint64(b, ip)
	}
	return b
}

// decodeCallchainDeferred parses the body after the header (the trailer cut
// off), checking nr against the bytes as perf's swap/size checks do.
// tools/perf/util/session.c: perf_session__process_event() (CALLCHAIN_DEFERRED)
func decodeCallchainDeferred(d *decoder) *CallchainDeferred {
	r := &CallchainDeferred{Cookie: d.u64()}
	nr := d.u64()
	if d.err != nil {
		return r
	}
	if nr > uint64(len(d.b)/8) {
		d.err = errTruncated("callchain_deferred.ips")
		d.b = nil
		return r
	}
	r.IPs = make([]uint64, nr)
	for i := range r.IPs {
		r.IPs[i] = d.u64()
	}
	return r
}
