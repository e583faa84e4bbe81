package perftool

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
)

// perfDataCommands are the perf record command lines the write/read round
// trip records: software events, callchains, groups, tracepoints, overwrite.
var perfDataCommands = [][]string{
	{"-e", "cpu-clock", "-c", "20000"},
	{"-e", "cpu-clock", "-c", "10000", "-g"},
	{"-e", "{cpu-clock,task-clock}:S", "-c", "20000"},
	{"-e", "syscalls:sys_enter_getpid", "-e", "syscalls:sys_exit_getpid"},
	{"-e", "raw_syscalls:*"},
	{"--overwrite", "-m", "1", "-e", "syscalls:sys_enter_getpid"},
	{"-a", "-e", "cpu-clock", "-c", "50000"},
	{"-e", "cycles:u", "-c", "5000", "--call-graph", "fp"},
}

// recordPerfData records `perf record ARGS -- spin` (loops rounds of compute
// and getpid) under the schedule of seed and returns the session's perf.data.
func recordPerfData(t *testing.T, args []string, loops int, seed uint64) *PerfData {
	t.Helper()
	m := cpu.NewMachine(cpu.Config{CPUs: 2}, sim.NewRandom(seed))
	defer m.Close()
	s := sched.New(m, sched.DefaultConfig())
	ko := pmu.DefaultOptions(2)
	ko.Tracepoints = KernelTracepoints()
	k := pmu.NewKernel(s, ko)
	o := DefaultOptions()
	o.Tool = ToolPerf61
	r, err := Parse(append(append([]string(nil), args...), "--", "spin"), o)
	if err != nil {
		t.Fatal(err)
	}
	wl := s.Spawn("spin", sched.MaskOf(0), sched.Loop(loops, sched.Compute(30*sim.Microsecond), sched.Syscall("getpid")))
	so := DefaultSessionOptions()
	so.CPU = 1
	ss, err := NewSession(r, k, s, wl, so)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(10 * sim.Second); err != nil {
		t.Fatal(err)
	}
	if !ss.Finished || ss.Err != nil {
		t.Fatalf("perf finished %v, err %v", ss.Finished, ss.Err)
	}
	return ss.Data
}

// roundTrip writes d as a perf.data file, reads it back with ReadDataFile and
// checks that it reads what was written: every attr at the file's attr size
// with its ids, the data section byte for byte and cut into whole records,
// and the features WriteFile writes.
func roundTrip(t *testing.T, d *PerfData) {
	t.Helper()
	var buf bytes.Buffer
	if err := d.WriteFile(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := ReadDataFile(buf.Bytes())
	if err != nil {
		t.Fatalf("the written perf.data does not read back: %v", err)
	}
	if len(f.Attrs) != len(d.Attrs) {
		t.Fatalf("%d attrs read back, %d written", len(f.Attrs), len(d.Attrs))
	}
	for i, a := range d.Attrs {
		want := a.Attr.Marshal()
		if n := int(a.Attr.Size); n > 0 && n < len(want) {
			want = want[:n]
		}
		got := f.Attrs[i].Attr[:min(len(want), len(f.Attrs[i].Attr))]
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("attr %d (%s) reads back differently (-written +read):\n%s", i, a.Name, diff)
		}
		if diff := cmp.Diff(a.IDs, f.Attrs[i].IDs); diff != "" {
			t.Errorf("ids of attr %d (%s) (-written +read):\n%s", i, a.Name, diff)
		}
	}
	if !bytes.Equal(f.Data, d.Data) {
		t.Errorf("the data section reads back as %d bytes, %d written, or different bytes", len(f.Data), len(d.Data))
	}
	n := 0
	for b := d.Data; len(b) >= 8; b = b[binary.LittleEndian.Uint16(b[6:]):] {
		n++
	}
	if len(f.Records) != n {
		t.Errorf("%d records read back, %d written", len(f.Records), n)
	}
	if f.Features&(1<<headerFeatEventDesc) == 0 || len(f.Sections[headerFeatEventDesc]) == 0 {
		t.Errorf("no HEADER_EVENT_DESC read back (features %#x)", f.Features)
	}
	if len(d.sessionTracepoints()) > 0 && len(f.Sections[headerFeatTracingData]) == 0 {
		t.Errorf("tracepoints recorded, no HEADER_TRACING_DATA read back (features %#x)", f.Features)
	}
}

// TestPerfDataReadBack: every command line's perf.data reads back whole.
func TestPerfDataReadBack(t *testing.T) {
	for _, args := range perfDataCommands {
		t.Run(fmtArgs(args), func(t *testing.T) {
			d := recordPerfData(t, args, 5, 1)
			if len(d.Data) == 0 || len(d.Attrs) == 0 {
				t.Fatalf("nothing recorded: %d data bytes, %d attrs", len(d.Data), len(d.Attrs))
			}
			roundTrip(t, d)
		})
	}
}

func fmtArgs(args []string) string {
	var b bytes.Buffer
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a)
	}
	return b.String()
}

// FuzzPerfDataWriteRead: for any of the command lines, workload length and
// schedule, the perf.data the writer produces is read back whole by the
// project's own reader (ReadDataFile).
func FuzzPerfDataWriteRead(f *testing.F) {
	for i := range perfDataCommands {
		f.Add(uint8(i), uint8(3), uint64(1))
	}
	f.Add(uint8(5), uint8(60), uint64(7)) // an overwrite ring that wraps
	f.Fuzz(func(t *testing.T, cmd, loops uint8, seed uint64) {
		args := perfDataCommands[int(cmd)%len(perfDataCommands)]
		roundTrip(t, recordPerfData(t, args, 1+int(loops)%64, seed))
	})
}

// FuzzReadDataFile: any bytes are parsed or refused with an error, never a
// panic or an out-of-range slice.
func FuzzReadDataFile(f *testing.F) {
	var buf bytes.Buffer
	f.Add([]byte("PERFILE2"))
	d := &PerfData{}
	if err := d.WriteFile(&buf); err == nil {
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if df, err := ReadDataFile(b); err == nil {
			total := 0
			for _, r := range df.Records {
				total += len(r)
			}
			if total != len(df.Data) {
				t.Errorf("records cover %d of the %d data bytes", total, len(df.Data))
			}
		}
	})
}
