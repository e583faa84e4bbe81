package coresight

import (
	"testing"

	"pgregory.net/rapid"
)

// TestResolveHintIsACache: a Ledger that has answered earlier lookups (and
// so tries the unit after the last one found first) answers every timestamp
// as a fresh Ledger does: the unit with that timestamp, or none.
func TestResolveHintIsACache(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		l := newLedger(1, false)
		var seq, at uint64
		var all []uint64 // every unit's timestamp
		for p := range rapid.IntRange(1, 4).Draw(rt, "runs") {
			n := rapid.Uint64Range(1, 50).Draw(rt, "n")
			since := at + rapid.Uint64Range(0, 100).Draw(rt, "gap")
			until := since + rapid.Uint64Range(2*n, 10*n).Draw(rt, "dt")
			l.add(0, ledgerRun{period: p + 1, seq: seq, n: n, since: since, until: until})
			for k := range n {
				all = append(all, unitTS(since, until, n, k))
			}
			seq, at = seq+n, until
		}
		prev := -1
		for range rapid.IntRange(1, 200).Draw(rt, "lookups") {
			var ts uint64
			if rapid.Bool().Draw(rt, "unit") {
				i := rapid.IntRange(0, len(all)-1).Draw(rt, "i")
				if prev+1 < len(all) && rapid.IntRange(0, 3).Draw(rt, "in-order") > 0 {
					i = prev + 1 // a decoder reads a stream in order
				}
				prev = i
				ts = all[i]
				if rapid.Bool().Draw(rt, "next") {
					ts++ // between units, or the next one
				}
			} else {
				ts = rapid.Uint64Range(0, at+1).Draw(rt, "ts")
			}
			fresh := newLedger(1, false)
			fresh.cpus = l.cpus
			wf, wok := fresh.Resolve(0, ts)
			gf, gok := l.Resolve(0, ts)
			if wf != gf || wok != gok {
				rt.Fatalf("ts %d: %+v %v after earlier lookups, %+v %v fresh", ts, gf, gok, wf, wok)
			}
		}
	})
}
