package scenarios

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var ignoreUnexported = cmpopts.IgnoreUnexported(File{}, Word{})

func mustParse(t *testing.T, src string) *File {
	t.Helper()
	f, err := Parse("p.sim", []byte(src))
	if err != nil {
		t.Fatalf("Parse:\n%v", err)
	}
	return f
}

func TestParseHeader(t *testing.T) {
	f := mustParse(t, "scenario s-1 # c\ntitle \"a b\"  'c'\ncpus 4\npmu cs_etm sink=etr size=1M bare\nkernel a=1 b=x\ntool t=on\n")
	want := &File{
		Name:     "p.sim",
		Scenario: &Ident{Pos{1, 10}, "s-1"},
		Title:    &Text{Pos{2, 7}, "a b c"},
		CPUs:     &Int{Pos{3, 6}, 4},
		PMUs: []*PMU{{Pos: Pos{4, 1}, Name: "cs_etm", Attrs: []*Setting{
			{Pos{4, 12}, "sink", Pos{4, 17}, "etr"},
			{Pos{4, 21}, "size", Pos{4, 26}, "1M"},
			{Pos: Pos{4, 29}, Name: "bare"},
		}}},
		Kernel: []*Setting{{Pos{5, 8}, "a", Pos{5, 10}, "1"}, {Pos{5, 12}, "b", Pos{5, 14}, "x"}},
		Tool:   []*Setting{{Pos{6, 6}, "t", Pos{6, 8}, "on"}},
	}
	if diff := cmp.Diff(want, f, ignoreUnexported); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if v, ok := f.PMUs[0].Attr("size"); v != "1M" || !ok {
		t.Errorf("Attr(size) = %q, %v", v, ok)
	}
	if f.NumCPUs() != 4 || (&File{}).NumCPUs() != 1 {
		t.Errorf("NumCPUs = %d, and %d without cpus", f.NumCPUs(), (&File{}).NumCPUs())
	}
}

func TestParseTask(t *testing.T) {
	src := "task app cpus 0-1 nice -5\n" +
		"  stack user main; foo ;bar # frames\n" +
		"  repeat 2\n" +
		"    syscall close\n" +
		"\n" +
		"    # a comment line inside the block\n" +
		"    compute 5us\n" +
		"  sleep 1ms\n" +
		"  stack kernel f\n" +
		"  migrate cpu 1\n" +
		"  pin cpu0\n" +
		"  exit\n" +
		"task idle\n"
	f := mustParse(t, src)
	want := []*Task{{
		Pos: Pos{1, 1}, Name: "app",
		Affinity: &CPUSet{Pos{1, 10}, []int{0, 1}},
		Nice:     &Int{Pos{1, 24}, -5},
		Body: []Op{
			&Stack{Pos: Pos{2, 3}, Frames: []string{"main", "foo", "bar"}},
			&Repeat{Pos: Pos{3, 3}, Count: 2, Body: []Op{
				&Syscall{Pos: Pos{4, 5}, Name: "close"},
				&Compute{Pos{7, 5}, 5 * time.Microsecond},
			}},
			&Sleep{Pos{8, 3}, time.Millisecond},
			&Stack{Pos: Pos{9, 3}, Kernel: true, Frames: []string{"f"}},
			&Migrate{Pos{10, 3}, 1},
			&Pin{Pos{11, 3}, CPUSet{Pos{11, 7}, []int{0}}},
			&Exit{Pos{12, 3}},
		},
	}, {Pos: Pos{13, 1}, Name: "idle"}}
	if diff := cmp.Diff(want, f.Tasks, ignoreUnexported); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseRecord(t *testing.T) {
	f := mustParse(t, "record pt: -e 'a b' -- t\nperf record -a\nrecord -- x:\n")
	var got []string
	for _, r := range f.Records {
		name := "-"
		if r.Name != nil {
			name = r.Name.Name + "@" + r.Name.Pos.String()
		}
		w, ok := r.Workload()
		got = append(got, name, r.Pos.String(), cmp.Diff([]string{}, r.Argv()), w.Text, map[bool]string{true: "workload", false: "none"}[ok])
	}
	want := []string{
		"pt@1:8", "1:1", cmp.Diff([]string{}, []string{"-e", "a b", "--", "t"}), "t", "workload",
		"-", "2:1", cmp.Diff([]string{}, []string{"-a"}), "", "none",
		"-", "3:1", cmp.Diff([]string{}, []string{"--", "x:"}), "x:", "workload",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseActionsAndForces(t *testing.T) {
	f := mustParse(t, "at 50ms snapshot pt cpu1\nat 0ns read\n"+
		"nmi cpu 0 at a:b\npreempt app at x occurrence 3\nmigrate app to cpu2 at t:r\n")
	wantActions := []*Action{
		{Pos: Pos{1, 1}, At: 50 * time.Millisecond, AtPos: Pos{1, 4}, Verb: &Ident{Pos{1, 9}, "snapshot"},
			Args: []*Ident{{Pos{1, 18}, "pt"}, {Pos{1, 21}, "cpu1"}}},
		{Pos: Pos{2, 1}, At: 0, AtPos: Pos{2, 4}, Verb: &Ident{Pos{2, 8}, "read"}},
	}
	wantForces := []*Force{
		{Pos: Pos{3, 1}, Kind: ForceNMI, CPU: 0, CPUPos: Pos{3, 5}, Label: &Ident{Pos{3, 14}, "a:b"}, Occurrence: 1},
		{Pos: Pos{4, 1}, Kind: ForcePreempt, CPU: -1, Task: &Ident{Pos{4, 9}, "app"}, Label: &Ident{Pos{4, 16}, "x"}, Occurrence: 3},
		{Pos: Pos{5, 1}, Kind: ForceMigrate, CPU: 2, CPUPos: Pos{5, 16}, Task: &Ident{Pos{5, 9}, "app"}, Label: &Ident{Pos{5, 24}, "t:r"}, Occurrence: 1},
	}
	if diff := cmp.Diff(wantActions, f.Actions); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantForces, f.Forces); diff != "" {
		t.Errorf("forces (-want +got):\n%s", diff)
	}
}

func TestParseWhen(t *testing.T) {
	src := "when a=on\n  always x\n  when b=2\n    never y\n  sometimes z at 1ms\nwhen c=off d=on always w\nnever v\n"
	f := mustParse(t, src)
	var got []string
	for _, o := range f.Outcomes {
		s := ""
		for _, w := range o.When {
			s += w.Name + "=" + w.Value + " "
		}
		s += o.Quant.String() + " " + o.Cond.String() + " @" + o.Pos.String()
		if o.At != nil {
			s += " at " + FormatDuration(*o.At)
		}
		got = append(got, s)
	}
	want := []string{
		"a=on always x @2:3",
		"a=on b=2 never y @4:5",
		"a=on sometimes z @5:3 at 1ms",
		"c=off d=on always w @6:17",
		"never v @7:1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestParseLayout covers line endings, tabs and continuation lines.
func TestParseLayout(t *testing.T) {
	tests := []struct {
		name, src string
		want      string // Dump of the tasks' first op, or of the record's words
	}{
		{"crlf", "task a\r\n  compute 1us\r\n", "compute 1us @2:3"},
		{"tabs", "task a\n\trepeat 2\n\t\tcompute 1us\n", "repeat 2 @2:2"},
		{"no final newline", "task a\n  exit", "exit @2:3"},
	}
	for _, tt := range tests {
		f := mustParse(t, tt.src)
		d := &dumper{}
		d.ops(0, f.Tasks[0].Body[:1])
		got := d.b.String()
		if i := len(tt.want); len(got) > i {
			got = got[:i]
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
