package perftool

import (
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
)

// TracepointsKernel is the kernel the catalogue's ids and layouts were read
// from (/sys/kernel/tracing/events/*/*/format; copies in testdata/tracefs).
const TracepointsKernel = "6.18.44-fc-v769 (x86_64)"

// Field is one field of a tracepoint's format (after the common_* header).
type Field struct {
	Decl   string // C declaration as the format file prints it, e.g. "unsigned int fd"
	Offset int
	Size   int
	Signed bool
}

// Tracepoint is one catalogue entry: what `perf record -e SYS:NAME` needs
// (attr.config = ID) and what a PERF_SAMPLE_RAW sample of it carries.
type Tracepoint struct {
	System string
	Name   string
	ID     uint64  // attr.config for PERF_TYPE_TRACEPOINT
	Fields []Field // after the 8-byte struct trace_entry (common_type/flags/preempt_count/pid)
	// PrintFmt is the format file's "print fmt:" line (after the prefix),
	// which perf script hands to libtraceevent (script_tpfmt.go).
	PrintFmt string
}

// EntrySize is the size of the trace record (struct trace_entry + fields):
// the end of the last field; for syscalls:* it is at least
// sizeof(struct syscall_trace_enter/exit) (16: the int nr is padded before
// the unsigned long args[]), as perf_syscall_enter() sizes it
// ("sizeof(unsigned long) * sys_data->nb_args + sizeof(*rec)"), so
// sys_enter_getpid is 16 bytes although its last field ends at 12.
func (t *Tracepoint) EntrySize() int {
	end := 8
	if t.System == "syscalls" {
		end = 16
	}
	for _, f := range t.Fields {
		end = max(end, f.Offset+f.Size)
	}
	return end
}

// RawSize is the u32 size word of the PERF_SAMPLE_RAW part: the record is
// allocated so that the u32 size word plus the data keep the sample 8-byte
// aligned, i.e. ALIGN(entry + sizeof(u32), sizeof(u64)) - sizeof(u32).
//
// kernel/trace/trace_event_perf.c: perf_trace_buf_alloc() callers
// (perf_trace_##call, perf_syscall_enter/exit: "size = ALIGN(size + sizeof(u32), sizeof(u64)); size -= sizeof(u32);")
func (t *Tracepoint) RawSize() int {
	return (t.EntrySize()+4+7)&^7 - 4
}

// RawSampleBytes is what PERF_SAMPLE_RAW adds to a sample: the u32 size word
// and RawSize bytes of data (always a multiple of 8).
func (t *Tracepoint) RawSampleBytes() int { return 4 + t.RawSize() }

// FullName is "system:name".
func (t *Tracepoint) FullName() string { return t.System + ":" + t.Name }

// catalogue holds the tracepoints the simulator knows: every format file
// under testdata/tracefs (copied from this machine's tracefs, see
// TracepointsKernel), read when the package loads (tracefs_catalogue.go), in
// system then id order. Another file may append entries in its own init();
// a new format file under testdata/tracefs/SYSTEM/NAME/format is read by
// itself. TestCatalogueMatchesTracefs re-reads the files to keep it honest.
var catalogue = mustReadTracefs(tracefsFS, "testdata/tracefs")

// LookupTracepoint returns the catalogue entry for system:name.
func LookupTracepoint(system, name string) (*Tracepoint, bool) {
	for i := range catalogue {
		if catalogue[i].System == system && catalogue[i].Name == name {
			return &catalogue[i], true
		}
	}
	return nil, false
}

// GlobTracepoints returns the catalogue entries matching a perf tracepoint
// glob (sys and name may use *, ? and [...]), in the order perf adds them:
// perf walks the directories with readdir(), and eventfs lists a system's
// events in creation order, which on the source machine is ascending ID
// (`perf record -e 'raw_syscalls:*'` opens sys_exit (442) before sys_enter
// (443); testdata/tracepoint-glob.golden). Systems are taken alphabetically.
//
// tools/perf/util/parse-events.c: parse_events_add_tracepoint() / add_tracepoint_multi_sys()
func GlobTracepoints(sysGlob, nameGlob string) []*Tracepoint {
	key := globKey{sysGlob, nameGlob}
	globMu.Lock()
	cached, ok := globCache[key]
	globMu.Unlock()
	if ok {
		return slices.Clone(cached) // the caller may append to its slice
	}
	out := globTracepoints(sysGlob, nameGlob)
	globMu.Lock()
	if len(globCache) < globCacheMax {
		globCache[key] = slices.Clone(out)
	}
	globMu.Unlock()
	return out
}

// globCache memoises GlobTracepoints: the catalogue never changes, and every
// schedule of an exploration parses the same record line (path.Match over the
// 720 syscalls tracepoints was a sixth of an exploration's CPU time). It keeps
// at most globCacheMax patterns (a fuzzer parses many).
var (
	globMu    sync.Mutex
	globCache = map[globKey][]*Tracepoint{}
)

const globCacheMax = 256

type globKey struct{ sys, name string }

func globTracepoints(sysGlob, nameGlob string) []*Tracepoint {
	var out []*Tracepoint
	literalSys := !strings.ContainsAny(sysGlob, `*?[\`)
	for i := range catalogue {
		t := &catalogue[i]
		if literalSys && t.System != sysGlob {
			continue // most of the catalogue is syscalls:*: skip the matching
		}
		okS, _ := path.Match(sysGlob, t.System)
		okN, _ := path.Match(nameGlob, t.Name)
		if okS && okN {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].System != out[j].System {
			return out[i].System < out[j].System
		}
		return out[i].ID < out[j].ID
	})
	return out
}
