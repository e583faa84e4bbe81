package coresight

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// pidTestHost is a testHost whose CPUs run pid 0x65.
type pidTestHost struct{ testHost }

func (h *pidTestHost) CurrentPID(int) int { return 0x65 }

// DumpPackets formats the packets of one trace ID's stream the way perf
// script -D prints OpenCSD's (Idx, ID, packet): at most max lines, then
// a count of the rest by type (synchronisation and context packets are all
// shown).
func dumpPackets(id byte, stream []byte, max int) string {
	var b strings.Builder
	pkts, skipped, err := ParsePackets(stream, false)
	if skipped > 0 {
		fmt.Fprintf(&b, "Idx:0; ID:%x;\tI_NOT_SYNC (%d bytes)\n", id, skipped)
	}
	rest := map[PacketType]int{}
	for i, p := range pkts {
		if i >= max && p.Type != PktAddrCtx && p.Type != PktASync && p.Type != PktTraceInfo {
			rest[p.Type]++
			continue
		}
		fmt.Fprintf(&b, "Idx:%d; ID:%x;\t%v", p.Off, id, p.Type)
		switch p.Type {
		case PktTimestamp:
			fmt.Fprintf(&b, " val=%#x", p.TS)
		case PktAddrCtx:
			fmt.Fprintf(&b, " Addr=%#016x EL%d CID=%#x", p.Addr, p.EL, p.CID)
		case PktAtom:
			for k := 0; k < p.Atoms; k++ {
				b.WriteString(map[uint32]string{0: " N", 1: " E"}[p.E>>k&1])
			}
		}
		b.WriteByte('\n')
	}
	for t := PktASync; t <= PktEvent; t++ {
		if rest[t] > 0 {
			fmt.Fprintf(&b, "... %d more %v\n", rest[t], t)
		}
	}
	if err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
	}
	return b.String()
}

// TestDecodedSnapshotGolden: an ETR snapshot of two periods on two CPUs
// (CPU1's with a switch to the kernel inside), 8 KiB each at 1 MiB/s, read
// back from the AUX buffer: the formatter frames deformatted per trace ID,
// the ETMv4 packets, and the Analyzer's report. -update rewrites it.
func TestDecodedSnapshotGolden(t *testing.T) {
	h := &pidTestHost{}
	d, err := New(Config{CPUs: 2, Sink: SinkETR, Rate: 1 << 20}, h)
	if err != nil {
		t.Fatal(err)
	}
	ev0 := newTestEvent(t, d, 0, 16, true)
	ev1 := newTestEvent(t, d, 1, 16, true)
	d.ModeSwitch(0, true)
	d.ModeSwitch(1, true)
	h.now = 1_000_000
	d.Start(0, ev0, 0)
	h.now += 7_812_500 // 8 KiB
	d.Stop(0, ev0, pmu.PERF_EF_UPDATE)
	d.Start(1, ev1, 0)
	h.now += 3_000_000
	d.ModeSwitch(1, false) // a syscall
	h.now += 4_812_500
	d.Stop(1, ev1, pmu.PERF_EF_UPDATE)
	var out strings.Builder
	var chunks []Chunk
	for _, ev := range []*testEvent{ev0, ev1} {
		head := ev.buf.AuxHead()
		data := ev.buf.AuxCopyOut(0, int(head))
		chunks = append(chunks, Chunk{CPU: ev.cpu, Data: data})
		streams := map[byte][]byte{}
		var ids []byte
		var df Deformatter
		for off := 0; off+FrameSize <= len(data); off += FrameSize {
			segs, err := df.Frame(data[off : off+FrameSize])
			if err != nil {
				t.Fatalf("cpu%d frame %d: %v", ev.cpu, off/FrameSize, err)
			}
			for _, s := range segs {
				if streams[s.ID] == nil {
					ids = append(ids, s.ID)
				}
				streams[s.ID] = append(streams[s.ID], s.Data...)
			}
		}
		fmt.Fprintf(&out, "AUX buffer cpu%d: %d bytes\n", ev.cpu, len(data))
		for _, id := range ids {
			out.WriteString(dumpPackets(id, streams[id], 24))
		}
	}
	r := d.NewAnalyzer().Analyze(chunks)
	fmt.Fprintf(&out, "report: %v frames=%d unresolved=%d ts=%#x..%#x\n", r, r.Frames, r.Unresolved, r.MinTS, r.MaxTS)
	path := filepath.Join("testdata", "decoded-snapshot.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if diff := cmp.Diff(string(want), out.String()); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
	if !r.Contiguous() || r.Dups != 0 || r.OutOrder != 0 || r.Unresolved != 0 || r.Frames != 2*8192/FrameSize {
		t.Errorf("report %v: frames %d unresolved %d", r, r.Frames, r.Unresolved)
	}
}
