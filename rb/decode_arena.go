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
	// scratch: every value handed out is the same one, zeroed (NewScratchArena).
	scratch bool
}

// NewScratchArena returns an arena for decoding one record at a time and
// dropping it: each DecodeAttr hands out the same Decoded, Sample, SampleID
// and callchain room as the last, zeroed, so a walk that only counts what
// decodes (PerfData's stats) allocates nothing per record. A record decoded
// from it is valid until the next DecodeAttr, and its byte fields (Raw, Read,
// StackUser, Aux) are the record's own bytes, not copies.
func NewScratchArena() *Arena { return &Arena{scratch: true} }

// NewArena returns an arena sized for records records, samples of them
// PERF_RECORD_SAMPLE.
func NewArena(records, samples int) *Arena {
	return &Arena{decs: make([]Decoded, records), samples: make([]Sample, samples)}
}

// arenaSlab is how many values a slab holds when a sized one runs out.
const arenaSlab = 32

// take hands out the first value of *slab, refilling it when empty; nil
// (no arena) allocates one on its own.
func take[T any](a *Arena, slab *[]T) *T {
	if a == nil {
		return new(T)
	}
	if a.scratch {
		if len(*slab) == 0 {
			*slab = make([]T, 1)
		}
		var zero T
		(*slab)[0] = zero
		return &(*slab)[0]
	}
	if len(*slab) == 0 {
		*slab = make([]T, arenaSlab)
	}
	v := &(*slab)[0]
	*slab = (*slab)[1:]
	return v
}

func (a *Arena) decoded() *Decoded {
	if a == nil {
		return new(Decoded)
	}
	return take(a, &a.decs)
}

func (a *Arena) sample() *Sample {
	if a == nil {
		return new(Sample)
	}
	return take(a, &a.samples)
}

func (a *Arena) sampleID() *SampleID {
	if a == nil {
		return new(SampleID)
	}
	return take(a, &a.ids)
}

// uint64s returns a zeroed slice of n (its capacity n: an append copies),
// never nil (make's: an empty callchain is not a missing one).
func (a *Arena) uint64s(n int) []uint64 {
	const slab = 512
	if a == nil || n == 0 || n > slab/4 {
		return make([]uint64, n)
	}
	if a.scratch {
		if cap(a.u64s) < n {
			a.u64s = make([]uint64, slab/4)
		}
		s := a.u64s[:n:n]
		clear(s)
		return s
	}
	if len(a.u64s) < n {
		a.u64s = make([]uint64, slab)
	}
	s := a.u64s[:n:n]
	a.u64s = a.u64s[n:]
	return s
}
