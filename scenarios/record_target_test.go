package scenarios

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCheckRecordTargets: -p/-t name a task of the file or a fork/thread
// program; anything else is refused at the name's file:line:col.
func TestCheckRecordTargets(t *testing.T) {
	const tasks = "task srv\n  thread worker\n    compute 1us\n  compute 1us\n"
	tests := []struct {
		name, record string
		want         []string
	}{
		{"pid", "record -p srv -e cpu-clock\n", nil},
		{"tid of a thread program", "record -t worker -e cpu-clock\n", nil},
		{"bundled and attached", "record -ipsrv -e cpu-clock\n", nil},
		{"long with =", "record --tid=srv,worker -e cpu-clock\n", nil},
		{"unknown pid", "record -e cpu-clock -p nope\n", []string{
			`c.sim:5:24: -p "nope": perf attaches to a task of this file by its name (a task, or the program a fork or thread statement runs); known: srv, worker`}},
		{"unknown in a list", "record --tid=worker,nope -e cpu-clock\n", []string{
			`c.sim:5:21: -t "nope": perf attaches to a task of this file by its name (a task, or the program a fork or thread statement runs); known: srv, worker`}},
		{"a value is not a target", "record -e -p -- srv\n", nil},
	}
	for _, tt := range tests {
		got := checkMessages(t, tasks+tt.record, nil)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// ExampleRecord_TaskTargets: the names a record line attaches to.
func ExampleRecord_TaskTargets() {
	f, err := Parse("x.sim", []byte("task srv\n  compute 1us\nrecord -e cpu-clock -p srv,other -t w\n"))
	if err != nil {
		panic(err)
	}
	for _, ref := range f.Records[0].TaskTargets() {
		fmt.Println(ref.Option, ref.Name, ref.Pos.Col)
	}
	// Output:
	// -p srv 24
	// -p other 28
	// -t w 37
}
