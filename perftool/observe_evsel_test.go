package perftool

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/rb"
)

// TestEvselSamples: perf.samples[EVENT] counts a sample for the evsel its
// id names, as perf's reader does (evlist__id2evsel(): an id of 0 is the
// first evsel's), alike whether Stats walks the unparsed data section,
// counts the parsed records, or counts chunks as written (-o /dev/null, a
// data section over the keep budget); evsels of one name add up, a
// sample whose id names no evsel counts for none, and a name the session
// does not record is not an observable of it.
func TestEvselSamples(t *testing.T) {
	// Three evsels, the second and third both named cs: perf script -F event
	// prints cs for both.
	r, err := Parse([]string{"-e", "raw_syscalls:sys_enter,cs,cs", "--", "x"}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	sample := func(ev int, id uint64) []byte {
		a := &r.Evsels[ev].Attr
		s := &rb.Sample{Type: a.SampleType, ID: id}
		if tp := r.Evsels[ev].Tracepoint; tp != nil {
			s.Raw = tpRaw(tp, 1, nil)
		}
		b, err := rb.AppendSample(nil, s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// observe answers each name want has; perf.samples[cycles], an event
	// the session does not record, must not be answered.
	observe := func(ss *Session, want map[string]int64) map[string]int64 {
		got := map[string]int64{}
		for name := range want {
			if v, ok := ss.Observe(name); ok {
				got[name] = v
			}
		}
		if _, ok := ss.Observe("perf.samples[cycles]"); ok {
			t.Error("perf.samples[cycles] answered for a session that does not record cycles")
		}
		return got
	}
	tests := []struct {
		name    string
		samples [][]byte
		want    map[string]int64
	}{
		{"each by its id", [][]byte{sample(0, 11), sample(1, 12), sample(2, 13), sample(0, 11)},
			map[string]int64{"perf.samples[raw_syscalls:sys_enter]": 2, "perf.samples[cs]": 2, "perf.samples": 4}},
		{"id 0 is the first evsel's", [][]byte{sample(0, 0), sample(1, 12)},
			map[string]int64{"perf.samples[raw_syscalls:sys_enter]": 1, "perf.samples[cs]": 1, "perf.samples": 2}},
		// perf.samples not asked: the parsed record is torn, the counted one a sample
		{"an unknown id counts for no evsel", [][]byte{sample(2, 99), sample(2, 13)},
			map[string]int64{"perf.samples[raw_syscalls:sys_enter]": 0, "perf.samples[cs]": 1}},
		{"none", nil,
			map[string]int64{"perf.samples[raw_syscalls:sys_enter]": 0, "perf.samples[cs]": 0, "perf.samples": 0}},
	}
	for _, tc := range tests {
		for _, path := range []string{"unparsed", "parsed", "discarded"} {
			t.Run(tc.name+"/"+path, func(t *testing.T) {
				ss := &Session{R: r, Data: newPerfData(r)}
				d := ss.Data
				d.Discard = path == "discarded"
				d.Attrs[0].IDs, d.Attrs[1].IDs, d.Attrs[2].IDs = []uint64{11}, []uint64{12}, []uint64{13}
				for _, b := range tc.samples {
					d.write(b, 0, 0, 0, false)
				}
				if path == "parsed" {
					d.Process()
				}
				got := observe(ss, tc.want)
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
	}
}
