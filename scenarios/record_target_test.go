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

// TestQuotedStrings: a string argument holds blanks, a '#' and escapes, and
// stays one argument; a comment after it is still a comment.
func TestQuotedStrings(t *testing.T) {
	f, err := Parse("q.sim", []byte("task a\n  syscall prctl PR_SET_NAME \"my worker # 1\" 0 0 0 # comment\n  syscall prctl PR_SET_NAME \"say \\\"hi\\\"\\t\\\\\" 0 0 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var n []int
	for _, op := range f.Tasks[0].Body {
		sc := op.(*Syscall)
		got = append(got, sc.Args[1].Str)
		n = append(n, len(sc.Args))
	}
	if diff := cmp.Diff([]string{"my worker # 1", "say \"hi\"\t\\"}, got); diff != "" {
		t.Errorf("strings (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{5, 5}, n); diff != "" {
		t.Errorf("argument counts (-want +got):\n%s", diff)
	}
}
