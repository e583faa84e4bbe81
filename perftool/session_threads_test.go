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
	m := cpu.NewMachine(cpu.Config{CPUs: 2}, sim.NewRandom(1))
	t.Cleanup(m.Close)
	s := sched.New(m, sched.DefaultConfig())
	ko := pmu.DefaultOptions(2)
	ko.Tracepoints = KernelTracepoints()
	k := pmu.NewKernel(s, ko)
	o := DefaultOptions()
	o.Tool = ToolPerf61
	r, err := Parse([]string{"-a", "-e", "cpu-clock", "-c", "100000", "--", "spin"}, o)
	if err != nil {
		t.Fatal(err)
	}
	srv := s.Spawn("srv", sched.MaskOf(0),
		sched.SyscallArgs("execve", 0, "", sched.SysArg{Str: "/usr/bin/srv", IsStr: true}),
		sched.Fork("worker", sched.ThreadFlags, sched.Compute(5*sim.Millisecond)),
		sched.Compute(5*sim.Millisecond))
	wl := s.Spawn("spin", sched.MaskOf(0), sched.Sleep(100*sim.Microsecond), sched.Compute(300*sim.Microsecond))
	so := DefaultSessionOptions()
	so.CPU = 1
	ss, err := NewSession(r, k, s, wl, so)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
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
