package runner

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/mm"
	"perfsim/perftool"
	"perfsim/rb"
	"perfsim/scenarios"
	"perfsim/uapi"
)

// runRecords runs src and returns its first session and what it recorded
// (the kernel's records only).
func runRecords(t *testing.T, src string) (*Run, *perftool.Session, []perftool.DataRecord) {
	t.Helper()
	f, err := scenarios.Parse("t.sim", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if errs := scenarios.Check(f, NewRegistry(f, nil)); len(errs) > 0 {
		t.Fatal(errs)
	}
	r, err := Build(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Execute(); err != nil {
		t.Fatal(err)
	}
	ss := r.Perf.(*pmuRun).sessions[0]
	ss.Data.Process()
	var out []perftool.DataRecord
	for _, rec := range ss.Data.Parsed() {
		if !rec.Synth() {
			out = append(out, rec)
		}
	}
	return r, ss, out
}

const mmProgram = `scenario sys-mm
cpus 1
task w cpu0
  syscall close 1000
  syscall prctl PR_SET_NAME "worker" 0 0 0
  syscall openat AT_FDCWD "/usr/lib/libfoo.so" O_RDONLY 0 as fd
  syscall mmap 0 16384 PROT_READ|PROT_EXEC MAP_PRIVATE fd 0 as lib
  syscall mmap 0 8192 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as buf
  touch buf 2 write
  touch buf 2 write
  touch lib 4
  syscall munmap buf 8192
  touch buf 1
  syscall getpid
`

// TestSyscallPayloads: the raw_syscalls and syscalls:* records carry the
// program's arguments and what the calls return: close(1000) on a closed fd
// is -EBADF (-9), as the real close returns.
func TestSyscallPayloads(t *testing.T) {
	_, ss, recs := runRecords(t, mmProgram+"record -e raw_syscalls:*,syscalls:sys_enter_close,syscalls:sys_exit_close -- w\n")
	le := binary.LittleEndian
	type call struct {
		Event   string
		Nr      int64
		Arg0    uint64
		RetOrA1 int64
	}
	var got []call
	for _, r := range recs {
		if r.Dec == nil || r.Dec.Sample == nil {
			continue
		}
		raw := r.Dec.Sample.Raw
		name := ss.Data.Attrs[r.Evsel].Name
		switch name {
		case "raw_syscalls:sys_enter":
			got = append(got, call{name, int64(le.Uint64(raw[8:])), le.Uint64(raw[16:]), int64(le.Uint64(raw[24:]))})
		case "raw_syscalls:sys_exit":
			got = append(got, call{name, int64(le.Uint64(raw[8:])), 0, int64(le.Uint64(raw[16:]))})
		default:
			got = append(got, call{name, int64(int32(le.Uint32(raw[8:]))), le.Uint64(raw[16:]), int64(le.Uint64(raw[16:]))})
		}
	}
	str := uint64(0x7fffffffeff8) // "worker", at the top of the stack page; AT_FDCWD is an int: 0xffffff9c
	want := []call{
		{"raw_syscalls:sys_exit", 59, 0, 0}, // the exec of w, which enabled the events (enable_on_exec)
		{"raw_syscalls:sys_enter", 3, 1000, 0}, {"syscalls:sys_enter_close", 3, 1000, 1000},
		{"raw_syscalls:sys_exit", 3, 0, -9}, {"syscalls:sys_exit_close", 3, 0xfffffffffffffff7, -9},
		{"raw_syscalls:sys_enter", 157, uapi.PR_SET_NAME, int64(str)}, {"raw_syscalls:sys_exit", 157, 0, 0},
		{"raw_syscalls:sys_enter", 257, 0xffffff9c, int64(str - 0x18)}, {"raw_syscalls:sys_exit", 257, 0, 3},
		{"raw_syscalls:sys_enter", 9, 0, 16384}, {"raw_syscalls:sys_exit", 9, 0, 0x7ffff7fee000},
		{"raw_syscalls:sys_enter", 9, 0, 8192}, {"raw_syscalls:sys_exit", 9, 0, 0x7ffff7fec000},
		{"raw_syscalls:sys_enter", 11, 0x7ffff7fec000, 8192}, {"raw_syscalls:sys_exit", 11, 0, 0},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestCommMmapRecords: the exec COMM (COMM_EXEC) and prctl(PR_SET_NAME)'s
// COMM (no COMM_EXEC); MMAP2 for the exec's text mappings and the file's
// executable mapping; with -d (attr.mmap_data) every mapping, the stack and
// the vdso's data pages among them, the anon one as //anon with
// PERF_RECORD_MISC_MMAP_DATA.
func TestCommMmapRecords(t *testing.T) {
	type side struct {
		Type uint32
		Misc uint16
		What string
		Len  uint64
		Prot uint32
		Ino  uint64
	}
	collect := func(recs []perftool.DataRecord) []side {
		var out []side
		for _, r := range recs {
			if r.Dec == nil {
				continue
			}
			switch s := r.Dec.Sideband.(type) {
			case *rb.Comm:
				out = append(out, side{r.Header.Type, r.Header.Misc, s.Comm, 0, 0, 0})
			case *rb.Mmap:
				out = append(out, side{r.Header.Type, r.Header.Misc, s.Filename, s.Len, s.Prot, s.Ino})
			}
		}
		return out
	}
	const (
		comm, mmap2          = uapi.PERF_RECORD_COMM, uapi.PERF_RECORD_MMAP2
		user, exec, dataMisc = uapi.PERF_RECORD_MISC_USER, uapi.PERF_RECORD_MISC_COMM_EXEC, uapi.PERF_RECORD_MISC_USER | uapi.PERF_RECORD_MISC_MMAP_DATA
	)
	// Today's perf sets attr.build_id (record.buildid_mmap): MMAP2 carries
	// the file's build id instead of its device and inode.
	bid := uint16(uapi.PERF_RECORD_MISC_MMAP_BUILD_ID)
	_, _, recs := runRecords(t, mmProgram+"record -e syscalls:sys_enter_getpid -- w\n")
	want := []side{
		{comm, exec, "w", 0, 0, 0},
		{mmap2, user | bid, "/usr/local/bin/w", 4096, 5, 0},
		{mmap2, user | bid, "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", 4096, 5, 0},
		{mmap2, user, "[vdso]", 8192, 5, 0},
		{comm, 0, "worker", 0, 0, 0},
		{mmap2, user | bid, "/usr/lib/libfoo.so", 16384, 5, 0},
	}
	if d := cmp.Diff(want, collect(recs)); d != "" {
		t.Errorf("default attrs (-want +got):\n%s", d)
	}
	_, _, recs = runRecords(t, mmProgram+"record --no-buildid-mmap -e syscalls:sys_enter_getpid -- w\n")
	want = []side{
		{comm, exec, "w", 0, 0, 0},
		{mmap2, user, "/usr/local/bin/w", 4096, 5, 1002},
		{mmap2, user, "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", 4096, 5, 1003},
		{mmap2, user, "[vdso]", 8192, 5, 0},
		{comm, 0, "worker", 0, 0, 0},
		{mmap2, user, "/usr/lib/libfoo.so", 16384, 5, 1004},
	}
	if d := cmp.Diff(want, collect(recs)); d != "" {
		t.Errorf("--no-buildid-mmap (-want +got):\n%s", d)
	}
	_, _, recs = runRecords(t, mmProgram+"record -d -e syscalls:sys_enter_getpid -- w\n")
	got := collect(recs)
	// COMM, the stack (setup_arg_pages()), the image, ld.so, the vdso's text,
	// [vvar] and [vvar_vclock] (map_vdso()), COMM, libfoo, anon: the order
	// of the real exec's under perf record -d on this machine (6.18.44)
	if n := len(got); n != 1+1+4+4+3+1+1+1 {
		t.Fatalf("-d: %d COMM/MMAP2 records, want 16: %v", n, got)
	}
	if d := cmp.Diff([]side{{mmap2, dataMisc, "[stack]", 0x21000, 3, 0}, {mmap2, dataMisc, "[vvar]", 0x4000, 1, 0}, {mmap2, dataMisc, "[vvar_vclock]", 0x2000, 1, 0}},
		[]side{got[1], got[11], got[12]}); d != "" {
		t.Errorf("-d stack and vdso data (-want +got):\n%s", d)
	}
	if d := cmp.Diff(side{mmap2, dataMisc, "//anon", 8192, 3, 0}, got[len(got)-1]); d != "" {
		t.Errorf("-d anon mapping (-want +got):\n%s", d)
	}
}

// TestPageFaults: first touches fault (anon pages minor, a file page not in
// the page cache major: its read-around reads the file's other pages and
// the retried fault's fault-around maps them, so they do not fault), a
// second touch does not; each fault is a sample with the faulting
// address; the access after munmap kills the task.
func TestPageFaults(t *testing.T) {
	r, ss, recs := runRecords(t, mmProgram+"record -e page-faults,minor-faults,major-faults -c 1 -d -- w\n")
	type fault struct {
		Event string
		Addr  uint64
		User  bool
	}
	var got []fault
	for _, rec := range recs {
		if rec.Dec != nil && rec.Dec.Sample != nil {
			got = append(got, fault{ss.Data.Attrs[rec.Evsel].Name, rec.Dec.Sample.Addr, rec.Header.Misc&uapi.PERF_RECORD_MISC_CPUMODE_MASK == uapi.PERF_RECORD_MISC_USER})
		}
	}
	var want []fault
	add := func(ev string, a uint64, user bool) {
		want = append(want, fault{"page-faults", a, user}, fault{ev, a, user})
	}
	// the exec's elf_load() padzero() of the image's data page and ld.so's,
	// in kernel mode, at the ends of their file parts, in the pages this
	// machine's exec faults with setarch -R (0x55555555d1e0 and
	// 0x7ffff7ffe110 for /usr/bin/true; the model's image is smaller)
	add("minor-faults", mm.ImageBase+3*mm.PageSize+mm.ELFDataVaddrOff+mm.ELFDataFilesz, false)
	add("minor-faults", 0x7ffff7ffe1e0, false)
	add("minor-faults", 0x7ffff7fec000, true)
	add("minor-faults", 0x7ffff7fed000, true)
	add("major-faults", 0x7ffff7fee000, true)
	want = append(want, fault{"page-faults", 0x7ffff7fec000, true}) // the access after munmap: SIGSEGV
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if tk := r.Tasks["w"]; !tk.Segfaulted || tk.MinFlt != 4 || tk.MajFlt != 1 {
		t.Errorf("task w: segfaulted %v, min_flt %d, maj_flt %d; want true, 4, 1", tk.Segfaulted, tk.MinFlt, tk.MajFlt)
	}
}

// TestMprotectMmap2: mprotect() making anon memory executable writes an
// MMAP2 for the VMA it changed (mprotect_fixup() -> perf_event_mmap()),
// which the default attrs hear (an executable mapping); the anon mmap before
// it was data (no -d: no record).
func TestMprotectMmap2(t *testing.T) {
	_, _, recs := runRecords(t, `scenario mprot
task w
  syscall mmap 0 16384 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as jit
  syscall mprotect jit 8192 PROT_READ|PROT_EXEC
record -e syscalls:sys_enter_getpid -- w
`)
	var got []string
	for _, r := range recs {
		if m, ok := r.Dec.Sideband.(*rb.Mmap); ok {
			got = append(got, fmt.Sprintf("%s %#x prot %d", m.Filename, m.Len, m.Prot))
		}
	}
	want := []string{"/usr/local/bin/w 0x1000 prot 5", "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 0x1000 prot 5",
		"[vdso] 0x2000 prot 5", "//anon 0x2000 prot 5"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
