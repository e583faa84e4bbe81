package perftool

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/rb"
	"perfsim/uapi"
)

// keptCounts is one line of testdata/perf-overwrite-1page.txt.
type keptCounts struct {
	N, Samples, Comms, Exits, Mmap2, CommExec int
}

func readKeptCounts(t *testing.T) []keptCounts {
	f, err := os.Open("testdata/perf-overwrite-1page.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []keptCounts
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var k keptCounts
		if _, err := fmt.Sscan(line, &k.N, &k.Samples, &k.Comms, &k.Exits, &k.Mmap2, &k.CommExec); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		out = append(out, k)
	}
	return out
}

// writeOpaque writes a record of a type rb does not encode (MMAP2) with its real size.
func writeOpaque(t *testing.T, buf *rb.Buffer, ev rb.Event, typ uint32, size int) {
	var h rb.Handle
	if err := rb.OutputBeginBackward(rb.NoSteps{}, &h, buf, nil, ev, size); err != nil {
		t.Fatal(err)
	}
	rec := make([]byte, size)
	rb.PutHeader(rec, rb.Header{Type: typ, Size: uint16(size)})
	rb.OutputCopy(&h, rec)
	rb.OutputEnd(rb.NoSteps{}, &h)
}

// TestOverwriteReaderMatchesRealPerf replays on CPU 0's 1-page backward buffer what
// the kernel wrote there for `perf record --overwrite -m 1 -e syscalls:sys_enter_prctl
// -- taskset -c 0 ./prctl N`, with the same record sizes, and reads it as perf does
// after disabling the event. The whole records kept must be those real perf kept.
func TestOverwriteReaderMatchesRealPerf(t *testing.T) {
	for _, want := range readKeptCounts(t) {
		t.Run(fmt.Sprint("N=", want.N), func(t *testing.T) {
			buf := mustBuffer(1, 0, 0)
			ev := &rb.SimpleEvent{EventID: 1, Type: uapi.PERF_SAMPLE_IP | uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME | uapi.PERF_SAMPLE_CPU |
				uapi.PERF_SAMPLE_PERIOD | uapi.PERF_SAMPLE_RAW, IDAll: true}
			id := &rb.SampleID{Pid: 100, Tid: 100, CPU: 0}
			side := func(r rb.Sideband) {
				if err := rb.PerfOutputSideband(rb.NoSteps{}, buf, ev, r, id, true); err != nil {
					t.Fatal(err)
				}
			}
			// taskset, exec'd on CPU 0: its ld.so, vdso and libc mappings.
			side(&rb.Comm{Pid: 99, Tid: 99, Comm: "taskset", Exec: true})
			for _, size := range []int{0x70, 0x90, 0x68, 0x88} {
				writeOpaque(t, buf, ev, uapi.PERF_RECORD_MMAP2, size)
			}
			// exec of ./prctl and its mappings.
			side(&rb.Comm{Pid: 100, Tid: 100, Comm: "prctl", Exec: true})
			for _, size := range []int{0x70, 0x90, 0x68, 0x88} {
				writeOpaque(t, buf, ev, uapi.PERF_RECORD_MMAP2, size)
			}
			for i := 0; i < want.N; i++ {
				// sys_enter_prctl: the sample (60 bytes of tracepoint data) then the COMM
				// that prctl(PR_SET_NAME) emits.
				s := &rb.Sample{Type: ev.Type, IP: 0x7f0000000000, Pid: 100, Tid: 100, Time: uint64(i), Period: 1, Raw: make([]byte, 60)}
				if err := rb.PerfEventOutput(rb.NoSteps{}, buf, ev, s, true); err != nil {
					t.Fatal(err)
				}
				side(&rb.Comm{Pid: 100, Tid: 100, Comm: fmt.Sprintf("p:%d", i)})
			}
			side(&rb.Task{Pid: 100, Ppid: 99, Tid: 100, Ptid: 99})
			_ = buf.PauseOutput(true) // perf disables the events before reading

			m, _ := NewMmap(buf, true)
			recs, err := m.ReadAll(rb.NoSteps{})
			if err != nil {
				t.Fatal(err)
			}
			got := keptCounts{N: want.N}
			for _, r := range recs {
				d, err := rb.Decode(r, ev.Type, true)
				switch {
				case r[0] == uapi.PERF_RECORD_MMAP2: // written opaque above
					got.Mmap2++
				case err == nil && d.Sample != nil:
					got.Samples++
				case err == nil && d.Header.Type == uapi.PERF_RECORD_COMM && d.Header.Misc&uapi.PERF_RECORD_MISC_COMM_EXEC != 0:
					got.CommExec++
				case err == nil && d.Header.Type == uapi.PERF_RECORD_COMM:
					got.Comms++
				case err == nil && d.Header.Type == uapi.PERF_RECORD_EXIT:
					got.Exits++
				default:
					t.Errorf("unexpected record % x: %v", r[:8], err)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("records kept (-real perf +model):\n%s", diff)
			}
		})
	}
}
