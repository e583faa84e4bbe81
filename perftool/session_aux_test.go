package perftool

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/pmu/pt"
	"perfsim/sched"
	"perfsim/sim"
)

func TestAuxReadSize(t *testing.T) {
	type in struct {
		head, old, length uint64
		snapshot          bool
		snapSize          uint64
	}
	for _, tc := range []struct {
		name string
		in   in
		want uint64
	}{
		{"forward", in{head: 0x3000, old: 0x1000, length: 0x8000}, 0x2000},
		{"wrapped once", in{head: 0x9000, old: 0x7000, length: 0x8000}, 0x2000},
		{"full buffer: head - old == len", in{head: 0x8000, old: 0, length: 0x8000}, 0x8000},
		{"snapshot clamped", in{head: 0x10000, old: 0x8000, length: 0x8000, snapshot: true, snapSize: 0x1000}, 0x1000},
		{"full-trace never clamped", in{head: 0x10000, old: 0x8000, length: 0x8000, snapSize: 0x1000}, 0x8000},
	} {
		got := auxReadSize(tc.in.head, tc.in.old, tc.in.length, tc.in.snapshot, tc.in.snapSize)
		if got != tc.want {
			t.Errorf("%s: auxReadSize = %#x, want %#x", tc.name, got, tc.want)
		}
	}
}

// TestAuxReadPiecesProperty: the one or two pieces are the size bytes of the
// circular buffer that end at head, in order.
func TestAuxReadPiecesProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		length := uint64(1) << rapid.IntRange(3, 10).Draw(t, "log2len")
		data := make([]byte, length)
		for i := range data {
			data[i] = byte(i*7 + 3)
		}
		old := rapid.Uint64Range(0, 1<<20).Draw(t, "old")
		head := old + rapid.Uint64Range(1, 3*length).Draw(t, "ahead")
		size := auxReadSize(head, old, length, false, 0)
		d1, d2 := auxReadPieces(data, head&(length-1), size)
		got := append(append([]byte(nil), d1...), d2...)
		want := make([]byte, size)
		for i := range want {
			want[i] = data[(head-size+uint64(i))&(length-1)]
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("pieces of %d bytes ending at %#x: got %x, want %x", size, head, got, want)
		}
		if size == 0 || size > length {
			t.Fatalf("size %d outside (0, %d]", size, length)
		}
	})
}

func TestPTFindSnapshot(t *testing.T) {
	const n = 0x2000
	zero := make([]byte, n)
	tail := make([]byte, n)
	tail[n-1] = 1 // trace in the last 4 KiB: the buffer has wrapped
	type res struct{ Head, Old uint64 }
	for _, tc := range []struct {
		name      string
		data      []byte
		head, old uint64
		want      res
	}{
		{"not wrapped, head after old", zero, 0x1800, 0x800, res{0x1800, 0x800}},
		{"not wrapped, old masked", zero, 0x1800, n + 0x800, res{0x1800, 0x800}},
		{"not wrapped, old past head", zero, 0x400, 0x800, res{0x400 + n, 0x800}},
		{"wrapped: the whole buffer", tail, 0x400, 0x800, res{0x400 + n, 0x400}},
	} {
		ss := &Session{R: &Record{Snapshot: &Snapshot{}, AuxPages: n / pmu.PageSize}}
		mm := &SessionAuxMmap{Len: n, Mask: n - 1}
		head, old := tc.head, tc.old
		if err := ptFindSnapshot(ss, mm, func() []byte { return tc.data }, &head, &old); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, res{head, old}); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

// TestPTSnapshotRefBufSize follows intel_pt_snapshot_ref_buf_size().
func TestPTSnapshotRefBufSize(t *testing.T) {
	for _, tc := range []struct{ snap, buf, psb, want uint64 }{
		{64 << 10, 4 << 20, 16 << 10, 0},       // small snapshots look for the first wrap
		{4 << 20, 4 << 20, 16 << 10, 32 << 10}, // 2 PSB periods (perf's default psb_period=3)
		{4 << 20, 4 << 20, 0, 256 << 10},       // unknown period: 256 KiB
		{4 << 20, 4 << 20, 1 << 20, 256 << 10}, // capped at 256 KiB
		{256 << 10, 256 << 10, 128 << 10, 0},   // not below the buffer
		{100 << 10, 128 << 10, 32 << 10, 0},    // not below half the snapshot
		{1 << 20, 128 << 10, 128 << 10, 0},     // capped, still the whole buffer
		{65 << 10, 1 << 20, 8 << 10, 16 << 10}, // just over 64 KiB
	} {
		if got := ptSnapshotRefBufSize(tc.snap, tc.buf, tc.psb); got != tc.want {
			t.Errorf("ptSnapshotRefBufSize(snap %d, buf %d, psb %d) = %d, want %d", tc.snap, tc.buf, tc.psb, got, tc.want)
		}
	}
}

// auxRun is `perf record ARGS -- uname` on two CPUs with an intel_pt PMU of
// rate bytes/µs and 4K regions; uname, on CPU 0, makes n newuname syscalls;
// perf runs on CPU 1.
func auxRun(t *testing.T, args []string, n int, rate int64, at func(ss *Session, m *cpu.Machine)) (*Session, *pt.PMU) {
	t.Helper()
	m := cpu.NewMachine(cpu.Config{CPUs: 2}, sim.NewRandom(1))
	t.Cleanup(m.Close)
	s := sched.New(m, sched.DefaultConfig())
	ko := pmu.DefaultOptions(2)
	ko.Tracepoints = KernelTracepoints()
	k := pmu.NewKernel(s, ko)
	p := pt.New(k, rate, 4096, pt.DefaultCaps)
	if err := k.RegisterPMU(p); err != nil {
		t.Fatal(err)
	}
	r, err := Parse(append(args, "--", "uname"), Options{NrCPUs: 2, Sysctl: pmu.DefaultSysctl(2), Privileged: true})
	if err != nil {
		t.Fatal(err)
	}
	wl := s.Spawn("uname", sched.MaskOf(0), sched.Loop(n, sched.Syscall("newuname"), sched.Compute(20*sim.Microsecond)))
	so := DefaultSessionOptions()
	so.CPU = 1
	ss, err := NewSession(r, k, s, wl, so)
	if err != nil {
		t.Fatal(err)
	}
	if at != nil {
		at(ss, m)
	}
	if err := m.Run(10 * sim.Second); err != nil {
		t.Fatal(err)
	}
	if !ss.Finished || ss.Err != nil {
		t.Fatalf("perf finished %v, err %v", ss.Finished, ss.Err)
	}
	ss.process()
	return ss, p
}

// TestAuxFullTrace: in full-trace mode every byte the hardware produced
// reaches perf.data in a PERF_RECORD_AUXTRACE, as Intel PT packets from a
// PSB on with no decoding error, aux_tail follows, and the AUX area was
// mapped read-write at the data mmap's end.
func TestAuxFullTrace(t *testing.T) {
	ss, p := auxRun(t, []string{"-e", "intel_pt//", "-m", "8,8"}, 20, 200, nil)
	if len(ss.AuxMmaps()) != 2 {
		t.Fatalf("%d AUX mmaps, want 2 (one per CPU)", len(ss.AuxMmaps()))
	}
	mm := ss.AuxMmaps()[0] // CPU 0, where uname runs
	type got struct {
		Overwrite    bool
		Len          uint64
		Bytes        int64
		Tail         uint64
		DecodedBytes int // of CPU 0's AUXTRACE data, one stream: every byte a packet from the first PSB on
		Bad          int
	}
	var stream []byte
	for _, c := range ss.Data.Auxtrace() {
		if c.Ev.CPU == 0 {
			stream = append(stream, c.Data...)
		}
	}
	ps, _ := pt.Decode(stream)
	decoded := 0
	for _, pk := range ps {
		decoded += pk.Len
	}
	bs, bad := ss.Data.ItraceBranches()
	if len(bs) == 0 || len(ps) == 0 || ps[0].Kind != pt.KindPSB {
		t.Errorf("%d branches, %d packets (first %+v): want the trace to start with a PSB and hold branches", len(bs), len(ps), ps[:min(len(ps), 1)])
	}
	g := got{Overwrite: mm.Overwrite, Len: mm.Len, Bytes: mm.Bytes, Tail: mm.Ring.Map.RB.User.AuxTail,
		DecodedBytes: decoded, Bad: bad}
	want := got{Overwrite: false, Len: 8 * pmu.PageSize, Bytes: int64(p.Produced), Tail: mm.Prev,
		DecodedBytes: int(p.Produced), Bad: 0}
	if d := cmp.Diff(want, g); d != "" {
		t.Errorf("full trace (-want +got):\n%s", d)
	}
	if p.Produced == 0 || p.Dropped != 0 {
		t.Errorf("produced %d, dropped %d: want some trace and none dropped", p.Produced, p.Dropped)
	}
}

// TestAuxSnapshotSIGUSR2: with -S the AUX area is read-only (aux_overwrite)
// and nothing is read until SIGUSR2; each snapshot writes the newest bytes.
func TestAuxSnapshotSIGUSR2(t *testing.T) {
	ss, _ := auxRun(t, []string{"-e", "intel_pt//", "-S", "-m", "8,2"}, 40, 200, func(ss *Session, m *cpu.Machine) {
		for _, at := range []sim.Duration{300 * sim.Microsecond, 600 * sim.Microsecond} {
			m.CPUs[0].NewTimer(false, cpu.Interrupt{Name: "sigusr2", Fn: func(*cpu.CPU) { ss.Snapshot() }}).Arm(sim.Time(at))
		}
	})
	mm := ss.AuxMmaps()[0]
	if !mm.Overwrite {
		t.Errorf("snapshot AUX mmap: Overwrite %v, want a read-only mapping", mm.Overwrite)
	}
	chunks := ss.Data.Auxtrace()
	if len(chunks) != 2 {
		t.Fatalf("%d PERF_RECORD_AUXTRACE, want 2 (one per SIGUSR2)", len(chunks))
	}
	for i, c := range chunks {
		if c.Ev.Size == 0 || c.Ev.Size > mm.Len {
			t.Errorf("snapshot %d: size %d, want (0, %d]", i, c.Ev.Size, mm.Len)
		}
	}
	if n, _ := ss.Observe("perf.snapshots"); n != 2 {
		t.Errorf("perf.snapshots = %d, want 2", n)
	}
}

// TestAuxSnapshotOnExit: -Se takes one more snapshot as perf record ends
// (record__auxtrace_snapshot_exit()), with no SIGUSR2; plain -S without a
// signal writes no trace at all.
func TestAuxSnapshotOnExit(t *testing.T) {
	for _, tc := range []struct {
		snap      string
		chunks    int
		snapshots int64
	}{
		{"-S", 0, 0},
		{"-Se", 1, 1},
		{"-Se4096", 1, 1},
	} {
		t.Run(tc.snap, func(t *testing.T) {
			ss, _ := auxRun(t, []string{"-e", "intel_pt//", tc.snap, "-m", "8,2"}, 40, 200, nil)
			chunks := ss.Data.Auxtrace()
			if len(chunks) != tc.chunks {
				t.Fatalf("%d PERF_RECORD_AUXTRACE, want %d", len(chunks), tc.chunks)
			}
			for i, c := range chunks {
				if c.Ev.Size == 0 || c.Ev.Size > ss.AuxMmaps()[0].Len {
					t.Errorf("snapshot %d: size %d, want (0, %d]", i, c.Ev.Size, ss.AuxMmaps()[0].Len)
				}
			}
			if n, _ := ss.Observe("perf.snapshots"); n != tc.snapshots {
				t.Errorf("perf.snapshots = %d, want %d", n, tc.snapshots)
			}
		})
	}
}
