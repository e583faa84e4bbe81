package rb

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/uapi"
)

// groupRead is a PERF_SAMPLE_READ part of read_format GROUP|ID: nr, then
// {value, id} per member.
func groupRead(nr uint64, members ...uint64) []byte {
	b := binary.LittleEndian.AppendUint64(nil, nr)
	for _, m := range members {
		b = binary.LittleEndian.AppendUint64(b, 1000*m)
		b = binary.LittleEndian.AppendUint64(b, m)
	}
	return b
}

// A PERF_SAMPLE_READ group read longer or shorter than what the record
// reserved (event->read_size): header.size is the reservation, the body is
// what perf_output_read_group() wrote, and the invariant names the record.
func TestReadMisfit(t *testing.T) {
	const st = uapi.PERF_SAMPLE_IP | uapi.PERF_SAMPLE_READ
	for _, tc := range []struct {
		name     string
		read     []byte
		reserved int
		// the 8-byte words of the data area from 0 after the write, and of
		// the next record written after it
		want []uint64
		viol []Violation
	}{
		{"longer: spills into the next record's space", groupRead(2, 1, 2), 24,
			// header{SAMPLE, size 40}, ip, nr 2, {1000,1}, {2000,2}: 56 bytes
			// written in a 40-byte record; the next record (at 40) then
			// overwrites the spilled entry with its own header and ip.
			[]uint64{hdrWord(uapi.PERF_RECORD_SAMPLE, 40), 0x401000, 2, 1000, 1, hdrWord(uapi.PERF_RECORD_SAMPLE, 16), 0x402000, 0xaaaaaaaaaaaaaaaa},
			[]Violation{{"record-fits-reservation", "the record at 0x0 reserved 40 bytes and its writer wrote 56", 1}}},
		{"shorter: the tail keeps stale ring bytes", groupRead(1, 1), 40,
			// nr 1, one entry, in a record sized for two: 16 stale bytes
			[]uint64{hdrWord(uapi.PERF_RECORD_SAMPLE, 56), 0x401000, 1, 1000, 1, 0xaaaaaaaaaaaaaaaa, 0xaaaaaaaaaaaaaaaa, hdrWord(uapi.PERF_RECORD_SAMPLE, 16)},
			[]Violation{{"record-fits-reservation", "the record at 0x0 reserved 56 bytes and its writer wrote 40", 1}}},
		{"fits", groupRead(1, 1), 24,
			[]uint64{hdrWord(uapi.PERF_RECORD_SAMPLE, 40), 0x401000, 1, 1000, 1, hdrWord(uapi.PERF_RECORD_SAMPLE, 16), 0x402000, 0xaaaaaaaaaaaaaaaa},
			nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf := mustBuffer(1, 0, RingBufferWritable)
			copy(buf.Data(), bytes.Repeat([]byte{0xaa}, len(buf.Data())))
			l := &logger{}
			buf.Tracer = l.trace
			ev := &SimpleEvent{EventID: 1}
			s := &Sample{Type: st, IP: 0x401000, Read: tc.read, ReadReserved: tc.reserved}
			if _, err := AppendSample(nil, s); (err != nil) != (len(tc.viol) > 0) {
				t.Errorf("AppendSample: %v", err)
			}
			if err := PerfEventOutput(NoSteps{}, buf, ev, s, false); err != nil {
				t.Fatal(err)
			}
			next := &Sample{Type: uapi.PERF_SAMPLE_IP, IP: 0x402000}
			if err := PerfEventOutput(NoSteps{}, buf, ev, next, false); err != nil {
				t.Fatal(err)
			}
			var got []uint64
			for i := range len(tc.want) {
				got = append(got, binary.LittleEndian.Uint64(buf.Data()[8*i:]))
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("data area (-want +got):\n%s", d)
			}
			var viol []Violation
			for _, v := range Check(l.log, Final{DataSize: buf.DataSize(), Head: buf.Head()}) {
				if v.Invariant == "record-fits-reservation" {
					viol = append(viol, v)
				}
			}
			if d := cmp.Diff(tc.viol, viol); d != "" {
				t.Errorf("violations (-want +got):\n%s", d)
			}
		})
	}
}

// hdrWord is the first u64 of a record header: type, misc 0, size.
func hdrWord(typ uint32, size uint16) uint64 { return uint64(typ) | uint64(size)<<48 }
