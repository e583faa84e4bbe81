package rb

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"perfsim/uapi"
)

func TestAppendSampleBytes(t *testing.T) {
	tests := []struct {
		name string
		s    Sample
		want []byte
	}{
		{
			name: "ip tid time",
			s:    Sample{Type: uapi.PERF_SAMPLE_IP | uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME, Misc: uapi.PERF_RECORD_MISC_USER, IP: 0x401000, Pid: 7, Tid: 8, Time: 1000},
			want: bs(hdr(9, 2, 32), uint64(0x401000), [2]uint32{7, 8}, uint64(1000)),
		},
		{
			name: "all fields in perf_output_sample order",
			s: Sample{Type: uapi.PERF_SAMPLE_IDENTIFIER | uapi.PERF_SAMPLE_IP | uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME | uapi.PERF_SAMPLE_ADDR |
				uapi.PERF_SAMPLE_ID | uapi.PERF_SAMPLE_STREAM_ID | uapi.PERF_SAMPLE_CPU | uapi.PERF_SAMPLE_PERIOD | uapi.PERF_SAMPLE_CALLCHAIN | uapi.PERF_SAMPLE_RAW,
				ID: 0x11, IP: 0x22, Pid: 3, Tid: 4, Time: 0x55, Addr: 0x66, StreamID: 0x77, CPU: 1, Period: 0x99,
				Callchain: []uint64{0xa1, 0xa2}, Raw: []byte{1, 2, 3, 4}},
			// header 8, identifier, ip, tid, time, addr, id, stream, cpu, period = 80;
			// callchain nr + 2 = 24; raw u32 size=4 + 4 bytes = 8. Total 112.
			want: bs(hdr(9, 0, 112), uint64(0x11), uint64(0x22), [2]uint32{3, 4}, uint64(0x55), uint64(0x66),
				uint64(0x11), uint64(0x77), [2]uint32{1, 0}, uint64(0x99), 2, uint64(0xa1), uint64(0xa2),
				[2]uint32{4, 0x04030201}),
		},
		{
			name: "raw padded to 8 with size counting the pad",
			s:    Sample{Type: uapi.PERF_SAMPLE_RAW, Raw: []byte{9, 9, 9, 9, 9}},
			// round_up(5+4, 8) = 16: u32 size = 12, 5 bytes, 7 bytes of pad.
			want: bs(hdr(9, 0, 24), [2]uint32{12, 0x09090909}, []byte{9, 0, 0, 0, 0, 0, 0, 0}),
		},
		{
			name: "raw absent writes the empty raw record",
			s:    Sample{Type: uapi.PERF_SAMPLE_RAW},
			want: bs(hdr(9, 0, 16), [2]uint32{4, 0}),
		},
		{
			name: "empty callchain is nr=0",
			s:    Sample{Type: uapi.PERF_SAMPLE_CALLCHAIN},
			want: bs(hdr(9, 0, 16), 0),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AppendSample(nil, &tc.s)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("bytes (-want +got):\n%s", diff)
			}
			n, _ := SampleSize(&tc.s)
			if n != len(tc.want) {
				t.Errorf("SampleSize = %d, want %d", n, len(tc.want))
			}
		})
	}
}

func TestSampleSizeLimits(t *testing.T) {
	tests := []struct {
		name    string
		s       Sample
		want    int
		wantErr error
	}{
		{"largest raw that fits", Sample{Type: uapi.PERF_SAMPLE_RAW, Raw: make([]byte, 65516)}, 65528, nil},
		{"one byte more needs another 8", Sample{Type: uapi.PERF_SAMPLE_RAW, Raw: make([]byte, 65517)}, 0, ErrRecordTooBig},
		{"callchain too long", Sample{Type: uapi.PERF_SAMPLE_CALLCHAIN, Callchain: make([]uint64, 8191)}, 0, ErrRecordTooBig},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SampleSize(&tc.s)
			if !errors.Is(err, tc.wantErr) || got != tc.want {
				t.Errorf("SampleSize = %d, %v; want %d, %v", got, err, tc.want, tc.wantErr)
			}
			if got%8 != 0 {
				t.Errorf("size %d not 8-aligned", got)
			}
		})
	}
	if _, err := SampleSize(&Sample{Type: 1 << 14}); err == nil { // PERF_SAMPLE_WEIGHT
		t.Error("PERF_SAMPLE_WEIGHT is not modelled, want an error")
	}
}

func TestAppendRecordBytes(t *testing.T) {
	id := &SampleID{Pid: 10, Tid: 11, Time: 12, ID: 13, StreamID: 14, CPU: 2}
	const allID = uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME | uapi.PERF_SAMPLE_ID | uapi.PERF_SAMPLE_STREAM_ID | uapi.PERF_SAMPLE_CPU | uapi.PERF_SAMPLE_IDENTIFIER
	// struct sample_id order: tid, time, id, stream_id, cpu, identifier.
	trailer := bs([2]uint32{10, 11}, uint64(12), uint64(13), uint64(14), [2]uint32{2, 0}, uint64(13))
	tests := []struct {
		name  string
		r     Sideband
		idAll bool
		want  []byte
	}{
		{"lost", &Lost{ID: 5, Lost: 3}, false, bs(hdr(2, 0, 24), 5, 3)},
		{"lost with sample_id", &Lost{ID: 5, Lost: 3}, true, bs(hdr(2, 0, 72), 5, 3, trailer)},
		// "perf" + NUL -> ALIGN(5, 8) = 8 bytes of comm.
		{"comm", &Comm{Pid: 1, Tid: 2, Comm: "perf"}, false, bs(hdr(3, 0, 24), [2]uint32{1, 2}, "perf\x00\x00\x00\x00")},
		{"comm exec, 15 chars kept", &Comm{Pid: 1, Tid: 1, Comm: "abcdefghijklmnopq", Exec: true}, false,
			bs(hdr(3, 1<<13, 32), [2]uint32{1, 1}, "abcdefghijklmno\x00")},
		{"exit", &Task{Pid: 1, Ppid: 2, Tid: 3, Ptid: 4, Time: 99}, false, bs(hdr(4, 0, 32), [2]uint32{1, 2}, [2]uint32{3, 4}, uint64(99))},
		{"switch out preempt", &Switch{Out: true, Preempt: true}, true, bs(hdr(14, 3<<13, 56), trailer)},
		{"switch in", &Switch{}, false, bs(hdr(14, 0, 8))},
		{"switch cpu wide", &Switch{CPUWide: true, Out: true, NextPrevPid: 7, NextPrevTid: 8}, false, bs(hdr(15, 1<<13, 16), [2]uint32{7, 8})},
		{"aux", &Aux{Offset: 0x1000, Size: 0x200, Flags: 1}, false, bs(hdr(11, 0, 32), uint64(0x1000), uint64(0x200), 1)},
		// "/" + NUL -> 8 bytes; "/perfsim-test" (13) + NUL -> 16. The real
		// perf 6.1's --all-cgroups record of the root here: [0x28] with a
		// TID|TIME trailer (perf report -D: "PERF_RECORD_CGROUP cgroup: 1 /").
		{"cgroup root", &Cgroup{ID: 1, Path: "/"}, false, bs(hdr(19, 0, 24), uint64(1), "/\x00\x00\x00\x00\x00\x00\x00")},
		{"cgroup child", &Cgroup{ID: 4242, Path: "/perfsim-test"}, true, bs(hdr(19, 0, 80), uint64(4242), "/perfsim-test\x00\x00\x00", trailer)},
		{"itrace start", &ItraceStart{Pid: 4, Tid: 5}, false, bs(hdr(12, 0, 16), [2]uint32{4, 5})},
		{"throttle", &Throttle{Time: 7, ID: 8, StreamID: 9}, true, bs(hdr(5, 0, 80), uint64(7), uint64(8), uint64(9), trailer)},
		{"unthrottle", &Throttle{Unthrottle: true, Time: 7, ID: 8, StreamID: 9}, false, bs(hdr(6, 0, 32), uint64(7), uint64(8), uint64(9))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := AppendRecord(nil, tc.r, allID, tc.idAll, id)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("bytes (-want +got):\n%s", diff)
			}
			ev := &SimpleEvent{Type: allID, IDAll: tc.idAll}
			if n := RecordSize(tc.r, ev); n != len(tc.want) {
				t.Errorf("RecordSize = %d, want %d", n, len(tc.want))
			}
			d, err := Decode(got, allID, tc.idAll)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			want := tc.r
			if c, ok := tc.r.(*Comm); ok {
				cc := *c
				cc.Comm = c.comm()
				want = &cc
			}
			if diff := cmp.Diff(want, d.Sideband); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
			if tc.idAll {
				if diff := cmp.Diff(id, d.ID); diff != "" {
					t.Errorf("decoded sample_id (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestDecodeRejectsBadBytes(t *testing.T) {
	good, _ := AppendSample(nil, &Sample{Type: uapi.PERF_SAMPLE_CALLCHAIN, Callchain: []uint64{1, 2}})
	tests := []struct {
		name string
		rec  []byte
		typ  uint64
	}{
		{"short header", []byte{9, 0, 0}, uapi.PERF_SAMPLE_IP},
		{"size disagrees with length", good[:16], uapi.PERF_SAMPLE_CALLCHAIN},
		{"callchain nr past the end", bs(hdr(9, 0, 24), 5, 1), uapi.PERF_SAMPLE_CALLCHAIN},
		{"raw size past the end", bs(hdr(9, 0, 16), [2]uint32{100, 0}), uapi.PERF_SAMPLE_RAW},
		{"trailing bytes", bs(hdr(9, 0, 24), 1, 2), uapi.PERF_SAMPLE_IP},
		{"unknown type", bs(hdr(77, 0, 8)), 0},
		{"comm without NUL", bs(hdr(3, 0, 24), [2]uint32{1, 2}, "abcdefgh"), 0},
		{"cgroup path without NUL", bs(hdr(19, 0, 24), uint64(1), "abcdefgh"), 0},
		{"zero size", bs(hdr(9, 0, 0)), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if d, err := Decode(tc.rec, tc.typ, false); err == nil {
				t.Errorf("Decode = %+v, want an error", d)
			}
		})
	}
}

func TestSampleRoundTrip(t *testing.T) {
	s := &Sample{Type: SampleSupported, Misc: uapi.PERF_RECORD_MISC_KERNEL | uapi.PERF_RECORD_MISC_EXACT_IP, ID: 1, IP: 2, Pid: 3, Tid: 4, Time: 5,
		Addr: 6, StreamID: 7, CPU: 8, Period: 9, Callchain: []uint64{10, 11, 12}, Raw: []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}
	le := binary.LittleEndian
	s.RegsABI, s.RegsUser = 2, []uint64{1, 2, 3}                            // sample_regs_user 0x83
	s.StackUser, s.StackDyn, s.DataSrc = make([]byte, 24), 16, 0x1e05080021 // uapi.PERF_MEM_NA
	s.Cgroup = 0x1234
	for _, tc := range []struct {
		name string
		rf   uint64
		read []uint64
	}{
		{"read one", 0, []uint64{42}},
		{"read one, times, id, lost", uapi.PERF_FORMAT_TOTAL_TIME_ENABLED | uapi.PERF_FORMAT_TOTAL_TIME_RUNNING | uapi.PERF_FORMAT_ID | uapi.PERF_FORMAT_LOST, []uint64{42, 100, 90, 7, 0}},
		{"read group of 2, ids", uapi.PERF_FORMAT_GROUP | uapi.PERF_FORMAT_ID, []uint64{2, 42, 7, 43, 8}},
		{"read group of 3, running", uapi.PERF_FORMAT_GROUP | uapi.PERF_FORMAT_TOTAL_TIME_RUNNING, []uint64{3, 90, 1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := *s
			s.Read = nil
			for _, v := range tc.read {
				s.Read = le.AppendUint64(s.Read, v)
			}
			b, err := AppendSample(nil, &s)
			if err != nil {
				t.Fatal(err)
			}
			d, err := DecodeAttr(b, SampleLayout{SampleType: s.Type, ReadFormat: tc.rf, SampleRegsUser: 0x83}, true)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&s, d.Sample, cmpopts.IgnoreFields(Sample{}, "AuxOutput")); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}
