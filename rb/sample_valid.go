package rb

import (
	"math/bits"

	"perfsim/uapi"
)

// SampleValid reports whether rec decodes as a sample of layout l
// (DecodeSampleAttr without an error), reading its fields as the decoder
// does without keeping them: a reader that only counts what decodes (the
// perf.data stats at a run's end) need not build each sample.
func (l SampleLayout) SampleValid(rec []byte) bool {
	hdr, err := checkRecord(rec)
	if err != nil || hdr.Type != uapi.PERF_RECORD_SAMPLE {
		return false
	}
	t := l.SampleType
	if t&^uint64(SampleSupported|uapi.PERF_SAMPLE_AUX) != 0 {
		return false
	}
	d := decoder{b: rec[HeaderSize:]}
	// the fixed u64s and u32 pairs before PERF_SAMPLE_READ (a short record
	// fails here or at a later field: either way it does not decode)
	d.skip(8 * bits.OnesCount64(t&sampleFixed8))
	if t&uapi.PERF_SAMPLE_READ != 0 {
		n, err := readPartSize(d.b, l.ReadFormat)
		if err != nil {
			return false
		}
		d.skip(n)
	}
	if t&uapi.PERF_SAMPLE_CALLCHAIN != 0 {
		nr := d.u64()
		if nr > uint64(len(d.b)/8) {
			return false
		}
		d.skip(int(nr) * 8)
	}
	if t&uapi.PERF_SAMPLE_RAW != 0 {
		n := d.u32()
		if uint64(n) > uint64(len(d.b)) {
			return false
		}
		d.skip(int(n))
	}
	if t&uapi.PERF_SAMPLE_BRANCH_STACK != 0 {
		nr := d.u64()
		if l.BranchSampleType&uapi.PERF_SAMPLE_BRANCH_HW_INDEX != 0 {
			d.u64()
		}
		if nr > uint64(len(d.b)/24) {
			return false
		}
		d.skip(int(nr) * 24)
	}
	if t&uapi.PERF_SAMPLE_REGS_USER != 0 {
		if abi := d.u64(); abi != 0 {
			for range bits.OnesCount64(l.SampleRegsUser) {
				d.u64()
			}
		}
	}
	if t&uapi.PERF_SAMPLE_STACK_USER != 0 {
		n := d.u64()
		if n > uint64(len(d.b)) {
			return false
		}
		if n > 0 {
			d.skip(int(n))
			d.u64()
		}
	}
	if t&uapi.PERF_SAMPLE_DATA_SRC != 0 {
		d.u64()
	}
	if t&uapi.PERF_SAMPLE_CGROUP != 0 {
		d.u64()
	}
	if t&uapi.PERF_SAMPLE_AUX != 0 {
		n := d.u64()
		if d.err == nil && n > uint64(len(d.b)) {
			return false
		}
		d.skip(int(min(n, uint64(len(d.b)))))
	}
	return d.err == nil && len(d.b) == 0
}

// sampleFixed8 are the sample fields of 8 bytes each (a u64, or two u32s)
// that come first in a sample, before PERF_SAMPLE_READ.
const sampleFixed8 = uapi.PERF_SAMPLE_IDENTIFIER | uapi.PERF_SAMPLE_IP | uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME |
	uapi.PERF_SAMPLE_ADDR | uapi.PERF_SAMPLE_ID | uapi.PERF_SAMPLE_STREAM_ID | uapi.PERF_SAMPLE_CPU | uapi.PERF_SAMPLE_PERIOD

// skip passes n bytes (a bytes read whose value is not wanted).
func (d *decoder) skip(n int) {
	if n < 0 || len(d.b) < n {
		d.fail()
		return
	}
	d.b = d.b[n:]
}
