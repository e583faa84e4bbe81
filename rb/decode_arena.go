package rb

// Arena hands out what decoding records makes (Decoded, Sample, SampleID, a
// sample's callchain) from slabs, for a reader that decodes a whole data
// section and keeps every record (perftool's PerfData.Process): a few
// allocations instead of two or three per record. A nil *Arena allocates
// each value on its own. The values stay valid as long as anything points
// into their slab.
type Arena struct {
	decs    []Decoded
	samples []Sample
	ids     []SampleID
	u64s    []uint64
}

// NewArena returns an arena sized for records records, samples of them
// PERF_RECORD_SAMPLE.
func NewArena(records, samples int) *Arena {
	return &Arena{decs: make([]Decoded, records), samples: make([]Sample, samples)}
}

// arenaSlab is how many values a slab holds when a sized one runs out.
const arenaSlab = 32

func (a *Arena) decoded() *Decoded {
	if a == nil {
		return &Decoded{}
	}
	if len(a.decs) == 0 {
		a.decs = make([]Decoded, arenaSlab)
	}
	d := &a.decs[0]
	a.decs = a.decs[1:]
	return d
}

func (a *Arena) sample() *Sample {
	if a == nil {
		return &Sample{}
	}
	if len(a.samples) == 0 {
		a.samples = make([]Sample, arenaSlab)
	}
	s := &a.samples[0]
	a.samples = a.samples[1:]
	return s
}

func (a *Arena) sampleID() *SampleID {
	if a == nil {
		return &SampleID{}
	}
	if len(a.ids) == 0 {
		a.ids = make([]SampleID, arenaSlab)
	}
	id := &a.ids[0]
	a.ids = a.ids[1:]
	return id
}

// uint64s returns a zeroed slice of n (its capacity n: an append copies),
// never nil (make's: an empty callchain is not a missing one).
func (a *Arena) uint64s(n int) []uint64 {
	const slab = 512
	if a == nil || n == 0 || n > slab/4 {
		return make([]uint64, n)
	}
	if len(a.u64s) < n {
		a.u64s = make([]uint64, slab)
	}
	s := a.u64s[:n:n]
	a.u64s = a.u64s[n:]
	return s
}
