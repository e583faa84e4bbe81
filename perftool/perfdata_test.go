package perftool

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/rb"
)

// TestPerfDataProcess: the reader finds each record's attr by its id, keeps
// records it cannot decode with their error, and stops at a header whose
// size cannot be right, as perf's reader__read_event() does.
func TestPerfDataProcess(t *testing.T) {
	r, err := Parse([]string{"-e", "raw_syscalls:sys_enter,raw_syscalls:sys_exit", "--", "x"}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	sample := func(ev int, id uint64) []byte {
		a := &r.Evsels[ev].Attr
		b, err := rb.AppendSample(nil, &rb.Sample{Type: a.SampleType, ID: id, Raw: tpRaw(r.Evsels[ev].Tracepoint, 1, nil)})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	lost := rb.AppendRecord(nil, &rb.Lost{ID: 11, Lost: 5}, r.Evsels[0].Attr.SampleType, true, &rb.SampleID{ID: 11})
	// A record cut short: header.size matches its bytes, the body does not
	// hold the fields sample_type promises, so it does not decode.
	torn := sample(0, 11)
	torn = torn[:len(torn)-8]
	torn[6] = byte(len(torn))
	badHeader := []byte{9, 0, 0, 0, 0, 0, 4, 0}

	type summary struct {
		Evsels  []int
		Errs    int
		Stopped bool
		Stats   DataStats
	}
	tests := []struct {
		name   string
		chunks [][]byte
		want   summary
	}{
		{"ids pick the attr", [][]byte{sample(0, 11), sample(1, 12), sample(1, 12)},
			summary{Evsels: []int{0, 1, 1}, Stats: DataStats{Records: 3, Samples: 3, EvselSamples: []int64{1, 2}}}},
		{"lost is summed", [][]byte{sample(0, 11), lost, lost},
			summary{Evsels: []int{0, 0, 0}, Stats: DataStats{Records: 3, Samples: 1, LostRecords: 2, Lost: 10, EvselSamples: []int64{1}}}},
		{"unknown id", [][]byte{sample(0, 99)},
			summary{Evsels: []int{-1}, Errs: 1, Stats: DataStats{Records: 1, Torn: 1}}},
		{"short body", [][]byte{torn, sample(1, 12)},
			summary{Evsels: []int{0, 1}, Errs: 1, Stats: DataStats{Records: 2, Samples: 1, Torn: 1, EvselSamples: []int64{0, 1}}}},
		{"bad header stops the reader", [][]byte{sample(0, 11), badHeader, sample(0, 11)},
			summary{Evsels: []int{0}, Stopped: true, Stats: DataStats{Records: 1, Samples: 1, Torn: 1, EvselSamples: []int64{1}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := newPerfData(r)
			d.Attrs[0].IDs, d.Attrs[1].IDs = []uint64{11}, []uint64{12}
			for _, c := range tc.chunks {
				d.write(c, 0, 0, 0, false)
			}
			// Stats before anything parsed walks the records without keeping them.
			if diff := cmp.Diff(tc.want.Stats, d.Stats()); diff != "" || d.Records != nil {
				t.Errorf("Stats unparsed (-want +got):\n%s (records kept: %d)", diff, len(d.Records))
			}
			d.Process()
			got := summary{Stopped: d.ProcessErr != nil, Stats: d.Stats()}
			for _, rec := range d.Records {
				got.Evsels = append(got.Evsels, rec.Evsel)
				if rec.Err != nil {
					got.Errs++
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
