package perftool

import (
	"fmt"
	"strings"
)

// The sched:* tracepoints of this machine (testdata/tracefs/sched/*/format,
// read from /sys/kernel/tracing/events/sched on the kernel TracepointsKernel
// names): the ones the scheduler model fires (pmu/tp_sched.go). They join
// the catalogue from here so that tracepoints.go stays the syscalls' file.

// TracepointFieldsLine is one line describing a catalogue tracepoint: its id
// and fields, as simrun names tracepoints prints it.
func TracepointFieldsLine(system, name string) string {
	tp, ok := LookupTracepoint(system, name)
	if !ok {
		return ""
	}
	var fs []string
	for _, f := range tp.Fields {
		fs = append(fs, f.Decl)
	}
	return fmt.Sprintf("id %d: %s", tp.ID, strings.Join(fs, "; "))
}

func init() {
	catalogue = append(catalogue, schedTracepoints...)
	for name, pf := range schedPrintFmts {
		tpPrintFmts[name] = pf
	}
}

// schedTracepoints are the catalogue entries (checked by TestCatalogueMatchesTracefs).
var schedTracepoints = []Tracepoint{
	{"sched", "sched_switch", 372, []Field{{"char prev_comm[16]", 8, 16, false}, {"pid_t prev_pid", 24, 4, true}, {"int prev_prio", 28, 4, true}, {"long prev_state", 32, 8, true}, {"char next_comm[16]", 40, 16, false}, {"pid_t next_pid", 56, 4, true}, {"int next_prio", 60, 4, true}}},
	{"sched", "sched_wakeup", 374, []Field{{"char comm[16]", 8, 16, false}, {"pid_t pid", 24, 4, true}, {"int prio", 28, 4, true}, {"int target_cpu", 32, 4, true}}},
	{"sched", "sched_wakeup_new", 373, []Field{{"char comm[16]", 8, 16, false}, {"pid_t pid", 24, 4, true}, {"int prio", 28, 4, true}, {"int target_cpu", 32, 4, true}}},
	{"sched", "sched_migrate_task", 371, []Field{{"__data_loc char[] comm", 8, 4, false}, {"pid_t pid", 12, 4, true}, {"int prio", 16, 4, true}, {"int orig_cpu", 20, 4, true}, {"int dest_cpu", 24, 4, true}}},
	{"sched", "sched_process_fork", 366, []Field{{"__data_loc char[] parent_comm", 8, 4, false}, {"pid_t parent_pid", 12, 4, true}, {"__data_loc char[] child_comm", 16, 4, false}, {"pid_t child_pid", 20, 4, true}}},
	{"sched", "sched_process_exec", 365, []Field{{"__data_loc char[] filename", 8, 4, false}, {"pid_t pid", 12, 4, true}, {"pid_t old_pid", 16, 4, true}}},
	{"sched", "sched_process_exit", 369, []Field{{"char comm[16]", 8, 16, false}, {"pid_t pid", 24, 4, true}, {"int prio", 28, 4, true}, {"bool group_dead", 32, 1, false}}},
	{"sched", "sched_stat_runtime", 363, []Field{{"__data_loc char[] comm", 8, 4, false}, {"pid_t pid", 12, 4, true}, {"u64 runtime", 16, 8, false}}},
}

// schedPrintFmts are their "print fmt:" lines, byte for byte.
var schedPrintFmts = map[string]string{
	"sched:sched_switch":       `"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), "|", { 0x00000001, "S" }, { 0x00000002, "D" }, { 0x00000004, "T" }, { 0x00000008, "t" }, { 0x00000010, "X" }, { 0x00000020, "Z" }, { 0x00000040, "P" }, { 0x00000080, "I" }) : "R", REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? "+" : "", REC->next_comm, REC->next_pid, REC->next_prio`,
	"sched:sched_wakeup":       `"comm=%s pid=%d prio=%d target_cpu=%03d", REC->comm, REC->pid, REC->prio, REC->target_cpu`,
	"sched:sched_wakeup_new":   `"comm=%s pid=%d prio=%d target_cpu=%03d", REC->comm, REC->pid, REC->prio, REC->target_cpu`,
	"sched:sched_migrate_task": `"comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d", __get_str(comm), REC->pid, REC->prio, REC->orig_cpu, REC->dest_cpu`,
	"sched:sched_process_fork": `"comm=%s pid=%d child_comm=%s child_pid=%d", __get_str(parent_comm), REC->parent_pid, __get_str(child_comm), REC->child_pid`,
	"sched:sched_process_exec": `"filename=%s pid=%d old_pid=%d", __get_str(filename), REC->pid, REC->old_pid`,
	"sched:sched_process_exit": `"comm=%s pid=%d prio=%d group_dead=%s", REC->comm, REC->pid, REC->prio, REC->group_dead ? "true" : "false"`,
	"sched:sched_stat_runtime": `"comm=%s pid=%d runtime=%Lu [ns]", __get_str(comm), REC->pid, (unsigned long long)REC->runtime`,
}
