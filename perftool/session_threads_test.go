package perftool

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestSynthesizeThreadsSystemWide: `perf record -a` synthesizes, from every
// /proc/PID in pid order and each /proc/PID/task/TID in tid order, a FORK
// (misc FORK_EXEC) and a COMM per thread, and after the leader's COMM the
// MMAP2s of its executable mappings, as the real perf 6.1 does on this
// machine (Linux 6.18.44: `perf record -a -e cpu-clock -- sleep 0.05`, perf
// report -D: "FORK(5811:5811):(1:1)", "COMM: memfd:sealed-91:5811/5811",
// three MMAP2 5811/5811 ending with [vsyscall], then "FORK(5811:27443):(5811:5811)"
// and its COMM for each thread; kernel threads FORK(N:N):(2:2) and COMM, no
// MMAP2). Here: a process srv that exec'd /usr/bin/srv with one thread, and
// perf's forked workload (perf-exec), perf itself, and spin.
func TestSynthesizeThreadsSystemWide(t *testing.T) {
	var srv, wl *sched.Task
	s, ss := synthSession(t, []string{"-a", "-e", "cpu-clock", "-c", "100000", "--", "spin"}, func(s *sched.Sched) *sched.Task {
		srv = s.Spawn("srv", sched.MaskOf(0),
			sched.SyscallArgs("execve", 0, "", sched.SysArg{Str: "/usr/bin/srv", IsStr: true}),
			sched.Fork("worker", sched.ThreadFlags, sched.Compute(5*sim.Millisecond)),
			sched.Compute(5*sim.Millisecond))
		wl = s.Spawn("spin", sched.MaskOf(0), sched.Sleep(100*sim.Microsecond), sched.Compute(300*sim.Microsecond))
		return wl
	})
	var got []string
	recs := ss.Data.Parsed()
	for i := range recs {
		rec := &recs[i]
		if rec.Map >= 0 || rec.Dec == nil {
			continue // copied from a ring, or perf's own record types
		}
		misc := binary.LittleEndian.Uint16(ss.Data.Data[rec.Off+4:])
		switch x := rec.Dec.Sideband.(type) {
		case *rb.Task:
			got = append(got, fmt.Sprintf("FORK(%d:%d):(%d:%d) misc %#x", x.Pid, x.Tid, x.Ppid, x.Ptid, misc))
		case *rb.Comm:
			got = append(got, fmt.Sprintf("COMM %s:%d/%d", x.Comm, x.Pid, x.Tid))
		case *rb.Mmap:
			if rec.Header.Type == uapi.PERF_RECORD_MMAP2 {
				got = append(got, fmt.Sprintf("MMAP2 %d/%d %s", x.Pid, x.Tid, x.Filename))
			}
		}
	}
	var thread *sched.Task
	for _, x := range s.Tasks {
		if x.PID == srv.PID && x != srv {
			thread = x
		}
	}
	perf := ss.Perf
	f := fmt.Sprintf
	want := []string{
		"FORK(18:18):(2:2) misc 0x2000", // each CPU's migration/N and cpuhp/N, kthreadd's children, in pid order as this machine boots them (sched.StopperPID, CPUHPPID)
		"COMM migration/0:18/18",
		"FORK(19:19):(2:2) misc 0x2000",
		"COMM cpuhp/0:19/19",
		"FORK(20:20):(2:2) misc 0x2000",
		"COMM cpuhp/1:20/20",
		"FORK(21:21):(2:2) misc 0x2000",
		"COMM migration/1:21/21",
		f("FORK(%d:%d):(0:0) misc 0x2000", srv.PID, srv.PID),
		f("COMM srv:%d/%d", srv.PID, srv.PID),
		f("MMAP2 %d/%d /usr/bin/srv", srv.PID, srv.PID), // the exec's image, ld.so and the vdso
		f("MMAP2 %d/%d [vdso]", srv.PID, srv.PID),
		f("MMAP2 %d/%d /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", srv.PID, srv.PID),
		f("MMAP2 %d/%d [vsyscall]", srv.PID, srv.PID),
		f("FORK(%d:%d):(%d:%d) misc 0x2000", srv.PID, thread.TID, srv.PID, srv.PID), // a thread's parent is its leader
		f("COMM srv:%d/%d", srv.PID, thread.TID),
		f("FORK(%d:%d):(%d:%d) misc 0x2000", wl.PID, wl.PID, perf.PID, perf.PID), // perf's forked child
		f("COMM perf-exec:%d/%d", wl.PID, wl.PID),
		f("MMAP2 %d/%d [vsyscall]", wl.PID, wl.PID),
		f("FORK(%d:%d):(0:0) misc 0x2000", perf.PID, perf.PID),
		f("COMM perf:%d/%d", perf.PID, perf.PID),
		f("MMAP2 %d/%d [vsyscall]", perf.PID, perf.PID),
		f("COMM perf-exec:%d/%d", wl.PID, wl.PID), // __cmd_record(): the workload's COMM again
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("synthesized records (-want +got):\n%s", d)
	}
}

// TestSynthesizeThreadsSystemWideData: with -d (opts->sample_address) the
// MMAP2s perf 6.1 synthesizes from /proc/PID/maps include every readable
// data mapping, in address order among the executable ones, with misc
// PERF_RECORD_MISC_USER|PERF_RECORD_MISC_MMAP_DATA (0x2002); a ---p mapping
// (a guard page) is skipped; anon and special mappings have offset 0 (the
// maps line's); the vDSO's data pages [vvar] and [vvar_vclock] sit below
// its text. As on this machine: testdata/perf61-a-d-synth.txt (`perf record
// -a -d -e cpu-clock -- sleep 0.05`, perf report -D, next to the process's
// /proc/PID/maps). Here srv exec'd /usr/bin/srv and then mapped 2 anon
// pages rw- and a PROT_NONE guard page below them.
func TestSynthesizeThreadsSystemWideData(t *testing.T) {
	anon := func(prot uint64) sched.Op {
		return sched.SyscallArgs("mmap", 0, "", sched.SysArg{}, sched.SysArg{Val: 2 * 4096}, sched.SysArg{Val: prot},
			sched.SysArg{Val: uapi.MAP_PRIVATE | uapi.MAP_ANONYMOUS}, sched.SysArg{Val: ^uint64(0)}, sched.SysArg{})
	}
	var srv, wl *sched.Task
	_, ss := synthSession(t, []string{"-a", "-d", "-e", "cpu-clock", "-c", "100000", "--", "spin"}, func(s *sched.Sched) *sched.Task {
		srv = s.Spawn("srv", sched.MaskOf(1), // on perf's CPU, before it: exec'd and mapped when perf reads /proc
			sched.SyscallArgs("execve", 0, "", sched.SysArg{Str: "/usr/bin/srv", IsStr: true}),
			anon(uapi.PROT_READ|uapi.PROT_WRITE), anon(uapi.PROT_NONE),
			sched.Sleep(5*sim.Millisecond))
		wl = s.Spawn("spin", sched.MaskOf(0), sched.Sleep(100*sim.Microsecond), sched.Compute(300*sim.Microsecond))
		return wl
	})
	var got []string
	recs := ss.Data.Parsed()
	for i := range recs {
		rec := &recs[i]
		if rec.Map >= 0 || rec.Dec == nil {
			continue
		}
		misc := binary.LittleEndian.Uint16(ss.Data.Data[rec.Off+4:])
		switch x := rec.Dec.Sideband.(type) {
		case *rb.Task:
			got = append(got, fmt.Sprintf("FORK(%d:%d)", x.Pid, x.Tid))
		case *rb.Comm:
			got = append(got, fmt.Sprintf("COMM %s:%d/%d", x.Comm, x.Pid, x.Tid))
		case *rb.Mmap:
			if rec.Header.Type == uapi.PERF_RECORD_MMAP2 {
				got = append(got, fmt.Sprintf("MMAP2 %d/%d %s %s @ %#x misc %#x", x.Pid, x.Tid, protString(x.Prot, x.Flags), x.Filename, x.Pgoff, misc))
			}
		}
	}
	perf := ss.Perf
	f := fmt.Sprintf
	mm2 := func(pid int, perm, name string, pgoff uint64, data bool) string {
		misc := 0x2
		if data {
			misc = 0x2002
		}
		return f("MMAP2 %d/%d %s %s @ %#x misc %#x", pid, pid, perm, name, pgoff, misc)
	}
	const ld = "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
	want := []string{
		"FORK(18:18)", // each CPU's migration/N and cpuhp/N: a kernel thread has no MMAP2
		"COMM migration/0:18/18",
		"FORK(19:19)",
		"COMM cpuhp/0:19/19",
		"FORK(20:20)",
		"COMM cpuhp/1:20/20",
		"FORK(21:21)",
		"COMM migration/1:21/21",
		f("FORK(%d:%d)", srv.PID, srv.PID),
		f("COMM srv:%d/%d", srv.PID, srv.PID),
		mm2(srv.PID, "r--p", "/usr/bin/srv", 0, true),
		mm2(srv.PID, "r-xp", "/usr/bin/srv", 0x1000, false),
		mm2(srv.PID, "r--p", "/usr/bin/srv", 0x2000, true),
		mm2(srv.PID, "rw-p", "/usr/bin/srv", 0x2000, true),
		mm2(srv.PID, "rw-p", "//anon", 0, true), // the PROT_NONE page below it is not there
		mm2(srv.PID, "r--p", "[vvar]", 0, true),
		mm2(srv.PID, "r--p", "[vvar_vclock]", 0, true),
		mm2(srv.PID, "r-xp", "[vdso]", 0, false),
		mm2(srv.PID, "r--p", ld, 0, true),
		mm2(srv.PID, "r-xp", ld, 0x1000, false),
		mm2(srv.PID, "r--p", ld, 0x2000, true),
		mm2(srv.PID, "rw-p", ld, 0x2000, true),
		mm2(srv.PID, "rw-p", "[stack]", 0, true),
		mm2(srv.PID, "--xp", "[vsyscall]", 0, false),
		f("FORK(%d:%d)", wl.PID, wl.PID),
		f("COMM perf-exec:%d/%d", wl.PID, wl.PID),
		mm2(wl.PID, "rw-p", "[stack]", 0, true),
		mm2(wl.PID, "--xp", "[vsyscall]", 0, false),
		f("FORK(%d:%d)", perf.PID, perf.PID),
		f("COMM perf:%d/%d", perf.PID, perf.PID),
		mm2(perf.PID, "rw-p", "[stack]", 0, true),
		mm2(perf.PID, "--xp", "[vsyscall]", 0, false),
		f("COMM perf-exec:%d/%d", wl.PID, wl.PID),
	}
	if d := cmp.Diff(want, got); d != "" {
		for _, v := range srv.MM.VMAs {
			t.Logf("%#x-%#x %v %s", v.Start, v.End, v.Flags, v.Name())
		}
		t.Errorf("synthesized records (-want +got):\n%s", d)
	}
}

// protString is the rwxp/s column of /proc/PID/maps, as perf report -D
// prints an MMAP2's prot and flags.
func protString(prot, flags uint32) string {
	b := []byte("---p")
	if prot&uapi.PROT_READ != 0 {
		b[0] = 'r'
	}
	if prot&uapi.PROT_WRITE != 0 {
		b[1] = 'w'
	}
	if prot&uapi.PROT_EXEC != 0 {
		b[2] = 'x'
	}
	if flags&uapi.MAP_SHARED != 0 {
		b[3] = 's'
	}
	return string(b)
}

// synthSession runs perf 6.1's `perf record ARGS` with perf on cpu1 of a
// 2-CPU machine whose tasks spawn makes (it returns the forked workload),
// to the end of the run.
func synthSession(t *testing.T, args []string, spawn func(s *sched.Sched) *sched.Task) (*sched.Sched, *Session) {
	t.Helper()
	m := cpu.NewMachine(cpu.Config{CPUs: 2}, sim.NewRandom(1))
	t.Cleanup(m.Close)
	s := sched.New(m, sched.DefaultConfig())
	ko := pmu.DefaultOptions(2)
	ko.Tracepoints = KernelTracepoints()
	k := pmu.NewKernel(s, ko)
	o := DefaultOptions()
	o.Tool = ToolPerf61
	r, err := Parse(args, o)
	if err != nil {
		t.Fatal(err)
	}
	wl := spawn(s)
	so := DefaultSessionOptions()
	so.CPU = 1
	ss, err := NewSession(r, k, s, wl, so)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	return s, ss
}
