package perftool

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/rb"
	"perfsim/uapi"
)

// TestDataStatsTally: Stats counts each kind of record alike whether it
// walks the unparsed data section (countStats) or counts the parsed
// records (after Process): samples, lost (summed), comm, exit, mmap and
// mmap2 from the rings; perf's own records (written with no ring) not at
// all; a type the model does not decode as unknown; a record whose body
// does not decode, or whose id names no attr, as torn; and a header that
// stops the reader as one more torn.
func TestDataStatsTally(t *testing.T) {
	r, err := Parse([]string{"-e", "raw_syscalls:sys_enter,raw_syscalls:sys_exit", "--", "x"}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	st := r.Evsels[0].Attr.SampleType
	sid := &rb.SampleID{ID: 11}
	sample, err := rb.AppendSample(nil, &rb.Sample{Type: st, ID: 11, Raw: tpRaw(r.Evsels[0].Tracepoint, 1, nil)})
	if err != nil {
		t.Fatal(err)
	}
	torn := append([]byte(nil), sample[:len(sample)-8]...)
	torn[6] = byte(len(torn))
	noAttr, err := rb.AppendSample(nil, &rb.Sample{Type: st, ID: 99, Raw: tpRaw(r.Evsels[0].Tracepoint, 1, nil)})
	if err != nil {
		t.Fatal(err)
	}
	lost := rb.AppendRecord(nil, &rb.Lost{ID: 11, Lost: 7}, st, true, sid)
	comm := rb.AppendRecord(nil, &rb.Comm{Pid: 5, Tid: 5, Comm: "x"}, st, true, sid)
	exit := rb.AppendRecord(nil, &rb.Task{Pid: 5, Tid: 5, Ppid: 1, Ptid: 1}, st, true, sid)
	mmap := rb.AppendRecord(nil, &rb.Mmap{Pid: 5, Tid: 5, Start: 0x400000, Len: 0x1000, Filename: "/x"}, st, true, sid)
	mmap2 := rb.AppendRecord(nil, &rb.Mmap{Mmap2: true, Pid: 5, Tid: 5, Start: 0x400000, Len: 0x1000, Filename: "/x"}, st, true, sid)
	unknown := append(headerOnly(uapi.PERF_RECORD_KSYMBOL), make([]byte, 8)...) // a type rb does not decode
	unknown[6] = byte(len(unknown))
	badHeader := []byte{9, 0, 0, 0, 0, 0, 4, 0}

	type chunk struct {
		b     []byte
		synth bool // written by perf (no ring)
	}
	tests := []struct {
		name   string
		chunks []chunk
		want   DataStats
	}{
		{"each kind", []chunk{{b: sample}, {b: lost}, {b: lost}, {b: comm}, {b: exit}, {b: mmap}, {b: mmap2}, {b: sample}},
			DataStats{Records: 8, Samples: 2, LostRecords: 2, Lost: 14, Comm: 1, Exit: 1, Mmap: 2, EvselSamples: []int64{2}}},
		{"perf's own are not counted", []chunk{{b: comm, synth: true}, {b: mmap, synth: true}, {b: sample}},
			DataStats{Records: 1, Samples: 1, EvselSamples: []int64{1}}},
		{"unknown type", []chunk{{b: unknown}, {b: sample}, {b: unknown}},
			DataStats{Records: 3, Samples: 1, Unknown: 2, EvselSamples: []int64{1}}},
		{"torn and no attr", []chunk{{b: torn}, {b: noAttr}, {b: comm}},
			DataStats{Records: 3, Comm: 1, Torn: 2}},
		{"bad header after an unknown and a torn", []chunk{{b: unknown}, {b: torn}, {b: sample}, {b: badHeader}, {b: sample}},
			DataStats{Records: 3, Samples: 1, Unknown: 1, Torn: 2, EvselSamples: []int64{1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := newPerfData(r)
			d.Attrs[0].IDs, d.Attrs[1].IDs = []uint64{11}, []uint64{12}
			for _, c := range tc.chunks {
				m := 0
				if c.synth {
					m = -1
				}
				d.write(c.b, m, 0, 0, false)
			}
			if diff := cmp.Diff(tc.want, d.Stats()); diff != "" || d.Records != nil {
				t.Errorf("Stats unparsed, countStats (-want +got):\n%s (records kept: %d)", diff, len(d.Records))
			}
			d.Process()
			if diff := cmp.Diff(tc.want, d.Stats()); diff != "" {
				t.Errorf("Stats of the parsed records (-want +got):\n%s", diff)
			}
		})
	}
}

// BenchmarkPerfDataStats is the cost of counting (countStats) and of
// parsing (Process) a data section of 10,000 records (samples with a lost,
// a comm and an mmap among every 100), written in 100 chunks.
func BenchmarkPerfDataStats(b *testing.B) {
	r, err := Parse([]string{"-e", "raw_syscalls:sys_enter,raw_syscalls:sys_exit", "--", "x"}, DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	st := r.Evsels[0].Attr.SampleType
	sid := &rb.SampleID{ID: 11}
	sample, err := rb.AppendSample(nil, &rb.Sample{Type: st, ID: 11, Raw: tpRaw(r.Evsels[0].Tracepoint, 1, nil)})
	if err != nil {
		b.Fatal(err)
	}
	var chunk []byte
	for i := range 100 {
		switch i {
		case 10:
			chunk = rb.AppendRecord(chunk, &rb.Lost{ID: 11, Lost: 7}, st, true, sid)
		case 20:
			chunk = rb.AppendRecord(chunk, &rb.Comm{Pid: 5, Tid: 5, Comm: "x"}, st, true, sid)
		case 30:
			chunk = rb.AppendRecord(chunk, &rb.Mmap{Mmap2: true, Pid: 5, Tid: 5, Start: 0x400000, Len: 0x1000, Filename: "/x"}, st, true, sid)
		default:
			chunk = append(chunk, sample...)
		}
	}
	d := newPerfData(r)
	d.Attrs[0].IDs, d.Attrs[1].IDs = []uint64{11}, []uint64{12}
	for range 100 {
		d.write(chunk, 0, 0, 0, false)
	}
	b.Run("countStats", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if s := d.countStats(); s.Records != 10000 {
				b.Fatalf("%+v", s)
			}
		}
	})
	b.Run("Process", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d.Process()
			if len(d.Records) != 10000 {
				b.Fatalf("%d records", len(d.Records))
			}
		}
	})
}
