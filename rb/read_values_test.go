package rb

import (
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/uapi"
)

func words(ws ...uint64) []byte {
	b := make([]byte, 8*len(ws))
	for i, w := range ws {
		binary.LittleEndian.PutUint64(b[8*i:], w)
	}
	return b
}

// TestReadValues: the read_format layouts perf_output_read_one() and
// perf_output_read_group() write, split back into values, and the lengths
// that do not fit their read_format refused.
func TestReadValues(t *testing.T) {
	const (
		id, lost = uapi.PERF_FORMAT_ID, uapi.PERF_FORMAT_LOST
		times    = uapi.PERF_FORMAT_TOTAL_TIME_ENABLED | uapi.PERF_FORMAT_TOTAL_TIME_RUNNING
		group    = uapi.PERF_FORMAT_GROUP
	)
	for _, tc := range []struct {
		name string
		rf   uint64
		b    []byte
		want []ReadValue
		err  bool
	}{
		{"one value", 0, words(7), []ReadValue{{Value: 7}}, false},
		{"one with times, id and lost", times | id | lost, words(7, 100, 90, 3, 1), []ReadValue{{Value: 7, ID: 3, Lost: 1}}, false},
		{"perf record's group (ID|GROUP|LOST)", group | id | lost, words(2, 102, 11, 0, 101, 12, 0), []ReadValue{{Value: 102, ID: 11}, {Value: 101, ID: 12}}, false},
		{"group with times", group | times | id, words(2, 100, 90, 5, 1, 6, 2), []ReadValue{{Value: 5, ID: 1}, {Value: 6, ID: 2}}, false},
		{"one value too long", 0, words(7, 8), nil, true},
		{"group shorter than its nr", group | id, words(3, 1, 1, 2, 2), nil, true},
		{"group with no nr", group, nil, nil, true},
		{"not whole words", 0, []byte{1, 2, 3}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadValues(tc.b, tc.rf)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want an error: %v", err, tc.err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzReadValues: any bytes and read_format: no panic, and a part it
// accepts has exactly the length its values and read_format give.
func FuzzReadValues(f *testing.F) {
	f.Add(words(2, 102, 11, 0, 101, 12, 0), uint64(uapi.PERF_FORMAT_GROUP|uapi.PERF_FORMAT_ID|uapi.PERF_FORMAT_LOST))
	f.Add(words(7, 100, 90, 3), uint64(0x7))
	f.Fuzz(func(t *testing.T, b []byte, rf uint64) {
		vals, err := ReadValues(b, rf)
		if err != nil {
			return
		}
		n, err := readPartSize(b, rf)
		if err != nil || n != len(b) {
			t.Fatalf("accepted %d bytes for %d values; readPartSize says %d (%v)", len(b), len(vals), n, err)
		}
	})
}
