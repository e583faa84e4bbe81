package perftool

import (
	"perfsim/rb"
)

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
	// DecodeSample checked the read part's length against read_format
	vals, _ := rb.ReadValues(x.Sample.Read, fa.Attr.ReadFormat)
	for _, v := range vals {
		evsel := sr.d.evselOfID(v.ID)
		if evsel < 0 {
			continue // ++evlist->stats.nr_unknown_id
		}
		if sr.last == nil {
			sr.last = map[uint64]uint64{}
		}
		s := *x.Sample
		s.ID, s.Period = v.ID, v.Value-sr.last[v.ID]
		sr.last[v.ID] = v.Value
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
