package perftool

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/rb"
)

// realCapture is one testdata/script-real/NAME.txt: the command and what the
// real perf script printed (testdata/script-real/capture.sh).
type realCapture struct {
	cmd   string
	args  []string // perf record arguments
	lines []string
}

func readCapture(t *testing.T, name string) realCapture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "script-real", name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	head := strings.TrimPrefix(lines[0], "# ")
	_, rec, ok := strings.Cut(head, ": perf record ")
	if !ok {
		t.Fatalf("%s: first line %q is not the command", name, lines[0])
	}
	rec, _, _ = strings.Cut(rec, " ; perf script")
	return realCapture{cmd: head, args: strings.Fields(rec), lines: lines[1:]}
}

// scriptLine is what a perf script line says about its sample.
var scriptLine = regexp.MustCompile(`^ *(\S+) +(\d+) (?:\[(\d+)\] )? *(\d+)\.(\d{6}): +(?:(\d+) +)?(\S+): (.*)$`)

// tpRaw builds the raw data of a tracepoint record: struct trace_entry
// (common_type, flags, preempt_count, pid) and the fields.
func tpRaw(tp *Tracepoint, pid int, vals map[string]uint64) []byte {
	b := make([]byte, tp.RawSize())
	binary.LittleEndian.PutUint16(b, uint16(tp.ID))
	binary.LittleEndian.PutUint32(b[4:], uint32(pid))
	for _, f := range tp.Fields {
		name, n := fieldName(f.Decl)
		size := f.Size
		if n > 0 {
			size /= n
		}
		for i := 0; i < max(n, 1); i++ {
			key := name
			if n > 0 {
				key = fmt.Sprintf("%s[%d]", name, i)
			}
			v := vals[key]
			switch size {
			case 4:
				binary.LittleEndian.PutUint32(b[f.Offset+i*size:], uint32(v))
			case 8:
				binary.LittleEndian.PutUint64(b[f.Offset+i*size:], v)
			}
		}
	}
	return b
}

// tpValues reads the field values back out of a line printed with the
// catalogue's print fmts (the inverse of tpPrint for the events captured).
func tpValues(t *testing.T, event, text string) map[string]uint64 {
	t.Helper()
	v := map[string]uint64{}
	var nr, ret int64
	var a [6]uint64
	var fd uint64
	switch event {
	case "raw_syscalls:sys_enter":
		if _, err := fmt.Sscanf(text, "NR %d (%x, %x, %x, %x, %x, %x)", &nr, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		v["id"] = uint64(nr)
		for i, x := range a {
			v[fmt.Sprintf("args[%d]", i)] = x
		}
	case "raw_syscalls:sys_exit":
		if _, err := fmt.Sscanf(text, "NR %d = %d", &nr, &ret); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		v["id"], v["ret"] = uint64(nr), uint64(ret)
	case "syscalls:sys_enter_close":
		if _, err := fmt.Sscanf(text, "fd: 0x%x", &fd); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		v["fd"] = fd
	case "syscalls:sys_exit_close":
		if _, err := fmt.Sscanf(text, "0x%x", &fd); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		v["ret"] = fd
	default:
		t.Fatalf("no inverse for %s", event)
	}
	return v
}

// symLine is the ip part of a hw/sw line: ip, sym+off and dso.
var symLine = regexp.MustCompile(`^ +([0-9a-f]+) (\S+)\+0x([0-9a-f]+) \((.*)\)$`)

// TestScriptMatchesRealPerf rebuilds, for every captured `perf script` line
// of the real perf 6.1, the sample it describes (same comm, tid, cpu, time,
// period, raw fields, ip), runs the model's Script over it and wants the
// capture back byte for byte: the format matches column for column.
func TestScriptMatchesRealPerf(t *testing.T) {
	for _, name := range []string{"raw-syscalls-true", "raw-syscalls-closes", "syscalls-close", "cpu-clock",
		"task-clock-page-faults", "cpu-clock-and-tracepoint", "system-wide-close"} {
		t.Run(name, func(t *testing.T) {
			c := readCapture(t, name)
			opts := DefaultOptions()
			opts.Tool = ToolPerf61
			r, err := Parse(c.args, opts)
			if err != nil {
				t.Fatal(err)
			}
			d := newPerfData(r)
			for i := range d.Attrs {
				d.Attrs[i].IDs = []uint64{uint64(100 + i)}
			}
			syms := map[uint64][3]string{}
			seen := map[string]bool{}
			for _, l := range c.lines {
				m := scriptLine.FindStringSubmatch(l)
				if m == nil {
					t.Fatalf("cannot read line %q", l)
				}
				comm, evname, rest := m[1], m[7], m[8]
				tid, _ := strconv.Atoi(m[2])
				ev := -1
				for i := range d.Attrs {
					if d.Attrs[i].Name == evname {
						ev = i
					}
				}
				if ev < 0 {
					t.Fatalf("event %q not in the evlist", evname)
				}
				fa := &d.Attrs[ev]
				if !seen[comm+m[2]] {
					seen[comm+m[2]] = true
					d.write(synthComm(&fa.Attr, tid, tid, comm), -1, -1, 0, false)
				}
				sec, _ := strconv.ParseUint(m[4], 10, 64)
				usec, _ := strconv.ParseUint(m[5], 10, 64)
				s := &rb.Sample{Type: fa.Attr.SampleType, ID: fa.IDs[0], Pid: uint32(tid), Tid: uint32(tid),
					Time: sec*1e9 + usec*1e3, Period: 1}
				if m[3] != "" {
					cpu, _ := strconv.Atoi(m[3])
					s.CPU = uint32(cpu)
				}
				if m[6] != "" {
					s.Period, _ = strconv.ParseUint(m[6], 10, 64)
				}
				if fa.Tracepoint != nil {
					s.Raw = tpRaw(fa.Tracepoint, tid, tpValues(t, evname, rest))
				} else {
					sm := symLine.FindStringSubmatch(rest)
					if sm == nil {
						t.Fatalf("cannot read the ip part of %q", l)
					}
					s.IP, _ = strconv.ParseUint(sm[1], 16, 64)
					syms[s.IP] = [3]string{sm[2], sm[3], sm[4]}
				}
				rec, err := rb.AppendSample(nil, s)
				if err != nil {
					t.Fatal(err)
				}
				d.write(rec, 0, int(s.CPU), 0, false)
			}
			d.Process()
			if d.ProcessErr != nil {
				t.Fatal(d.ProcessErr)
			}
			got := d.ScriptString(ScriptOptions{Symbolize: func(pid, tid int, ip uint64, kernel bool) (string, uint64, string, bool) {
				s, ok := syms[ip]
				off, _ := strconv.ParseUint(s[1], 16, 64)
				return s[0], off, s[2], ok
			}})
			want := strings.Join(c.lines, "\n") + "\n"
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s\n(-real perf +model):\n%s", c.cmd, diff)
			}
		})
	}
}

// TestPrintFmtsMatchTracefs keeps the catalogue's print fmts equal to the
// print fmt lines of the format files it was read from.
func TestPrintFmtsMatchTracefs(t *testing.T) {
	files, err := filepath.Glob("testdata/tracefs/*/*/format")
	if err != nil || len(files) == 0 {
		t.Fatalf("no format files: %v", err)
	}
	got := map[string]string{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			if pf, ok := strings.CutPrefix(sc.Text(), "print fmt: "); ok {
				rel, _ := filepath.Rel("testdata/tracefs", filepath.Dir(f))
				got[strings.Replace(filepath.ToSlash(rel), "/", ":", 1)] = pf
			}
		}
		fh.Close()
	}
	model := map[string]string{}
	for i := range catalogue {
		model[catalogue[i].FullName()] = catalogue[i].PrintFmt
	}
	if diff := cmp.Diff(got, model); diff != "" {
		t.Errorf("print fmts (-tracefs +model):\n%s", diff)
	}
}

// TestTpPrint checks the print fmt evaluator on the C semantics it needs.
func TestTpPrint(t *testing.T) {
	enter, _ := LookupTracepoint("raw_syscalls", "sys_enter")
	exit, _ := LookupTracepoint("raw_syscalls", "sys_exit")
	closeEnter, _ := LookupTracepoint("syscalls", "sys_enter_close")
	closeExit, _ := LookupTracepoint("syscalls", "sys_exit_close")
	getpid, _ := LookupTracepoint("syscalls", "sys_enter_getpid")
	tests := []struct {
		name string
		tp   *Tracepoint
		vals map[string]uint64
		want string
	}{
		{"enter args in hex", enter, map[string]uint64{"id": 3, "args[0]": 0x3e8, "args[5]": 1 << 63}, "NR 3 (3e8, 0, 0, 0, 0, 8000000000000000)"},
		{"exit ret signed", exit, map[string]uint64{"id": 3, "ret": uint64(1<<64 - 9)}, "NR 3 = -9"},
		{"unsigned int fd cast to unsigned long", closeEnter, map[string]uint64{"fd": 0xffffffff}, "fd: 0xffffffff"},
		{"fd zero padded", closeEnter, map[string]uint64{"fd": 3}, "fd: 0x00000003"},
		{"long ret as %lx", closeExit, map[string]uint64{"ret": uint64(1<<64 - 9)}, "0xfffffffffffffff7"},
		{"empty print fmt", getpid, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tpPrint(tc.tp, tpRaw(tc.tp, 1, tc.vals)); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
