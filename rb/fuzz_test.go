package rb

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/uapi"
)

// FuzzDecodeAttr: the record decoders read what a reader copied out of a ring,
// which a race may have torn or overwritten: any bytes, under any sample
// layout, decode or fail with an error, never a panic.
func FuzzDecodeAttr(f *testing.F) {
	sample := func(typ uint32, body ...uint64) []byte {
		b := make([]byte, HeaderSize+8*len(body))
		binary.LittleEndian.PutUint32(b, typ)
		binary.LittleEndian.PutUint16(b[6:], uint16(len(b)))
		for i, v := range body {
			binary.LittleEndian.PutUint64(b[HeaderSize+8*i:], v)
		}
		return b
	}
	st := uint64(uapi.PERF_SAMPLE_IP | uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME | uapi.PERF_SAMPLE_CPU | uapi.PERF_SAMPLE_PERIOD)
	f.Add(sample(uapi.PERF_RECORD_SAMPLE, 0xffffffff81000000, 0x0000006500000065, 1000, 0, 1), st, uint64(0), uint64(0), uint64(0), true)
	f.Add(sample(uapi.PERF_RECORD_SAMPLE, 3, 1, 2, 3), uint64(uapi.PERF_SAMPLE_CALLCHAIN), uint64(0), uint64(0), uint64(0), false)
	f.Add(sample(uapi.PERF_RECORD_SAMPLE, 4, 0xdeadbeef), uint64(uapi.PERF_SAMPLE_RAW), uint64(0), uint64(0), uint64(0), false)
	f.Add(sample(uapi.PERF_RECORD_LOST, 1, 5), st, uint64(0), uint64(0), uint64(0), true)
	f.Add(sample(uapi.PERF_RECORD_COMM, 0x0000006500000065, 0x6f6f66), st, uint64(0), uint64(0), uint64(0), true)
	f.Add(sample(uapi.PERF_RECORD_CGROUP, 1, 0x2f), st, uint64(0), uint64(0), uint64(0), false)
	f.Add(sample(uapi.PERF_RECORD_SAMPLE, 0x401000, 7), uint64(uapi.PERF_SAMPLE_IP|uapi.PERF_SAMPLE_CGROUP), uint64(0), uint64(0), uint64(0), false)
	f.Add([]byte{1, 0, 0, 0, 0, 0, 4, 0}, st, uint64(0), uint64(0), uint64(0), true)
	f.Add([]byte{}, uint64(0), uint64(0), uint64(0), uint64(0), false)
	f.Fuzz(func(t *testing.T, rec []byte, sampleType, readFormat, regs, branch uint64, idAll bool) {
		l := SampleLayout{SampleType: sampleType, ReadFormat: readFormat, SampleRegsUser: regs, BranchSampleType: branch}
		_, _ = DecodeAttr(rec, l, idAll)
		_, _ = DecodeSampleAttr(rec, l)
		_, _ = ParseHeader(rec)
	})
}

// fuzzSample is a PERF_RECORD_SAMPLE seed with body's words after the header.
func fuzzSample(body ...uint64) []byte {
	b := make([]byte, HeaderSize+8*len(body))
	binary.LittleEndian.PutUint32(b, uapi.PERF_RECORD_SAMPLE)
	binary.LittleEndian.PutUint16(b[6:], uint16(len(b)))
	for i, v := range body {
		binary.LittleEndian.PutUint64(b[HeaderSize+8*i:], v)
	}
	return b
}

// FuzzScratchDecodeSame: a scratch arena (NewScratchArena: values reused,
// byte fields that are the record's own bytes) decodes any record to what
// a decode of its own makes, error for error.
func FuzzScratchDecodeSame(f *testing.F) {
	sample := fuzzSample
	raw, read := uint64(uapi.PERF_SAMPLE_RAW), uint64(uapi.PERF_SAMPLE_READ)
	f.Add(sample(12, 0x0102030405060708, 0x1112131415161718), raw|uapi.PERF_SAMPLE_IP, uint64(0), false)
	f.Add(sample(4, 0xdeadbeef), raw, uint64(0), false)
	f.Add(sample(2, 10, 1, 20, 2), read|uapi.PERF_SAMPLE_TID, uint64(uapi.PERF_FORMAT_GROUP|uapi.PERF_FORMAT_ID), false)
	f.Add(sample(16, 1, 2, 16), uint64(uapi.PERF_SAMPLE_STACK_USER), uint64(0), false)
	f.Add(sample(8, 0x4141414141414141), uint64(uapi.PERF_SAMPLE_AUX), uint64(0), true)
	f.Add(sample(3, 1, 2, 3, 5, 0xaa), uint64(uapi.PERF_SAMPLE_CALLCHAIN)|raw, uint64(0), true)
	f.Fuzz(func(t *testing.T, rec []byte, sampleType, readFormat uint64, idAll bool) {
		l := SampleLayout{SampleType: sampleType, ReadFormat: readFormat}
		want, werr := DecodeAttr(rec, l, idAll)
		a := NewScratchArena()
		for range 2 { // the second decode reuses the first's values
			got, gerr := a.DecodeAttr(rec, l, idAll)
			if fmt.Sprint(werr) != fmt.Sprint(gerr) {
				t.Fatalf("error %v, scratch %v", werr, gerr)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("scratch decode (-own +scratch):\n%s", d)
			}
		}
	})
}

// FuzzSampleValid: SampleValid says a record decodes as a sample exactly
// when DecodeSampleAttr decodes it, for any bytes under any layout.
func FuzzSampleValid(f *testing.F) {
	sample := fuzzSample
	st := uint64(uapi.PERF_SAMPLE_IP | uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME | uapi.PERF_SAMPLE_CPU | uapi.PERF_SAMPLE_PERIOD)
	f.Add(sample(0xffffffff81000000, 0x0000006500000065, 1000, 0, 1), st, uint64(0), uint64(0), uint64(0))
	f.Add(sample(0xffffffff81000000, 0x0000006500000065, 1000, 0), st, uint64(0), uint64(0), uint64(0))
	f.Add(sample(3, 1, 2, 3), uint64(uapi.PERF_SAMPLE_CALLCHAIN), uint64(0), uint64(0), uint64(0))
	f.Add(sample(4, 1, 2), uint64(uapi.PERF_SAMPLE_CALLCHAIN), uint64(0), uint64(0), uint64(0))
	f.Add(sample(12, 0x0102030405060708, 0x1112131415161718), uint64(uapi.PERF_SAMPLE_RAW), uint64(0), uint64(0), uint64(0))
	f.Add(sample(2, 10, 1, 20, 2), uint64(uapi.PERF_SAMPLE_READ|uapi.PERF_SAMPLE_TID), uint64(uapi.PERF_FORMAT_GROUP|uapi.PERF_FORMAT_ID), uint64(0), uint64(0))
	f.Add(sample(1, 7, 0x401000, 0x402000, 0), uint64(uapi.PERF_SAMPLE_BRANCH_STACK), uint64(0), uint64(0), uint64(uapi.PERF_SAMPLE_BRANCH_HW_INDEX))
	f.Add(sample(2, 5, 6, 7), uint64(uapi.PERF_SAMPLE_REGS_USER), uint64(0), uint64(0b1011), uint64(0))
	f.Add(sample(16, 1, 2, 16), uint64(uapi.PERF_SAMPLE_STACK_USER), uint64(0), uint64(0), uint64(0))
	f.Add(sample(8, 0x4141414141414141), uint64(uapi.PERF_SAMPLE_AUX), uint64(0), uint64(0), uint64(0))
	f.Add(sample(9, 0x4141414141414141), uint64(uapi.PERF_SAMPLE_AUX), uint64(0), uint64(0), uint64(0))
	f.Add(sample(1, 2), uint64(uapi.PERF_SAMPLE_DATA_SRC|uapi.PERF_SAMPLE_CGROUP), uint64(0), uint64(0), uint64(0))
	f.Add([]byte{1, 0, 0, 0, 0, 0, 4, 0}, st, uint64(0), uint64(0), uint64(0))
	f.Fuzz(func(t *testing.T, rec []byte, sampleType, readFormat, regs, branch uint64) {
		l := SampleLayout{SampleType: sampleType, ReadFormat: readFormat, SampleRegsUser: regs, BranchSampleType: branch}
		_, err := DecodeSampleAttr(rec, l)
		if got := l.SampleValid(rec); got != (err == nil) {
			t.Fatalf("SampleValid %v, DecodeSampleAttr error %v", got, err)
		}
	})
}
