package perftool

import (
	"encoding/binary"
	"testing"

	"perfsim/rb"
	"perfsim/uapi"
)

// bs builds expected bytes by hand: each argument is a u64 (uint64), two u32s
// ([2]uint32), a header ([3]uint64{type, misc, size}) or raw bytes ([]byte).
func bs(parts ...any) []byte {
	var b []byte
	for _, p := range parts {
		switch v := p.(type) {
		case uint64:
			b = binary.LittleEndian.AppendUint64(b, v)
		case int:
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		case [2]uint32:
			b = binary.LittleEndian.AppendUint32(b, v[0])
			b = binary.LittleEndian.AppendUint32(b, v[1])
		case [3]uint64:
			b = binary.LittleEndian.AppendUint32(b, uint32(v[0]))
			b = binary.LittleEndian.AppendUint16(b, uint16(v[1]))
			b = binary.LittleEndian.AppendUint16(b, uint16(v[2]))
		case []byte:
			b = append(b, v...)
		case string:
			b = append(b, v...)
		default:
			panic("bs: unsupported part")
		}
	}
	return b
}

func hdr(typ, misc, size uint64) [3]uint64 { return [3]uint64{typ, misc, size} }

// mustBuffer is NewBuffer for arguments a test knows are valid.
func mustBuffer(nrPages int, watermark int64, flags int) *rb.Buffer {
	b, err := rb.NewBuffer(nrPages, watermark, flags)
	if err != nil {
		panic(err)
	}
	return b
}

// seqSample is a sample whose bytes tell its sequence number; extra callchain entries
// vary its size.
func seqSample(seq uint64, extra int) *rb.Sample {
	cc := make([]uint64, extra)
	for i := range cc {
		cc[i] = seq<<8 | uint64(i)
	}
	return &rb.Sample{Type: uapi.PERF_SAMPLE_IP | uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME | uapi.PERF_SAMPLE_CALLCHAIN,
		IP: 0x400000 + seq, Pid: 100, Tid: 101, Time: seq, Callchain: cc}
}

func sampleBytes(t testing.TB, s *rb.Sample) []byte {
	b, err := rb.AppendSample(nil, s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
