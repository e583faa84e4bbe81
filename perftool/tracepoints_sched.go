package perftool

import (
	"fmt"
	"strings"
)

// The sched:* tracepoints the scheduler model fires (pmu/tp_sched.go) are
// in the catalogue like every other: their format files, copied from this
// machine's /sys/kernel/tracing/events/sched, are read with the rest of
// testdata/tracefs (tracefs_catalogue.go).

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
