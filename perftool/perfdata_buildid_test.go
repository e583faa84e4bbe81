package perftool

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// buildIDList prints entries as perf buildid-list does: "BUILDID NAME".
// tools/perf/builtin-buildid-list.c: perf_session__list_build_ids()
func buildIDList(es []BuildIDEntry) string {
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "%x %s\n", e.BuildID, e.Name)
	}
	return b.String()
}

// TestBuildIDTableBytesMatchRealPerf: the HEADER_BUILD_ID section the real
// perf 6.1 wrote on this machine (Linux 6.18.44, perf 6.1.187: `perf record
// -e cpu-clock -c 100000 -- sh -c LOOP`, then the section cut out of the
// file; testdata/real-buildid-list.txt is `perf buildid-list` of it) decodes
// to the entries buildid-list printed, and encodeBuildIDTable lays those
// entries out byte for byte as perf did.
func TestBuildIDTableBytesMatchRealPerf(t *testing.T) {
	real, err := os.ReadFile("testdata/real-buildid-feature.bin")
	if err != nil {
		t.Fatal(err)
	}
	list, err := os.ReadFile("testdata/real-buildid-list.txt")
	if err != nil {
		t.Fatal(err)
	}
	es := decodeBuildIDTable(real)
	if d := cmp.Diff(string(list), buildIDList(es)); d != "" {
		t.Errorf("decoded entries vs perf buildid-list (-real +decoded):\n%s", d)
	}
	if got := encodeBuildIDTable(es); !bytes.Equal(got, real) {
		t.Errorf("encoded table differs from perf's:\n got % x\nwant % x", got, real)
	}
	if !es[0].Kernel || es[1].Kernel {
		t.Errorf("cpumodes: %+v", es)
	}
}

// TestBuildIDTable: which dsos perf record lists in HEADER_BUILD_ID for the
// spin workload (5 x 30us of user work and a getpid): the kernel's and the
// workload's when samples hit them, none with -B or --buildid-mmap (today's
// default, build ids in MMAP2 instead), every dso made with --buildid-all.
func TestBuildIDTable(t *testing.T) {
	const kernel, spin, ld = "[kernel.kallsyms]", "/usr/local/bin/spin", "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
	for _, c := range []struct {
		args  []string
		today bool
		want  []string
	}{
		{args: []string{"-e", "cpu-clock", "-c", "10000"}, want: []string{kernel, spin}},
		{args: []string{"-e", "cpu-clock:u", "-c", "10000"}, want: []string{spin}},
		{args: []string{"-e", "syscalls:sys_enter_getpid"}, want: []string{spin}}, // the syscall's user regs
		{args: []string{"-e", "syscalls:sys_enter_close"}, want: nil},             // no sample: no table, no feature
		{args: []string{"--buildid-all", "-e", "syscalls:sys_enter_getpid"}, want: []string{kernel, spin, ld}},
		{args: []string{"-B", "-e", "cpu-clock", "-c", "10000"}, want: nil},
		{args: []string{"--buildid-mmap", "-e", "cpu-clock", "-c", "10000"}, want: nil},
		{args: []string{"-e", "cpu-clock", "-c", "10000"}, today: true, want: nil},
		{args: []string{"--no-buildid-mmap", "-e", "cpu-clock", "-c", "10000"}, today: true, want: []string{kernel, spin}},
	} {
		name := strings.Join(c.args, " ")
		if c.today {
			name += " (today's perf)"
		}
		t.Run(name, func(t *testing.T) {
			var ss *Session
			if c.today {
				ss = todaySession(t, c.args)
			} else {
				ss = perf61Session(t, c.args)
			}
			var got []string
			for _, e := range ss.Data.buildIDTable() {
				got = append(got, e.Name)
				want := ss.fileBuildID(e.Name)
				if e.Kernel {
					want = KernelBuildID
				}
				if !bytes.Equal(e.BuildID, want) || e.Kernel != (e.Name == kernel) {
					t.Errorf("%s: build id %x kernel %v, want %x", e.Name, e.BuildID, e.Kernel, want)
				}
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("dsos (-want +got):\n%s", d)
			}
			var b bytes.Buffer
			if err := ss.Data.WriteFile(&b); err != nil {
				t.Fatal(err)
			}
			f, err := ReadDataFile(b.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if has := f.Features&(1<<headerFeatBuildID) != 0; has != (len(c.want) > 0) {
				t.Errorf("HEADER_BUILD_ID in the file: %v, want %v", has, len(c.want) > 0)
			}
		})
	}
}

// todaySession is perf61Session as today's perf records it.
func todaySession(t *testing.T, args []string) *Session {
	t.Helper()
	return sessionWith(t, args, false, DefaultOptions())
}

// TestBuildIDListRealPerf: the real perf 6.1 reads the simulated
// HEADER_BUILD_ID (perf buildid-list prints the model's table), and perf
// report --symfs finds the images WriteImages writes under those build ids
// (no dso left unresolved, no build id mismatch). Skipped without perf 6.1.
func TestBuildIDListRealPerf(t *testing.T) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("no perf on the PATH: the real perf is the judge of HEADER_BUILD_ID")
	}
	if v, err := exec.Command(perf, "version").Output(); err != nil || !strings.HasPrefix(string(v), "perf version 6.1.") {
		t.Skipf("perf here is %q, not 6.1", strings.TrimSpace(string(v)))
	}
	ss := perf61SessionStack(t, []string{"-e", "cpu-clock", "-c", "10000", "-g"}, true)
	dir := t.TempDir()
	if _, err := ss.WriteImages(dir); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "perf.data")
	var b bytes.Buffer
	if err := ss.Data.WriteFile(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(perf, "buildid-list", "-i", path).CombinedOutput()
	if err != nil {
		t.Fatalf("perf buildid-list: %v\n%s", err, out)
	}
	if d := cmp.Diff(buildIDList(ss.Data.buildIDTable()), string(out)); d != "" {
		t.Errorf("perf buildid-list (-model +perf):\n%s", d)
	}
	out, err = exec.Command(perf, "report", "-v", "--stdio", "-f", "-i", path, "--symfs", dir, "--sort", "dso,sym", "-g", "none").CombinedOutput()
	if err != nil {
		t.Fatalf("perf report: %v\n%s", err, out)
	}
	for _, bad := range []string{"[unknown]", "build id mismatch"} {
		if strings.Contains(string(out), bad) {
			t.Errorf("perf report says %q:\n%s", bad, out)
		}
	}
	// -v names each dso by its long name: the kernel's is the vmlinux
	// perf loaded for [kernel.kallsyms] once its build id matched.
	for _, want := range []string{"/usr/local/bin/spin ", "[.] leaf", "vmlinux ", "[k] getpid"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("perf report has no %q:\n%s", want, out)
		}
	}
}
