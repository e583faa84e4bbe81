package perftool

import (
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu/coresight"
)

// TestCSETMType: the driver's pmu->type is the one perf's cs_etm PMU uses.
func TestCSETMType(t *testing.T) {
	if coresight.TypeCSETM != TypeCSETM || csETM.typ != TypeCSETM {
		t.Errorf("coresight.TypeCSETM %d, record.TypeCSETM %d, csETM.typ %d", coresight.TypeCSETM, TypeCSETM, csETM.typ)
	}
}

// TestAuxtraceChunks walks perf.data pieces: PERF_RECORD_AUXTRACE payloads
// are returned with their CPU, other records are skipped by header.size, a
// payload cut short ends the walk.
func TestAuxtraceChunks(t *testing.T) {
	aux := func(cpu int, payload ...byte) []byte {
		b := AuxtraceEvent{Size: uint64(len(payload)), CPU: uint32(int32(cpu)), Tid: ^uint32(0)}.Append(nil)
		return append(b, payload...)
	}
	other := make([]byte, 16) // a FINISHED_ROUND-like record of 16 bytes
	binary.LittleEndian.PutUint32(other, RecordFinishedRound)
	binary.LittleEndian.PutUint16(other[6:], 16)
	type chunk struct {
		CPU int
		Len int
	}
	tests := []struct {
		name string
		data []byte
		want []chunk
	}{
		{"empty", nil, nil},
		{"two buffers", append(aux(0, make([]byte, 32)...), aux(3, make([]byte, 16)...)...), []chunk{{0, 32}, {3, 16}}},
		{"other record between", append(append(aux(1, make([]byte, 16)...), other...), aux(-1, make([]byte, 48)...)...), []chunk{{1, 16}, {-1, 48}}},
		{"cut short", aux(2, make([]byte, 64)...)[:48+10], nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []chunk
			for _, c := range auxtraceChunks(tc.data) {
				got = append(got, chunk{c.CPU, len(c.Data)})
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestCSEtmFindSnapshotHook: the registered find_snapshot does nothing today,
// not even make the area's bytes (a described area stays described), and,
// under pre-2f01c200d440, looks at the bytes once and widens a wrapped
// buffer's read to all of it.
func TestCSEtmFindSnapshotHook(t *testing.T) {
	const size = 1 << 16
	data := make([]byte, size)
	data[size-1] = 1 // trace in the last 512 bytes: the buffer has wrapped
	for _, tc := range []struct {
		tool      string
		head, old uint64
		asked     int // the calls of the data function
	}{
		{FindSnapshotRemoved, 100, 0, 0},
		{FindSnapshotPre, 100 + size, 100, 1},
	} {
		ss := &Session{Opts: SessionOptions{Knobs: map[string]string{ToolKnobFindSnapshot: tc.tool}}}
		mm := &SessionAuxMmap{Idx: 0, CPU: 0, Len: size, Mask: size - 1, PMU: csETM.name}
		head, old := uint64(100), uint64(0)
		asked := 0
		bytes := func() []byte { asked++; return data }
		if err := auxtraceRecords[csETM.name].FindSnapshot(ss, mm, bytes, &head, &old); err != nil {
			t.Fatal(err)
		}
		if head != tc.head || old != tc.old || asked != tc.asked {
			t.Errorf("%s: head %d old %d, the bytes made %d times; want %d %d, %d", tc.tool, head, old, asked, tc.head, tc.old, tc.asked)
		}
	}
}
