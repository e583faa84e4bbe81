package sim

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWriteChrome: a switch opens the task's slice, an NMI nests in it, a
// timer is an instant, and what is open at the end is closed there.
func TestWriteChrome(t *testing.T) {
	tr := &Trace{Keep: true, Records: []Record{
		{T: 0, CPU: 0, Kind: KSwitch, Name: "idle", Detail: "app-101"},
		{T: 1500, CPU: 0, Kind: KEnter, Name: "nmi", Detail: "PMI"}, // as cpu's runHandler records it
		{T: 1500, CPU: 0, Kind: KExit, Name: "nmi", Detail: "PMI"},
		{T: 2000, CPU: 1, Kind: KTimer, Name: "tick"},
		{T: 3000, CPU: 0, Kind: KSwitch, Name: "app-101", Detail: "idle"},
		{T: 3500, CPU: 7, Kind: KNote, Name: "ignored: no such CPU"},
	}}
	var b bytes.Buffer
	if err := tr.WriteChrome(&b, 2, 4000); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Unit   string        `json:"displayTimeUnit"`
		Events []chromeEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	want := []chromeEvent{
		{Name: "process_name", Ph: "M", Args: map[string]string{"name": "perfsim"}},
		{Name: "thread_name", Ph: "M", Tid: 0, Args: map[string]string{"name": "cpu0"}},
		{Name: "thread_name", Ph: "M", Tid: 1, Args: map[string]string{"name": "cpu1"}},
		{Name: "app-101", Ph: "B", Ts: 0, Tid: 0},
		{Name: "nmi PMI", Ph: "B", Ts: 1.5, Tid: 0},
		{Name: "nmi PMI", Ph: "E", Ts: 1.5, Tid: 0},
		{Name: "tick", Ph: "i", S: "t", Ts: 2, Tid: 1, Args: map[string]string{"kind": "timer"}},
		{Name: "app-101", Ph: "E", Ts: 3, Tid: 0},
		{Name: "idle", Ph: "B", Ts: 3, Tid: 0},
		{Name: "idle", Ph: "E", Ts: 4, Tid: 0},
	}
	if d := cmp.Diff(want, got.Events); d != "" || got.Unit != "ns" {
		t.Errorf("unit %q; events (-want +got):\n%s", got.Unit, d)
	}
}
