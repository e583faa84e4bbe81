package perftool

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
)

// headerFeatTracingData is HEADER_TRACING_DATA, bit 1 of adds_features.
const headerFeatTracingData = 1

// tracingDataVersion is the version string perf writes (trace-event-info.c).
const tracingDataVersion = "0.6"

// The ring buffer headers of this machine's tracefs
// (/sys/kernel/tracing/events/header_page and header_event, 6.18).
const (
	tracefsHeaderPage = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n" +
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n" +
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n" +
		"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n"
	tracefsHeaderEvent = "# compressed entry header\n" +
		"\ttype_len    :    5 bits\n" +
		"\ttime_delta  :   27 bits\n" +
		"\tarray       :   32 bits\n" +
		"\n" +
		"\tpadding     : type == 29\n" +
		"\ttime_extend : type == 30\n" +
		"\ttime_stamp : type == 31\n" +
		"\tdata max type_len  == 28\n"
)

// FormatFile is the tracepoint's events/SYSTEM/NAME/format as tracefs prints
// it: the common fields, its own, and the print fmt.
func (t *Tracepoint) FormatFile() string {
	var b strings.Builder
	fmt.Fprintf(&b, "name: %s\nID: %d\nformat:\n", t.Name, t.ID)
	field := func(decl string, off, size int, signed bool) {
		s := 0
		if signed {
			s = 1
		}
		fmt.Fprintf(&b, "\tfield:%s;\toffset:%d;\tsize:%d;\tsigned:%d;\n", decl, off, size, s)
	}
	field("unsigned short common_type", 0, 2, false)
	field("unsigned char common_flags", 2, 1, false)
	field("unsigned char common_preempt_count", 3, 1, false)
	field("int common_pid", 4, 4, true)
	b.WriteString("\n")
	for _, f := range t.Fields {
		field(f.Decl, f.Offset, f.Size, f.Signed)
	}
	fmt.Fprintf(&b, "\nprint fmt: %s\n", t.PrintFmt)
	return b.String()
}

// tracingData is the HEADER_TRACING_DATA feature perf record writes when it
// records tracepoints: what libtraceevent needs to parse their raw data (the
// ring buffer headers and the format of each event, by system); no ftrace
// formats, kallsyms, printk formats or saved cmdlines.
// tools/perf/util/trace-event-info.c: tracing_data_get() -> tracing_data_header(),
// record_header_files(), record_ftrace_files(), record_event_files(),
// record_proc_kallsyms(), record_ftrace_printk(), record_saved_cmdline()
func tracingData(tps []*Tracepoint) []byte {
	le := binary.LittleEndian
	b := []byte{23, 8, 68}
	b = append(b, "tracing"...)
	b = append(b, tracingDataVersion+"\x00"...)
	b = append(b, 0, 8)          // little endian, sizeof(long)
	b = le.AppendUint32(b, 4096) // page_size
	for _, h := range [][2]string{{"header_page", tracefsHeaderPage}, {"header_event", tracefsHeaderEvent}} {
		b = append(b, h[0]+"\x00"...)
		b = le.AppendUint64(b, uint64(len(h[1])))
		b = append(b, h[1]...)
	}
	b = le.AppendUint32(b, 0) // ftrace events
	bySys := map[string][]*Tracepoint{}
	var systems []string
	for _, tp := range tps {
		if _, ok := bySys[tp.System]; !ok {
			systems = append(systems, tp.System)
		}
		bySys[tp.System] = append(bySys[tp.System], tp)
	}
	sort.Strings(systems)
	b = le.AppendUint32(b, uint32(len(systems)))
	for _, sys := range systems {
		b = append(b, sys+"\x00"...)
		b = le.AppendUint32(b, uint32(len(bySys[sys])))
		for _, tp := range bySys[sys] {
			f := tp.FormatFile()
			b = le.AppendUint64(b, uint64(len(f)))
			b = append(b, f...)
		}
	}
	b = le.AppendUint32(b, 0) // kallsyms
	b = le.AppendUint32(b, 0) // ftrace_printk
	b = le.AppendUint64(b, 0) // saved_cmdline (0.6)
	return b
}

// sessionTracepoints are the distinct tracepoints of d's attrs, in attr order.
func (d *PerfData) sessionTracepoints() []*Tracepoint {
	var out []*Tracepoint
	seen := map[*Tracepoint]bool{}
	for i := range d.Attrs {
		if tp := d.Attrs[i].Tracepoint; tp != nil && !seen[tp] {
			seen[tp] = true
			out = append(out, tp)
		}
	}
	return out
}
