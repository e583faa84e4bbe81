package scenarios

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testRegistry knows the names the example files use.
func testRegistry() *MapRegistry {
	return &MapRegistry{
		KernelKnobs: map[string][]string{
			"aux-pause-guard":         {"on", "off"},
			"coresight-snapshot-sync": {"sched-out", "is-active"},
			"rb-write-direction":      {"forward", "backward"},
			"callchain-defer-user":    {"on", "off"},
			"perf-event-max-stack":    {AnyInt},
		},
		ToolKnobs: map[string][]string{
			"overwrite-read-pause": {"on", "off"},
			"mmap-pages":           {AnySize},
		},
		PMUs: map[string]map[string][]string{
			"intel_pt": {"caps": {"aux-pause", "itrace", "psb"}},
			"cs_etm":   {"sink": {"etr", "etf"}, "size": {AnySize}},
		},
		Actions: map[string]ActionSpec{
			"snapshot":      {Args: []ArgKind{ArgSession}},
			"read":          {Args: []ArgKind{ArgSession}},
			"pause-output":  {Args: []ArgKind{ArgSession}},
			"resume-output": {Args: []ArgKind{ArgSession}},
			"enable":        {Args: []ArgKind{ArgTarget}},
			"disable":       {Args: []ArgKind{ArgTarget}},
			"munmap":        {Args: []ArgKind{ArgSession, ArgCPU}, MinArgs: 1},
			"burst":         {Args: []ArgKind{ArgTask, ArgInt, ArgSize, ArgDuration}, MinArgs: 2},
		},
		Observables: map[string]Type{
			"aux.paused": IntType, "aux.missed": IntType, "aux.overlapping-callbacks": IntType,
			"rb.data_head": IntType, "rb.data_tail": IntType, "rb.lost": IntType,
			"samples.written": IntType, "samples.read": IntType, "reader.torn": IntType,
			"snapshot.cpus": IntType, "snapshot.stale-bytes": IntType,
			"callchain.unstitched": IntType, "callchain.kernel-samples": IntType,
			"callchain.user-deferred": IntType, "cpuN.nmis": IntType, "rb.paused": BoolType,
			"perf.samples": IntType, "perf.samples[EVENT]": IntType,
		},
		Invariants: []string{"no-overlapping-pause-resume", "no-unaccounted-records", "no-torn-read"},
		StepPoints: []string{
			"perf_event_aux_pause:guard-set", "perf_callchain_deferred:queued", "task_work:run",
			"__perf_output_begin:reserved",
		},
		Syscalls: []string{"close", "newuname", "getppid", "read", "write", "getpid"},
		Faults:   []string{"perf_event_alloc", "alloc_perf_context", "rb_alloc", "rb_alloc_aux", "remap_pfn_range", "any"},
	}
}

func TestMapRegistry(t *testing.T) {
	r := testRegistry()
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"observable cpuN", must(r.Observable("cpu3.nmis")), IntType},
		{"observable bool", must(r.Observable("rb.paused")), BoolType},
		{"unknown observable", ok(r.Observable("cpu3.foo")), false},
		{"cpu pattern needs digits", ok(r.Observable("cpuX.nmis")), false},
		{"any event index", must(r.Observable("perf.samples[syscalls:sys_enter_close]")), IntType},
		{"an index with / = and .", must(r.Observable("perf.samples[cpu-clock/period=1000,name=a.b/]")), IntType},
		{"no index on a plain name", ok(r.Observable("rb.lost[cs]")), false},
		{"cpu pattern before the index only", CPUPattern("cpu1.x[cpu2]"), "cpuN.x[cpu2]"},
		{"knob", must(r.Knob(KernelKnobs, "aux-pause-guard")), []string{"on", "off"}},
		{"tool knob is not a kernel knob", ok(r.Knob(KernelKnobs, "mmap-pages")), false},
		{"has step point", r.Has(StepPoints, "task_work:run"), true},
		{"has syscall", r.Has(Syscalls, "nosuch"), false},
		{"names sorted", r.Names(Invariants), []string{"no-overlapping-pause-resume", "no-torn-read", "no-unaccounted-records"}},
		{"names of a map", r.Names(PMUs), []string{"cs_etm", "intel_pt"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.name, diff)
		}
	}
}

func must[T any](v T, _ bool) T  { return v }
func ok[T any](_ T, b bool) bool { return b }
