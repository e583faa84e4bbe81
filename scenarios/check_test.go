package scenarios

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func checkMessages(t *testing.T, src string, reg Registry) []string {
	t.Helper()
	f, err := Parse("c.sim", []byte(src))
	if err != nil {
		t.Fatalf("Parse:\n%v", err)
	}
	var out []string
	for _, e := range Check(f, reg) {
		out = append(out, e.Error())
	}
	return out
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"clean", "cpus 2\ntask a cpu1\n  syscall close\nrecord r: -e cycles -- a\nat 1ms munmap r cpu1\nalways rb.lost == 0 && no-torn-read\n", nil},
		{"implicit single cpu", "task a cpu1\n", []string{
			"c.sim:1:8: cpu1 does not exist: the machine has 1 CPU, cpu0 (set it with cpus N)"}},
		{"workload not a task", "record -e cycles -- ls\n", []string{
			`c.sim:1:21: the workload after -- must be a task of this file; there is no task "ls" (declare it with task ls)`}},
		{"session needed", "at 1ms read x\n", []string{
			`c.sim:1:13: read: unknown session "x" (name a session with record NAME: ...)`}},
		{"too few args", "at 1ms burst\n", []string{
			"c.sim:1:8: burst needs 2 argument(s): a task name, a number"}},
		{"too many args", "record r: -e x\nat 1ms read r r\n", []string{
			`c.sim:2:15: unexpected argument "r": read takes at most 1`}},
		{"arg kinds", "task t\nat 1ms burst t 3 4K 5us\nat 1ms burst t 3 5us 4K\n", []string{
			`c.sim:3:18: burst: expected a size like 4K, found "5us"`,
			`c.sim:3:22: burst: expected a duration like 5us, found "4K"`}},
		{"target", "task t\nrecord r: -e x\nat 1ms enable t\nat 1ms enable r\nat 1ms enable cpu0\nat 1ms enable q\n", []string{
			`c.sim:6:15: enable: expected a session, a task or a CPU, found "q"`}},
		{"bool observable", "always rb.paused\nnever !rb.paused\nalways -rb.paused < 0\n", []string{
			"c.sim:3:8: - needs an integer operand, but rb.paused is a boolean"}},
		{"negation of a number", "always !rb.lost\n", []string{
			"c.sim:1:8: ! needs a boolean operand, but rb.lost is an integer"}},
		{"and of numbers", "always rb.lost && 1\n", []string{
			"c.sim:1:8: && needs boolean operands, but rb.lost is an integer"}},
		{"when tool knob", "when overwrite-read-pause=off sometimes reader.torn > 0\n", nil},
		{"fail", "task t\nrecord r: -e x\nfail rb_alloc in t\nfail remap_pfn_range in r occurrence 2\n", nil},
		{"fail unknown site", "task t\nfail rb_aloc in t\n", []string{
			`c.sim:2:6: unknown allocation site "rb_aloc"; did you mean "rb_alloc"? (the sites: alloc_perf_context, any, perf_event_alloc, rb_alloc, rb_alloc_aux, remap_pfn_range; simrun names faults)`}},
		{"fail unknown task", "task t\nrecord r: -e x\nfail rb_alloc in q\n", []string{
			`c.sim:3:18: fail rb_alloc in q: no task or session "q"; task t, session r`}},
		{"fail no tasks", "fail rb_alloc in q\n", []string{
			`c.sim:1:18: fail rb_alloc in q: no task or session "q"; the scenario has none`}},
		{"pmu bare attr", "pmu cs_etm sink\n", []string{
			"c.sim:1:12: pmu cs_etm: sink needs a value: sink=VALUE, with VALUE one of: etr, etf"}},
		{"knob int value", "kernel perf-event-max-stack=127\nkernel rb-write-direction=up\n", []string{
			`c.sim:2:27: kernel knob rb-write-direction cannot be "up"; allowed: forward, backward`}},
		{"did you mean", "kernel perf-event-max-stak=1\n", []string{
			`c.sim:1:8: unknown kernel knob "perf-event-max-stak"; known kernel knobs: aux-pause-guard, callchain-defer-user, coresight-snapshot-sync, perf-event-max-stack, rb-write-direction`}},
	}
	for _, tt := range tests {
		got := checkMessages(t, tt.src, testRegistry())
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestCheckLongListsSuggest: with many known names an error suggests the nearest.
func TestCheckLongListsSuggest(t *testing.T) {
	reg := testRegistry()
	reg.Syscalls = append(reg.Syscalls, "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "b1", "b2", "b3")
	got := checkMessages(t, "task t\n  syscall clsoe\n  syscall zzzzzzzzz\n", reg)
	want := []string{
		`c.sim:2:3: unknown system call "clsoe"; did you mean "close"?`,
		`c.sim:3:3: unknown system call "zzzzzzzzz" (18 system calls are known; simrun names syscalls lists them)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestCheckWithoutRegistry does the structural checks only.
func TestCheckWithoutRegistry(t *testing.T) {
	got := checkMessages(t, "kernel x=1 x=2\ntask a\ntask a\nnmi cpu3 at nowhere\nalways whatever > 0\nat 1ms frobnicate\n", nil)
	want := []string{
		"c.sim:1:12: kernel knob x is set twice (first on line 1)",
		"c.sim:3:1: duplicate task a (the first is on line 2)",
		"c.sim:4:5: cpu3 does not exist: the machine has 1 CPU, cpu0 (set it with cpus N)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestCheckAmbiguousSessionName: with a session called rb, rb.lost could be
// the kernel's rb.lost or session rb's lost; the checker refuses the name
// rather than pick one.
func TestCheckAmbiguousSessionName(t *testing.T) {
	reg := testRegistry()
	reg.Observables["SESSION.lost"] = IntType
	src := "task t\n  syscall getpid\nrecord rb: -e cycles -- t\nalways rb.lost == 0\nalways rb.data_head >= 0\n"
	got := checkMessages(t, src, reg)
	want := []string{"c.sim:4:8: rb.lost is both the observable rb.lost and session rb's lost; give the session another name"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}
