package coresight

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"
)

// TestUnitWriterMatchesAppendUnit: the writer the sinks use writes, for
// every unit of any source, the bytes appendUnit (and putFormatted) define,
// with the timestamp tsAt gives.
func TestUnitWriterMatchesAppendUnit(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.Uint64Range(1, 600).Draw(rt, "n")
		// spread over the 49 bits a timestamp packet carries
		since := rapid.Uint64Range(0, 1<<25).Draw(rt, "since") * 0x9e3779b97f4a7c15 & (1<<48 - 1)
		src := &unitSrc{cpu: rapid.IntRange(0, 254).Draw(rt, "cpu"), index: rapid.Uint32Range(0, 1000).Draw(rt, "index"), n: n,
			since: since, until: since + rapid.Uint64Range(2*n, 1<<40).Draw(rt, "dt"),
			addr: SpanAddr(true, 77), pid: 77, user: rapid.Bool().Draw(rt, "user"),
			cfg:      etmConfig{ts: rapid.Bool().Draw(rt, "ts"), ctxt: rapid.Bool().Draw(rt, "ctxt")},
			ctxFirst: rapid.Bool().Draw(rt, "ctxFirst")}
		k0 := rapid.Uint64Range(0, n-1).Draw(rt, "k0")
		for w := src.writer(k0); w.k < n; w.next() {
			if want := src.tsAt(w.k); w.ts != want {
				rt.Fatalf("unit %d: writer's timestamp %d, tsAt %d", w.k, w.ts, want)
			}
			var got, want [FrameSize]byte
			w.putFormatted(got[:], traceID(src.cpu))
			putFormatted(want[:], traceID(src.cpu), src.appendUnit(nil, w.k, formattedBytes))
			if got != want {
				rt.Fatalf("unit %d formatted: writer % x, appendUnit % x", w.k, got, want)
			}
			if raw, want := w.appendRaw(nil), src.appendUnit(nil, w.k, FrameSize); !bytes.Equal(raw, want) {
				rt.Fatalf("unit %d raw: writer % x, appendUnit % x", w.k, raw, want)
			}
		}
	})
}
