package perftool

import (
	"encoding/binary"

	"perfsim/rb"
	"perfsim/uapi"
)

// readValue is one {value, id} of a sample's PERF_SAMPLE_READ part.
type readValue struct{ value, id uint64 }

// readValues splits a PERF_SAMPLE_READ part laid out for read_format rf.
// tools/perf/util/evsel.c: evsel__parse_sample() (PERF_SAMPLE_READ)
func readValues(b []byte, rf uint64) []readValue {
	le := binary.LittleEndian
	u64 := func() uint64 {
		if len(b) < 8 {
			return 0
		}
		v := le.Uint64(b)
		b = b[8:]
		return v
	}
	nr := uint64(1)
	if rf&uapi.PERF_FORMAT_GROUP != 0 {
		nr = u64()
	}
	one := func() readValue {
		v := readValue{value: u64()}
		if rf&uapi.PERF_FORMAT_ID != 0 {
			v.id = u64()
		}
		if rf&uapi.PERF_FORMAT_LOST != 0 {
			u64()
		}
		return v
	}
	if rf&uapi.PERF_FORMAT_GROUP == 0 {
		v := readValue{value: u64()}
		if rf&uapi.PERF_FORMAT_TOTAL_TIME_ENABLED != 0 {
			u64()
		}
		if rf&uapi.PERF_FORMAT_TOTAL_TIME_RUNNING != 0 {
			u64()
		}
		if rf&uapi.PERF_FORMAT_ID != 0 {
			v.id = u64()
		}
		return []readValue{v}
	}
	if rf&uapi.PERF_FORMAT_TOTAL_TIME_ENABLED != 0 {
		u64()
	}
	if rf&uapi.PERF_FORMAT_TOTAL_TIME_RUNNING != 0 {
		u64()
	}
	var out []readValue
	for i := uint64(0); i < nr && len(b) > 0; i++ {
		out = append(out, one())
	}
	return out
}

// sampleRead delivers a PERF_SAMPLE_READ sample as perf's session does: one
// sample per value read (the group's members with PERF_FORMAT_GROUP), each
// on the evsel of its id, its period the growth of that id's value since the
// last read; a value that did not grow is not delivered.
// tools/perf/util/session.c: evlist__deliver_sample() -> deliver_sample_group(), deliver_sample_value()
type sampleRead struct {
	d    *PerfData
	last map[uint64]uint64 // sid->period
}

func (sr *sampleRead) deliver(x DeliveredSample, fn func(evsel int, s *rb.Sample)) {
	fa := &sr.d.Attrs[x.Evsel]
	for _, v := range readValues(x.Sample.Read, fa.Attr.ReadFormat) {
		evsel := sr.d.evselOfID(v.id)
		if evsel < 0 {
			continue // ++evlist->stats.nr_unknown_id
		}
		if sr.last == nil {
			sr.last = map[uint64]uint64{}
		}
		s := *x.Sample
		s.ID, s.Period = v.id, v.value-sr.last[v.id]
		sr.last[v.id] = v.value
		if s.Period == 0 {
			continue
		}
		fn(evsel, &s)
	}
}

// evselOfID is evlist__id2sid(id)->evsel: the attr whose ids hold id, or -1.
func (d *PerfData) evselOfID(id uint64) int {
	for i := range d.Attrs {
		for _, x := range d.Attrs[i].IDs {
			if x == id {
				return i
			}
		}
	}
	return -1
}
