package rb

import (
	"encoding/binary"

	"perfsim/uapi"
)

// auxSampleBytes is what PERF_SAMPLE_AUX adds to a sample: the u64 size and
// data->aux_size bytes (already 8-aligned by perf_prepare_sample_aux()).
func auxSampleBytes(s *Sample) int {
	if s.Type&uapi.PERF_SAMPLE_AUX == 0 {
		return 0
	}
	return 8 + int(s.AuxSize)
}

// outputSampleAux is the PERF_SAMPLE_AUX part of perf_output_sample(): the size,
// then (when not 0) perf_aux_sample_output() through s.AuxOutput, or s.Aux
// zero-padded to the size.
// kernel/events/core.c: perf_output_sample(), perf_aux_sample_output()
func outputSampleAux(st Stepper, h *Handle, s *Sample) {
	put64(h, s.AuxSize)
	if s.AuxSize == 0 {
		return
	}
	if s.AuxOutput != nil {
		// The PMU's snapshot_aux() copy: code rb does not annotate.
		h.rb.unaudited(h.rb.footprinting(), "perf_aux_sample_output")
		s.AuxOutput(st, h, s)
		return
	}
	n := min(uint64(len(s.Aux)), s.AuxSize)
	OutputCopy(h, s.Aux[:n])
	OutputZero(h, int(s.AuxSize-n))
}

// outputSampleAuxStatic writes an AUX part already held in s.Aux (no PMU copy).
func outputSampleAuxStatic(h *Handle, s *Sample) {
	put64(h, s.AuxSize)
	n := min(uint64(len(s.Aux)), s.AuxSize)
	OutputCopy(h, s.Aux[:n])
	OutputZero(h, int(s.AuxSize-n))
}

// putSampleAux encodes the PERF_SAMPLE_AUX part into b (AppendSample).
func putSampleAux(b []byte, s *Sample) {
	if s.Type&uapi.PERF_SAMPLE_AUX == 0 {
		return
	}
	binary.LittleEndian.PutUint64(b, s.AuxSize)
	copy(b[8:8+s.AuxSize], s.Aux)
}

// decodeSampleAux parses the PERF_SAMPLE_AUX part.
// tools/perf/util/evsel.c: evsel__parse_sample() (PERF_SAMPLE_AUX)
func decodeSampleAux(d *decoder, s *Sample) {
	n := d.u64()
	if d.err != nil {
		return
	}
	if n > uint64(len(d.b)) {
		d.err = errTruncated("aux")
		return
	}
	s.AuxSize = n
	s.Aux = d.bytes(int(n))
}

// OutputZero writes n zero bytes through the handle: the pad of
// perf_aux_sample_output() (perf_output_copy(handle, &zero, pad)).
func OutputZero(h *Handle, n int) {
	var zero [64]byte
	for n > 0 {
		k := min(n, len(zero))
		OutputCopy(h, zero[:k])
		n -= k
	}
}
