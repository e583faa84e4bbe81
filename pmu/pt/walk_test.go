package pt_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"perfsim/pmu"
	"perfsim/pmu/pt"
)

// loopSpans appends loop spans at the ips, n bytes each, a PSB+ first and
// every psbEvery bytes; it returns the stream and the iterations encoded.
func loopSpans(ips []uint64, n, psbEvery int) ([]byte, uint64) {
	var b []byte
	var iters uint64
	next := psbEvery
	for i, ip := range ips {
		base := len(b)
		var it int
		b, it = pt.AppendLoopSpan(b, n, 100, ip, i == 0, true, func(off int) uint64 { return uint64(100 + base + off) }, func(off int) bool {
			if base+off < next {
				return false
			}
			next = base + off + psbEvery
			return true
		})
		iters += uint64(it)
	}
	return b, iters
}

// TestFollowLoopSpans: the walk through the images' loops follows every
// iteration the encoder wrote, in user and kernel text, across PSB+s, with
// no error.
func TestFollowLoopSpans(t *testing.T) {
	ips := []uint64{spanIP(true, 0), spanIP(false, 7), spanIP(true, 200)}
	b, iters := loopSpans(ips, 300, 128)
	tr := pt.Follow(b, pmu.ImageLoopAt)
	type got struct {
		IPs        []uint64
		Iterations uint64
		Errors     int
	}
	var g got
	for _, s := range tr.Spans {
		g.IPs = append(g.IPs, s.IP)
	}
	g.Iterations, g.Errors = tr.Iterations, tr.Errors
	if d := cmp.Diff(got{IPs: ips, Iterations: iters}, g); d != "" || iters == 0 {
		t.Errorf("Follow (-want +got), %d iterations encoded:\n%s", iters, d)
	}
}

// TestFollowErrors: each packet the loop's code does not allow is one
// error, and the walk goes on at the next IP.
func TestFollowErrors(t *testing.T) {
	user := spanIP(true, 1)
	start := func() []byte {
		b := pt.AppendPSBPlus(nil, 1)
		b, _ = pt.AppendLoopSpan(b, pt.TraceSpanLen(false)+8, 1, user, false, true, func(int) uint64 { return 1 }, nil)
		return b[:len(b)-4] // no FUP, TIP.PGD: the walk is at the loop's start
	}
	for _, tc := range []struct {
		name string
		tail []byte
		errs int
	}{
		{"an iteration", []byte{0x06, 0x2d, byte(user), byte(user >> 8)}, 0},
		{"two TNT bits, no TIP", []byte{0x0e}, 1},
		{"a not-taken bit", []byte{0x04}, 1},
		{"TNT then TNT", []byte{0x06, 0x06}, 1},
		{"a TIP before the TNT", []byte{0x2d, byte(user), byte(user >> 8)}, 1},
		{"a TIP out of the text", []byte{0x06, 0x2d, 0x34, 0x12}, 1},
		{"a FUP elsewhere", []byte{0x3d, byte(user + 16), byte((user + 16) >> 8)}, 1},
		{"a disable by a branch", []byte{0x01}, 1},
		{"OVF", []byte{0x02, 0xf3}, 1},
	} {
		b := append(start(), tc.tail...)
		tr := pt.Follow(b, pmu.ImageLoopAt)
		want := uint64(2) // the span's own
		if tc.errs == 0 {
			want++
		}
		if tr.Errors != tc.errs || tr.Iterations != want {
			t.Errorf("%s: %d errors, %d iterations; want %d, %d", tc.name, tr.Errors, tr.Iterations, tc.errs, want)
		}
	}
}

// TestFollowUnmappedCode: a TNT bit where no image has code is an error
// (perf: "Failed to get instruction"); the walk resumes at the TIP's IP
// and fails again at the next bit: one error per iteration.
func TestFollowUnmappedCode(t *testing.T) {
	b, iters := loopSpans([]uint64{0x401000}, 200, 1<<20)
	tr := pt.Follow(b, pmu.ImageLoopAt)
	if tr.Errors != int(iters) || tr.Iterations != 0 || iters == 0 {
		t.Errorf("%d errors, %d iterations; want %d, 0", tr.Errors, tr.Iterations, iters)
	}
}

// TestFollowProperty: any sequence of loop spans is walked whole, with the
// iterations the encoder reports.
func TestFollowProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 10).Draw(rt, "spans")
		var ips []uint64
		for i := 0; i < n; i++ {
			ips = append(ips, spanIP(rapid.Bool().Draw(rt, "user"), rapid.Uint64Range(0, 255).Draw(rt, "slot")))
		}
		b, iters := loopSpans(ips, pt.TraceSpanLen(true)+rapid.IntRange(0, 500).Draw(rt, "len"), rapid.IntRange(40, 400).Draw(rt, "psb"))
		tr := pt.Follow(b, pmu.ImageLoopAt)
		if tr.Errors != 0 || tr.Iterations != iters || len(tr.Spans) != n {
			rt.Fatalf("%d errors, %d iterations (want %d), %d spans (want %d)", tr.Errors, tr.Iterations, iters, len(tr.Spans), n)
		}
	})
}

// FuzzFollow: any bytes walk without a panic, and every iteration takes at
// least a TNT byte and a 3-byte TIP.
func FuzzFollow(f *testing.F) {
	b, _ := loopSpans([]uint64{spanIP(true, 3), spanIP(false, 9)}, 120, 60)
	f.Add(b)
	f.Add(append(b[:50:50], b[70:]...))
	f.Fuzz(func(t *testing.T, b []byte) {
		tr := pt.Follow(b, pmu.ImageLoopAt)
		if tr.Iterations*4 > uint64(len(b)) {
			t.Fatalf("%d iterations from %d bytes", tr.Iterations, len(b))
		}
	})
}

// ExampleFollow walks a span of the loop at main's address: a TIP.PGE, a
// TNT bit and a TIP per iteration, a FUP and TIP.PGD where the loop starts.
func ExampleFollow() {
	ip := uint64(pmu.UserText + 0xc80)
	b, iters := pt.AppendLoopSpan(nil, 64, 2000, ip, true, true, func(int) uint64 { return 2000 }, nil)
	tr := pt.Follow(b, pmu.ImageLoopAt)
	fmt.Printf("encoded %d iterations; walked %d in %d span at %#x, %d errors\n", iters, tr.Iterations, len(tr.Spans), tr.Spans[0].IP, tr.Errors)
	// Output:
	// encoded 3 iterations; walked 3 in 1 span at 0x555555555c80, 0 errors
}

// BenchmarkFollow: a walk of 1 MiB of loop trace, the size a throttled
// group's AUX area fills many times over (pt-throttle-group with
// aux-throttle=proposed walks about 15 MB). The walk keeps no slice of the
// packets it decodes: allocations do not grow with the trace.
func BenchmarkFollow(b *testing.B) {
	ips := []uint64{spanIP(true, 0), spanIP(false, 7), spanIP(true, 200)}
	trace, _ := loopSpans(ips, 1<<20/len(ips), 4096)
	b.SetBytes(int64(len(trace)))
	b.ReportAllocs()
	for b.Loop() {
		if tr := pt.Follow(trace, pmu.ImageLoopAt); tr.Errors != 0 {
			b.Fatalf("%d errors", tr.Errors)
		}
	}
}
