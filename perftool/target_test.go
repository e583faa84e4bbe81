package perftool

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTaskTargetConfig: what -p and -t set, as perf 6.1's -vv showed on
// this machine (testdata/pid.golden, tid.golden, pid-cpu.golden: inherit
// kept for -p and dropped for -t, no enable_on_exec for either, -C dropped
// with a warning) and cmd_record() reads: -i given explicitly keeps its word.
func TestTaskTargetConfig(t *testing.T) {
	type view struct {
		Inherit, EnableOnExec, Disabled bool
		TID                             []string
		CPUs                            []int
		Warnings                        []string
	}
	tests := []struct {
		args string
		want view
	}{
		{"-p server -e cpu-clock", view{Inherit: true, Disabled: true, TID: []string{"server"}, CPUs: []int{0, 1}}},
		{"-t worker -e cpu-clock", view{Disabled: true, TID: []string{"worker"}, CPUs: []int{0, 1}}},
		{"-t a,b -e cpu-clock", view{Disabled: true, TID: []string{"a", "b"}, CPUs: []int{0, 1}}},
		{"-t a,b,a -e cpu-clock", view{Disabled: true, TID: []string{"a", "b"}, CPUs: []int{0, 1}}}, // perf's intlist: a set
		{"-p a,a -e cpu-clock", view{Inherit: true, Disabled: true, TID: []string{"a"}, CPUs: []int{0, 1}}},
		{"--tid=worker -e cpu-clock", view{Disabled: true, TID: []string{"worker"}, CPUs: []int{0, 1}}},
		{"-p server -i -e cpu-clock", view{Disabled: true, TID: []string{"server"}, CPUs: []int{0, 1}}},
		{"-p server -C 0 -e cpu-clock", view{Inherit: true, Disabled: true, TID: []string{"server"}, CPUs: []int{0, 1},
			Warnings: []string{"Warning:\nPID/TID switch overriding CPU"}}},
		{"-p server -a -C 1 -e cpu-clock", view{Inherit: true, Disabled: true, TID: []string{"server"}, CPUs: []int{0, 1},
			Warnings: []string{"Warning:\nPID/TID switch overriding CPU"}}},
		{"-p server -a -e cpu-clock", view{Inherit: true, Disabled: true, TID: []string{"server"}, CPUs: []int{0, 1},
			Warnings: []string{"Warning:\nPID/TID switch overriding SYSTEM"}}},
		{"-p server --per-thread -e cpu-clock", view{Disabled: true, TID: []string{"server"}, CPUs: []int{-1}}},
		{"-e cpu-clock -- true", view{Inherit: true, Disabled: true, EnableOnExec: true, CPUs: []int{0, 1}}},
	}
	for _, tt := range tests {
		o := DefaultOptions()
		o.Tool = ToolPerf61
		r, err := Parse(strings.Fields(tt.args), o)
		if err != nil {
			t.Errorf("%s: %v", tt.args, err)
			continue
		}
		a := r.Evsels[0].Attr
		got := view{Inherit: a.Inherit, EnableOnExec: a.EnableOnExec, Disabled: a.Disabled, TID: r.Target.TID,
			CPUs: r.cpus(o.NrCPUs), Warnings: r.Warnings}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.args, diff)
		}
	}
}

// TestTaskTargetOpens: one open per CPU and thread of the thread map, CPU
// by CPU and thread by thread inside (the order perf 6.1's -vv printed for
// a process of two threads), group members after their leader's open of
// the same CPU and thread; the side-band dummy follows the same map.
func TestTaskTargetOpens(t *testing.T) {
	r, err := Parse(strings.Fields("-p w -e {cpu-clock,task-clock}"), Options{NrCPUs: 2, Tool: ToolPerf61})
	if err != nil {
		t.Fatal(err)
	}
	r.Threads = []int{10640, 10641}
	type open struct{ Evsel, PID, CPU, Group int }
	var got []open
	for _, o := range r.Opens(2) {
		got = append(got, open{o.Evsel, o.PID, o.CPU, o.GroupFD})
	}
	want := []open{
		{0, 10640, 0, -1}, {0, 10641, 0, -1}, {0, 10640, 1, -1}, {0, 10641, 1, -1},
		{1, 10640, 0, 0}, {1, 10641, 0, 1}, {1, 10640, 1, 2}, {1, 10641, 1, 3},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("opens (-want +got):\n%s", diff)
	}
	var sb []open
	for _, o := range r.sideBandOpens(2) {
		sb = append(sb, open{0, o.PID, o.CPU, o.GroupFD})
	}
	wantSB := []open{{0, 10640, 0, -1}, {0, 10641, 0, -1}, {0, 10640, 1, -1}, {0, 10641, 1, -1}}
	if diff := cmp.Diff(wantSB, sb); diff != "" {
		t.Errorf("side-band opens (-want +got):\n%s", diff)
	}
}
