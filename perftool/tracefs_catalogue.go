package perftool

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// tracefsFS holds the format files copied from this machine's tracefs
// (/sys/kernel/tracing/events/SYSTEM/NAME/format): every syscalls:* and
// raw_syscalls:* event, and what other systems the catalogue has.
//
//go:embed testdata/tracefs
var tracefsFS embed.FS

// mustReadTracefs reads every SYSTEM/NAME/format under root of fsys into
// catalogue entries, sorted by system then id. A format file it cannot parse
// is a build mistake (the files are committed), so it panics at load.
func mustReadTracefs(fsys fs.FS, root string) []Tracepoint {
	var files []string
	systems, err := fs.ReadDir(fsys, root)
	if err != nil {
		panic(err)
	}
	for _, sys := range systems {
		if !sys.IsDir() {
			continue
		}
		events, err := fs.ReadDir(fsys, root+"/"+sys.Name())
		if err != nil {
			panic(err)
		}
		for _, ev := range events {
			if ev.IsDir() {
				files = append(files, root+"/"+sys.Name()+"/"+ev.Name()+"/format")
			}
		}
	}
	out := make([]Tracepoint, 0, len(files))
	for _, f := range files {
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			panic(err)
		}
		dir := path.Dir(f)
		tp, err := ParseFormatFile(path.Base(path.Dir(dir)), string(b))
		if err != nil {
			panic(fmt.Sprintf("%s: %v", f, err))
		}
		if tp.Name != path.Base(dir) {
			panic(fmt.Sprintf("%s: names %s", f, tp.Name))
		}
		out = append(out, *tp)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].System != out[j].System {
			return out[i].System < out[j].System
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// ParseFormatFile reads a tracefs format file of a tracepoint of system sys:
// its name, ID, the fields after the common_* header and the print fmt.
// kernel/trace/trace_events.c: f_show() prints what this reads.
func ParseFormatFile(sys, text string) (*Tracepoint, error) {
	tp := &Tracepoint{System: sys}
	haveID := false
	for rest := text; rest != ""; {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		switch {
		case strings.HasPrefix(l, "name: "):
			tp.Name = strings.TrimPrefix(l, "name: ")
		case strings.HasPrefix(l, "ID: "):
			id, err := strconv.ParseUint(strings.TrimPrefix(l, "ID: "), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("bad ID line %q", l)
			}
			tp.ID, haveID = id, true
		case strings.HasPrefix(l, "print fmt: "):
			tp.PrintFmt = strings.TrimPrefix(l, "print fmt: ")
		case strings.HasPrefix(l, "\tfield:"):
			if strings.Contains(l, " common_") {
				continue // struct trace_entry's
			}
			f, err := parseFieldLine(l)
			if err != nil {
				return nil, err
			}
			tp.Fields = append(tp.Fields, f)
		}
	}
	if tp.Name == "" || !haveID {
		return nil, fmt.Errorf("no name or ID line")
	}
	return tp, nil
}

// parseFieldLine reads "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:N;".
func parseFieldLine(l string) (Field, error) {
	rest := strings.TrimPrefix(l, "\tfield:")
	var f Field
	var ok bool
	if f.Decl, rest, ok = strings.Cut(rest, ";"); !ok {
		return Field{}, fmt.Errorf("bad field line %q", l)
	}
	vals := [3]int{}
	for i, key := range [...]string{"offset:", "size:", "signed:"} {
		var part string
		part, rest, ok = strings.Cut(rest, ";")
		v, okKey := strings.CutPrefix(strings.TrimSpace(part), key)
		n, err := strconv.Atoi(v)
		if !ok || !okKey || err != nil {
			return Field{}, fmt.Errorf("bad field line %q", l)
		}
		vals[i] = n
	}
	f.Offset, f.Size, f.Signed = vals[0], vals[1], vals[2] == 1
	return f, nil
}
