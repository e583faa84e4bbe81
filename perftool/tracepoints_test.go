package perftool

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCatalogueMatchesTracefs re-reads the format files copied from this
// machine's tracefs (testdata/tracefs) and checks ids and field layouts.
func TestCatalogueMatchesTracefs(t *testing.T) {
	fieldRE := regexp.MustCompile(`field:(.*);\toffset:(\d+);\tsize:(\d+);\tsigned:(\d);`)
	for _, tp := range catalogue {
		b, err := os.ReadFile(filepath.Join("testdata/tracefs", tp.System, tp.Name, "format"))
		if err != nil {
			t.Fatal(err)
		}
		want := Tracepoint{System: tp.System, Name: tp.Name, PrintFmt: tp.PrintFmt}
		for _, l := range strings.Split(string(b), "\n") {
			if id, ok := strings.CutPrefix(l, "ID: "); ok {
				want.ID, _ = strconv.ParseUint(id, 10, 64)
			}
			if m := fieldRE.FindStringSubmatch(l); m != nil && !strings.Contains(m[1], "common_") {
				off, _ := strconv.Atoi(m[2])
				size, _ := strconv.Atoi(m[3])
				want.Fields = append(want.Fields, Field{m[1], off, size, m[4] == "1"})
			}
		}
		if diff := cmp.Diff(want, tp); diff != "" {
			t.Errorf("%s (-tracefs +catalogue):\n%s", tp.FullName(), diff)
		}
	}
	// Every copied format file is in the catalogue, and every syscall event
	// of this machine's tracefs was copied (720 events: 360 system calls).
	files, _ := filepath.Glob("testdata/tracefs/*/*/format")
	if len(files) != len(catalogue) {
		t.Errorf("%d format files, %d catalogue entries", len(files), len(catalogue))
	}
	if n := len(GlobTracepoints("syscalls", "*")); n != 720 {
		t.Errorf("%d syscalls:* entries, want the 720 of the source machine's tracefs", n)
	}
}

// TestTracefsCopiesMatchThisMachine compares the committed copies with this
// machine's tracefs when it runs the kernel they were taken from.
func TestTracefsCopiesMatchThisMachine(t *testing.T) {
	live, err := filepath.Glob("/sys/kernel/tracing/events/syscalls/sys_*/format")
	if err != nil || len(live) == 0 {
		t.Skip("no tracefs here")
	}
	rel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	if !strings.HasPrefix(TracepointsKernel, "6.18.44-fc-") || !strings.HasPrefix(string(rel), "6.18.44-fc-") {
		t.Skipf("kernel %s is not the copies' %s", strings.TrimSpace(string(rel)), TracepointsKernel)
	}
	for _, f := range live {
		want, err := os.ReadFile(f)
		if err != nil {
			t.Skip(err)
		}
		name := filepath.Base(filepath.Dir(f))
		got, err := os.ReadFile(filepath.Join("testdata/tracefs/syscalls", name, "format"))
		if err != nil {
			t.Errorf("%s: not copied", name)
			continue
		}
		if string(got) != string(want) {
			t.Errorf("%s: the copy differs from this machine's tracefs", name)
		}
	}
}

// TestParseFormatFileErrors: a format file without its name or ID, or with a
// torn field line, is an error, not a half entry.
func TestParseFormatFileErrors(t *testing.T) {
	for _, text := range []string{"", "name: x\n", "ID: 3\n", "name: x\nID: q\n",
		"name: x\nID: 3\nformat:\n\tfield:int a;\toffset:8;\tsize:4;\n"} {
		if tp, err := ParseFormatFile("s", text); err == nil {
			t.Errorf("%q: parsed as %+v", text, tp)
		}
	}
}

func TestTracepointRawSize(t *testing.T) {
	tests := []struct {
		name      string
		entry     int
		raw       int
		sampleRaw int
	}{
		// struct trace_entry (8) + long id + unsigned long args[6] = 64 -> ALIGN(68, 8) - 4
		{"raw_syscalls:sys_enter", 64, 68, 72},
		{"raw_syscalls:sys_exit", 24, 28, 32},
		// struct syscall_trace_enter (16) + 3 args
		{"syscalls:sys_enter_read", 40, 44, 48},
		{"syscalls:sys_enter_getpid", 16, 20, 24}, // kernel/trace/trace_syscalls.c: perf_syscall_enter()
		{"syscalls:sys_enter_mmap", 64, 68, 72},
		{"syscalls:sys_exit_close", 24, 28, 32},
	}
	for _, tt := range tests {
		sys, name, _ := strings.Cut(tt.name, ":")
		tp, ok := LookupTracepoint(sys, name)
		if !ok {
			t.Fatalf("%s not in catalogue", tt.name)
		}
		got := []int{tp.EntrySize(), tp.RawSize(), tp.RawSampleBytes()}
		if diff := cmp.Diff([]int{tt.entry, tt.raw, tt.sampleRaw}, got); diff != "" {
			t.Errorf("%s [entry raw sample] (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestGlobTracepoints(t *testing.T) {
	var got []string
	for _, tp := range GlobTracepoints("syscalls", "sys_*_read") {
		got = append(got, tp.FullName())
	}
	// readdir order on eventfs: creation order = ascending id
	want := []string{"syscalls:sys_exit_read", "syscalls:sys_enter_read"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestFormatFileMatchesTracefs: each catalogue entry renders its format file
// byte for byte as this machine's tracefs printed it (testdata/tracefs).
func TestFormatFileMatchesTracefs(t *testing.T) {
	n := 0
	for i := range catalogue {
		tp := &catalogue[i]
		want, err := os.ReadFile(filepath.Join("testdata", "tracefs", tp.System, tp.Name, "format"))
		if err != nil {
			continue // not every entry has a copy
		}
		n++
		if d := cmp.Diff(string(want), tp.FormatFile()); d != "" {
			t.Errorf("%s format (-tracefs +model):\n%s", tp.FullName(), d)
		}
	}
	if n == 0 {
		t.Fatal("no format file in testdata/tracefs")
	}
}
