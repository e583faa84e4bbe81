// The perf tool side of `perf record`: a command line becomes the events perf
// would open (their exact perf_event_attr, group structure and open targets)
// and the ring buffers it would mmap. Default behaviour is today's tool
// (perf-tools-next, Dec 2025); Options.Tool selects the Debian perf 6.1
// behaviour the golden files were captured from.

package perftool

import (
	"fmt"

	"perfsim/pmu"
	"perfsim/sim"
	"perfsim/uapi"
)

// Tool selects which perf tool is modelled.
type Tool int

const (
	// ToolToday is today's perf (tools/perf at perf-tools-next, Dec 2025).
	ToolToday Tool = iota
	// ToolPerf61 is perf 6.1 (Debian's 6.1.x): 128-byte attrs, exclude_guest
	// by default, inherit kept for -a/-C, a plain tracking dummy, inherit
	// dropped for group sample-read, no aux-action terms, no fp,defer.
	ToolPerf61
)

// Options describes the machine and tool the command line is applied to.
type Options struct {
	NrCPUs     int        // online CPUs 0..NrCPUs-1
	Sysctl     pmu.Sysctl // perf_event_max_sample_rate, perf_event_mlock_kb, max_stack
	Privileged bool       // root / CAP_PERFMON+CAP_IPC_LOCK (AUX buffer defaults)
	Tool       Tool
	// PMUs are the machine's AUX PMUs by name (intel_pt, cs_etm: a
	// scenario's pmu lines); nil: every one perftool knows. An event of
	// another is refused as perf refuses it, at parse.
	PMUs map[string]bool
}

// PerfVersionKnob picks the perf tool a scenario's sessions are:
// today's or Debian's 6.1 (whose perf.data the perf on such a machine reads).
var PerfVersionKnob = sim.KnobSpec{
	Name:   "perf-version",
	Values: []string{"today", "6.1"},
	Help: "which perf record the sessions are: today's tools/perf, or perf 6.1 (128-byte attrs, exclude_guest by default, " +
		"inherit kept for -a/-C, a plain tracking dummy...); simrun run --perf-data writes files that perf version reads",
	Source:  "tools/perf at perf-tools-next (Dec 2025); Debian linux-perf 6.1, compared with perf record -vv on this machine",
	Package: "perftool",
}

func init() { RegisterToolKnob(PerfVersionKnob) }

// ToolOf is the Tool a perf-version knob value names.
func ToolOf(version string) Tool {
	if version == "6.1" {
		return ToolPerf61
	}
	return ToolToday
}

// DefaultOptions is a 2-CPU machine with the kernel's default sysctls, root.
func DefaultOptions() Options {
	return Options{NrCPUs: 2, Sysctl: pmu.DefaultSysctl(2), Privileged: true}
}

// Target is what the events are attached to.
type Target struct {
	Workload   []string // command forked by perf (after `--` or the first non-option)
	SystemWide bool     // -a
	CPUList    []int    // -C
	PerThread  bool     // --per-thread
	// PID and TID are -p and -t: perf takes comma-separated pids and
	// tids; a scenario names the tasks instead (a process by its task's
	// name, a thread by its program's name), which the session looks up
	// when perf starts, as thread_map__new_str() reads /proc. After
	// validation TID holds PID's names too (target__validate()).
	PID []string
	TID []string
}

// HasCPU models tools/perf/util/target.h: target__has_cpu().
func (t *Target) HasCPU() bool { return t.SystemWide || t.CPUList != nil }

// HasTask models target__has_task(): a -p or -t target.
func (t *Target) HasTask() bool { return t.PID != nil || t.TID != nil }

// None models target__none(): no pid/tid/cpu/system-wide target (perf forks
// the workload and relies on enable_on_exec).
func (t *Target) None() bool { return !t.HasTask() && !t.HasCPU() }

// Evsel is one event perf opens (struct evsel, the part that matters here).
type Evsel struct {
	Name       string
	Attr       pmu.Attr
	Leader     int  // index in Record.Evsels of the group leader (itself for a leader)
	Tracking   bool // carries mmap/comm/task side-band (evsel->tracking)
	SystemWide bool // opened on every CPU with pid -1 even for a task target (core.system_wide)
	Immediate  bool // enabled at open, not at exec (evsel->immediate)
	PMU        string
	Tracepoint *Tracepoint // catalogue entry for PERF_TYPE_TRACEPOINT events
	Cgroup     string      // -G: the cgroup (its path below the cgroupfs mount) it counts in; "" for none
	// Filter is evsel->filter: --filter's string (an AUX tracer's in the
	// kernel's form), written with PERF_EVENT_IOC_SET_FILTER after open.
	Filter string

	sampleRead bool
	precMax    bool
	terms      []term
	auxAction  string
	auxSample  uint32
	isDummy    bool
	toolDummy  bool // a dummy perf adds itself, not one -e names
	// enableOnExec: the -D tracking dummy of a forked workload, enabled at
	// its exec though the other events wait for perf (attr.enable_on_exec)
	enableOnExec bool
	// nameSet: Name is final before the modifiers: a tracepoint's
	// sys:name (evsel__newtp_idx()), or an event's text as typed
	// (parse_events__set_default_name()); a modifier does not rename it
	nameSet    bool
	addrFilter bool // Filter is an address filter (filter.go)
}

// IsLeader reports whether the evsel leads its group (or is alone).
func (e *Evsel) IsLeader(i int) bool { return e.Leader == i }

// Snapshot is -S/--snapshot: AUX area snapshot mode.
type Snapshot struct {
	Size uint64 // bytes per snapshot (0: the whole AUX buffer)
	// OnExit: -Se, one more snapshot as perf record ends
	// (opts->auxtrace_snapshot_on_exit).
	OnExit bool
}

// Record is what `perf record ARGS` opens and maps.
type Record struct {
	// Output is -o FILE ("" for perf.data); "/dev/null" discards what perf
	// writes (PerfData.Discard).
	Output    string
	Evsels    []Evsel
	SideBand  []Evsel // the BPF side-band evlist (record__setup_sb_evlist), pid -1 per CPU
	Target    Target
	MmapPages int  // data pages per ring buffer (power of 2)
	AuxPages  int  // AUX pages per ring buffer (0: no AUX area)
	Overwrite bool // --overwrite: backward, read-only (overwritable) data mmaps
	Snapshot  *Snapshot
	// BuildIDTable is !rec->no_buildid (see PerfData.BuildIDTable);
	// BuildIDAll is --buildid-all.
	BuildIDTable, BuildIDAll bool
	// NoBuildIDCache is -N/--no-buildid-cache (see PerfData.BuildIDCache).
	NoBuildIDCache bool
	// AllCgroups is --all-cgroups (opts.record_cgroup): the samples carry
	// PERF_SAMPLE_CGROUP, the tracking event attr.cgroup, and perf
	// synthesizes a PERF_RECORD_CGROUP for every cgroup at its start.
	AllCgroups bool
	Argv       []string // the command line after `perf record` (HEADER_CMDLINE)
	Tool       Tool     // the perf version that parsed it
	NrCPUs     int      // the machine's online CPUs
	// Exit, when set, is perf giving up on the command line (an option
	// this perf version lacks): the session prints it and fails at once.
	Exit     *ExitError
	Warnings []string // what perf would warn about and carry on
	// Messages are what perf printed while it parsed the command line and
	// carried on (Warnings and its info lines, in its words, each with the
	// option it is about), and the simulator's notes where perf says nothing.
	Messages []Message

	sideBandPages int // the side-band evlist's own mmap (default size)

	// Threads is a -p/-t target's thread map (tids, in the order
	// thread_map__new_str() reads them), set by the session when perf
	// starts; nil before.
	Threads []int

	// Verbosity is the count of -v (perf's verbose), -1 with -q: what perf
	// prints only when it is above 0 (evsel__fallback()'s warning) is
	// printed only then, its pr_info() lines unless it is -1.
	Verbosity int
	// Affinity is --affinity: "cpu" moves perf onto each ring's CPU before
	// it reads it; "node" onto the ring's NUMA node's CPUs, which on the
	// simulated machine (one node) does nothing; "" is perf's default, sys.
	Affinity string
	// InitialDelay is -D (opts->initial_delay, msecs): the events start
	// disabled, a tracking dummy records the side band meanwhile, and perf
	// enables them that long after it starts the workload; below 0, never.
	InitialDelay int

	// MmapData is -d (opts->sample_address): the MMAP2s perf synthesizes
	// from /proc include the readable data mappings (session_target.go).
	MmapData bool
}

// Message is a line (or lines) perf record prints and carries on after.
type Message struct {
	Option string // the option it is about ("-m", "-F"); "" for none
	Text   string // perf's text, without the final newline
	// Note marks the simulator's own note, where perf prints nothing (-c 0).
	Note bool
}

// warn records a warning of perf's about option.
func (r *Record) warn(option, text string) {
	r.Warnings = append(r.Warnings, text)
	r.Messages = append(r.Messages, Message{Option: option, Text: text})
}

// MmapBytes is the size of each data mmap: the user page plus the data pages,
// as perf -vv prints it ("mmap size 528384B").
//
// tools/perf/util/evlist.c: evlist__mmap_size()
func (r *Record) MmapBytes() int { return (r.MmapPages + 1) * pmu.PageSize }

// Error is a command line perf refuses.
type Error struct {
	Option string // the option or event string at fault
	Reason string
	Errno  uapi.Errno // set when perf would report a syscall errno
}

func (e *Error) Error() string {
	if e.Errno != 0 {
		return fmt.Sprintf("perf record: %s: %s (%s)", e.Option, e.Reason, e.Errno.Error())
	}
	return fmt.Sprintf("perf record: %s: %s", e.Option, e.Reason)
}

func errf(option, format string, a ...any) *Error {
	return &Error{Option: option, Reason: fmt.Sprintf(format, a...)}
}
