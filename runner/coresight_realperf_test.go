package runner

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/perftool"
	"perfsim/pmu/coresight"
)

// csDump counts what a decoder found in the cs_etm trace of a perf.data, per
// trace ID: packets by type, E atoms, timestamps (first, last), the context
// ids of the address-with-context packets, and whether it met bytes before
// an A-sync.
type csDump map[int]*csIDCount

type csIDCount struct {
	ASync, TraceInfo, AddrCtx, TS, EAtoms int
	FirstTS, LastTS                       uint64
	CIDs                                  string
	NotSync                               bool
}

func (d csDump) id(id int) *csIDCount {
	if d[id] == nil {
		d[id] = &csIDCount{}
	}
	return d[id]
}

func (c *csIDCount) ts(v uint64) {
	if c.TS == 0 {
		c.FirstTS = v
	}
	c.LastTS = v
	c.TS++
}

func (c *csIDCount) cid(v uint32) {
	s := fmt.Sprintf("%#x", v)
	if !strings.Contains(","+c.CIDs+",", ","+s+",") {
		if c.CIDs != "" {
			c.CIDs += ","
		}
		c.CIDs += s
	}
}

var csBlockStart = regexp.MustCompile(`^\. \.\.\. CoreSight ETMV4I Trace data: size (0x[0-9a-f]+) bytes$`)

// csPacketLine splits "\tIdx:N; ID:xx;\tI_NAME : text" (ok false for any
// other line).
func csPacketLine(l string) (id int, name, text string, ok bool) {
	rest, ok := strings.CutPrefix(l, "\tIdx:")
	if !ok {
		return 0, "", "", false
	}
	_, rest, ok = strings.Cut(rest, "; ID:")
	if !ok {
		return 0, "", "", false
	}
	hex, rest, ok := strings.Cut(rest, ";\t")
	if !ok {
		return 0, "", "", false
	}
	n, err := strconv.ParseInt(hex, 16, 32)
	if err != nil {
		return 0, "", "", false
	}
	name, text, _ = strings.Cut(rest, " : ")
	return int(n), name, text, true
}

// parsePerfCSDump counts the packets of `perf script -D`'s CoreSight dumps.
// perf 6.1 dumps every queued buffer fragment again at each
// PERF_RECORD_AUXTRACE, so a dump seen before (same header and first
// packets) is counted once; it returns the counts, the bytes of the distinct
// dumps and the lines naming a packet error.
func parsePerfCSDump(t *testing.T, out []byte) (csDump, uint64, []string) {
	t.Helper()
	seen := map[string]bool{}
	d := csDump{}
	var errs []string
	var total uint64
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	in, skip := false, false
	var key []string
	for sc.Scan() {
		l := sc.Text()
		if m := csBlockStart.FindStringSubmatch(l); m != nil {
			in, skip, key = true, false, []string{l}
			n, _ := strconv.ParseUint(m[1], 0, 64)
			total += n
			continue
		}
		if !in {
			continue
		}
		if strings.HasSuffix(l, "RESET operation on trace decode path") {
			continue
		}
		if _, _, _, ok := csPacketLine(l); !ok {
			in = false
			continue
		}
		if key != nil {
			key = append(key, l)
			if len(key) < 4 {
				continue
			}
			k := strings.Join(key, "\n")
			lines := key[1:]
			key = nil
			if seen[k] {
				skip = true
				n, _ := strconv.ParseUint(csBlockStart.FindStringSubmatch(strings.SplitN(k, "\n", 2)[0])[1], 0, 64)
				total -= n
				continue
			}
			seen[k] = true
			for _, pl := range lines {
				errs = countPerfCSPacket(d, pl, errs)
			}
			continue
		}
		if skip {
			continue
		}
		errs = countPerfCSPacket(d, l, errs)
	}
	return d, total, errs
}

// countPerfCSPacket counts one packet line of perf's dump.
func countPerfCSPacket(d csDump, l string, errs []string) []string {
	id, name, text, _ := csPacketLine(l)
	c := d.id(id)
	switch name {
	case "I_ASYNC":
		c.ASync++
	case "I_TRACE_INFO":
		c.TraceInfo++
	case "I_ADDR_CTXT_L_64IS0":
		c.AddrCtx++
		if _, v, ok := strings.Cut(text, "CID="); ok {
			n, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), ";"), 0, 32)
			c.cid(uint32(n))
		}
	case "I_TIMESTAMP":
		_, v, _ := strings.Cut(text, "Updated val = ")
		n, _ := strconv.ParseUint(v, 0, 64)
		c.ts(n)
	case "I_NOT_SYNC":
		c.NotSync = true
	default:
		if strings.HasPrefix(name, "I_ATOM_") {
			_, pat, _ := strings.Cut(text, "; ")
			c.EAtoms += strings.Count(pat, "E")
			return errs
		}
		errs = append(errs, l)
	}
	return errs
}

// goCSDump decodes the AUXTRACE data of the perf.data with the Go side:
// a coresight.Deformatter over the frames (a barrier resets the stream, as OpenCSD's
// OCSD_DFRMTR_RESET_ON_4X_FSYNC), coresight.ParsePackets per trace ID
// stream from its first A-sync; it returns the counts and the bytes of the
// AUXTRACE buffers.
func goCSDump(t *testing.T, data []byte) (csDump, uint64) {
	t.Helper()
	f, err := perftool.ReadDataFile(data)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	d := csDump{}
	var nbuf uint64
	b := f.Data
	for off := 0; off+8 <= len(b); {
		typ, size := le.Uint32(b[off:]), int(le.Uint16(b[off+6:]))
		if size < 8 {
			t.Fatalf("record at %d: size %d", off, size)
		}
		if typ != perftool.RecordAuxtrace {
			off += size
			continue
		}
		n := int(le.Uint64(b[off+8:]))
		chunk := b[off+size : off+size+n]
		off += size + n
		nbuf += uint64(n)
		streams := map[byte][]byte{}
		var df coresight.Deformatter // the ID in force carries from frame to frame
		parse := func() {
			for id, s := range streams {
				pkts, skipped, err := coresight.ParsePackets(s, false)
				if err != nil {
					t.Errorf("ID %#x: %v", id, err)
				}
				c := d.id(int(id))
				if skipped > 0 {
					c.NotSync = true
				}
				for _, p := range pkts {
					switch p.Type {
					case coresight.PktASync:
						c.ASync++
					case coresight.PktTraceInfo:
						c.TraceInfo++
					case coresight.PktAddrCtx:
						c.AddrCtx++
						if p.HasCID {
							c.cid(p.CID)
						}
					case coresight.PktTimestamp:
						c.ts(p.TS)
					case coresight.PktAtom:
						for i := 0; i < p.Atoms; i++ {
							c.EAtoms += int(p.E >> i & 1)
						}
					}
				}
			}
			clear(streams)
		}
		for fo := 0; fo+coresight.FrameSize <= len(chunk); fo += coresight.FrameSize {
			segs, err := df.Frame(chunk[fo : fo+coresight.FrameSize])
			if err != nil { // the barrier: four FSYNCs
				parse()
				continue
			}
			for _, s := range segs {
				streams[s.ID] = append(streams[s.ID], s.Data...)
			}
		}
		parse()
	}
	return d, nbuf
}

// TestRealPerfDecodesCoreSight writes the perf.data of the cs_etm built-ins
// perf 6.1 can record and has the real perf 6.1 (OpenCSD) dump their trace
// with perf script -D: exit 0, no packet error, and per trace ID the same
// A-syncs, trace infos, address-with-context packets (context id: dd's pid),
// timestamps (count, first, last) and E atoms as the Go decoder finds in the
// same bytes; and --itrace=i1000 (through the images, --symfs) exits 0
// with nothing on stderr but the file's own warnings. Skipped without perf 6.1 on the PATH; -realperf.all
// adds coresight-snapshot-sched-out (seed 004's schedule).
func TestRealPerfDecodesCoreSight(t *testing.T) {
	perf := perf61(t, "the real perf (OpenCSD) is the judge of the simulated ETMv4 trace")
	names := []string{"coresight-sink-smaller-than-aux"} // a 4 MiB snapshot: about 10 s
	if *realPerfAll {
		names = append(names, "coresight-snapshot-sched-out") // 11 MiB, 20 million lines of perf script -D
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			_, dir, path := recordBuiltin61(t, name)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, nbuf := goCSDump(t, data)
			cmd := exec.Command(perf, "script", "-f", "-D", "-i", path)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("perf script -D: %v\n%s", err, stderr.String())
			}
			got, blocks, errs := parsePerfCSDump(t, out)
			if len(errs) > 0 {
				t.Errorf("perf script -D: %d packet errors, first %q", len(errs), errs[0])
			}
			if blocks != nbuf {
				t.Errorf("perf dumped %d distinct bytes of trace, the file has %d in AUXTRACE buffers", blocks, nbuf)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("per trace ID, Go decoder (-) vs perf script -D (+):\n%s", diff)
			}
			for id, c := range got {
				t.Logf("%s\tID %#x\tA-sync %d\ttrace info %d\taddr+ctxt %d (CID %s)\ttimestamps %d (%#x..%#x)\tE atoms %d\tnot-sync %v",
					name, id, c.ASync, c.TraceInfo, c.AddrCtx, c.CIDs, c.TS, c.FirstTS, c.LastTS, c.EAtoms, c.NotSync)
			}
			cmd = exec.Command(perf, "script", "-f", "--itrace=i1000", "-i", path, "--symfs", dir) // the images: TestRealPerfFollowsCoreSightImages
			stderr.Reset()
			cmd.Stderr = &stderr
			if _, err := cmd.Output(); err != nil {
				t.Fatalf("perf script --itrace=i1000: %v\n%s", err, stderr.String())
			}
			for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				if l != "" && !strings.HasPrefix(l, "CS ETM: Couldn't find auxtrace buffer for aux_offset") &&
					l != "unwind: target platform=arm64 is not supported" {
					t.Errorf("perf script --itrace=i1000: %q", l)
				}
			}
		})
	}
}
