package pt_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"perfsim/pmu"
	"perfsim/pmu/pt"
)

// TestTraceSpanBytes: a span is the packets the SDM defines, byte for byte
// (checked against perf script -D's dump of the same bytes: "PSB", "TSC
// 0x1004", "PSBEND", "MODE.Exec IF:0 64", "TIP.PGE 0x401650", "FUP 0x1650",
// "TIP.PGD no ip").
func TestTraceSpanBytes(t *testing.T) {
	got := pt.AppendTraceSpan(nil, pt.TraceSpanLen(true), 0x1004, 0x401650, true, func(int) uint64 { return 0x1004 }, nil)
	want := []byte{
		2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, // PSB
		0x19, 0x04, 0x10, 0, 0, 0, 0, 0, // TSC
		2, 0x23, // PSBEND
		0x99, 0x01, // MODE.Exec 64-bit
		0x71, 0x50, 0x16, 0x40, 0, 0, 0, // TIP.PGE, IPBytes 011
		0x3d, 0x50, 0x16, // FUP, IPBytes 001
		0x01, // TIP.PGD, IP suppressed
	}
	if !bytes.Equal(got, want) || len(got) != pt.TraceSpanLen(true) {
		t.Errorf("span\n got % x\nwant % x", got, want)
	}
	ps, errs := pt.Decode(got)
	type pk struct {
		Kind pt.Kind
		IP   uint64
		TSC  uint64
	}
	var kinds []pk
	for _, p := range ps {
		kinds = append(kinds, pk{p.Kind, p.IP, p.TSC})
	}
	wantK := []pk{{pt.KindPSB, 0, 0}, {pt.KindTSC, 0, 0x1004}, {pt.KindPSBEND, 0, 0}, {pt.KindMODE, 0, 0},
		{pt.KindTIPPGE, 0x401650, 0}, {pt.KindFUP, 0x401650, 0}, {pt.KindTIPPGD, 0, 0}}
	if d := cmp.Diff(wantK, kinds); d != "" || errs != 0 {
		t.Errorf("decoded (-want +got), %d errors:\n%s", errs, d)
	}
}

// TestDecodeKernelIP: a kernel address survives the 48-bit sign extension
// and the 16-bit compression against it.
func TestDecodeKernelIP(t *testing.T) {
	ip := uint64(pmu.KernelText + 42*pmu.ImageSlotSize)
	ps, errs := pt.Decode(pt.AppendTraceSpan(nil, pt.TraceSpanLen(true), 1, ip, true, func(int) uint64 { return 1 }, nil))
	if errs != 0 || ps[4].IP != ip || ps[5].IP != ip {
		t.Fatalf("PGE %#x FUP %#x (%d errors), want %#x", ps[4].IP, ps[5].IP, errs, ip)
	}
}

// TestDecodeSync: bytes before the first PSB are skipped; a byte that is
// no packet is one error and the walk resumes at the next PSB; a packet cut
// by the end is no error.
func TestDecodeSync(t *testing.T) {
	span := pt.AppendTraceSpan(nil, pt.TraceSpanLen(true), 7, spanIP(true, 1), true, func(int) uint64 { return 7 }, nil)
	b := append([]byte{0x19, 0xff, 0x07}, span...) // a torn TSC before the PSB
	b = append(b, 0xc9)                            // no packet starts c9 (odd, not CYC, TIP family type 01001 unknown)
	b = append(b, span...)
	b = append(b, span[:20]...) // cut inside the TSC of the PSB+
	ps, errs := pt.Decode(b)
	pges := 0
	for _, p := range ps {
		if p.Kind == pt.KindTIPPGE {
			pges++
		}
	}
	if errs != 1 || pges != 2 || ps[0].Off != 3 {
		t.Errorf("errors %d, TIP.PGEs %d, first packet at %d: want 1, 2, 3", errs, pges, ps[0].Off)
	}
}

// TestEncodeDecodeProperty: any sequence of spans, TSCs and PADs decodes to
// the spans' IPs and times.
func TestEncodeDecodeProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var b []byte
		var want []uint64
		n := rapid.IntRange(1, 20).Draw(rt, "n")
		for i := 0; i < n; i++ {
			ip := spanIP(rapid.Bool().Draw(rt, "user"), rapid.Uint64Range(0, 255).Draw(rt, "slot"))
			psb := i == 0 || rapid.Bool().Draw(rt, "psb")
			n := pt.TraceSpanLen(psb) + rapid.IntRange(0, 300).Draw(rt, "len")
			every := rapid.IntRange(30, 200).Draw(rt, "psb period")
			next := every
			tsc := rapid.Uint64Range(0, 1<<50).Draw(rt, "tsc")
			b = pt.AppendTraceSpan(b, n, tsc, ip, psb, func(off int) uint64 { return tsc + uint64(off) }, func(off int) bool {
				if off < next {
					return false
				}
				next = off + every
				return true
			})
			want = append(want, ip)
			b = append(b, make([]byte, rapid.IntRange(0, 5).Draw(rt, "pad"))...)
			if rapid.Bool().Draw(rt, "tsc") {
				b = pt.AppendTSC(b, 5)
			}
		}
		ps, errs := pt.Decode(b)
		var got []uint64
		for _, p := range ps {
			if p.Kind == pt.KindTIPPGE {
				got = append(got, p.IP)
			}
		}
		if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" || errs != 0 {
			rt.Fatalf("TIP.PGE IPs (-want +got), %d errors:\n%s", errs, d)
		}
	})
}

// FuzzDecode: the decoder never panics and every packet lies inside the
// bytes, in order, after the first PSB.
func FuzzDecode(f *testing.F) {
	f.Add(pt.AppendTraceSpan(nil, 100, 1, spanIP(true, 3), true, func(off int) uint64 { return uint64(off) }, func(off int) bool { return off == 60 }))
	f.Add(append(pt.PSB[:], 0xff, 0x03, 0x02, 0xa3, 1, 2, 3))
	f.Add([]byte{2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 0xdd, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, b []byte) {
		ps, _ := pt.Decode(b)
		end := 0
		for _, p := range ps {
			if p.Off < end || p.Len <= 0 || p.Off+p.Len > len(b) {
				t.Fatalf("packet %+v overlaps %d or lies outside %d bytes", p, end, len(b))
			}
			end = p.Off + p.Len
		}
	})
}

// Example: the packets of a stretch of user-mode trace of task 101, from
// its PSB+ on.
func Example() {
	b := pt.AppendTraceSpan(nil, pt.TraceSpanLen(true), 2000*pt.TSCPerNs, spanIP(true, 101), true, func(int) uint64 { return 2000 * pt.TSCPerNs }, nil)
	ps, errs := pt.Decode(b)
	names := map[pt.Kind]string{pt.KindPSB: "PSB", pt.KindTSC: "TSC", pt.KindPSBEND: "PSBEND", pt.KindMODE: "MODE.Exec",
		pt.KindTIPPGE: "TIP.PGE", pt.KindFUP: "FUP", pt.KindTIPPGD: "TIP.PGD"}
	for _, p := range ps {
		fmt.Printf("%-9s ip %#x tsc %d\n", names[p.Kind], p.IP, p.TSC)
	}
	fmt.Println("errors:", errs)
	// Output:
	// PSB       ip 0x0 tsc 0
	// TSC       ip 0x0 tsc 4000
	// PSBEND    ip 0x0 tsc 0
	// MODE.Exec ip 0x0 tsc 0
	// TIP.PGE   ip 0x555555555650 tsc 0
	// FUP       ip 0x555555555650 tsc 0
	// TIP.PGD   ip 0x0 tsc 0
	// errors: 0
}

// spanIP is the function in slot of the user or kernel image.
func spanIP(user bool, slot uint64) uint64 {
	if user {
		return pmu.UserText + slot*pmu.ImageSlotSize
	}
	return pmu.KernelText + slot*pmu.ImageSlotSize
}
