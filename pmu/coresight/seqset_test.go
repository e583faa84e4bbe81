package coresight

import (
	"testing"

	"pgregory.net/rapid"
)

// TestSeqSetAddEqualsBitset: seqSet.add counts what a set of single Seqs
// counts (already in the set; of the others, in seen), and holds the same
// Seqs afterwards as ranges sorted, disjoint and not touching; union is the
// set union.
func TestSeqSetAddEqualsBitset(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var seen, cur seqSet
		var seenB, curB bitset
		for range rapid.IntRange(0, 20).Draw(rt, "seen") {
			lo := rapid.Uint64Range(0, 300).Draw(rt, "lo")
			hi := lo + rapid.Uint64Range(0, 40).Draw(rt, "n")
			seen.add(lo, hi, nil)
			for q := lo; q < hi; q++ {
				seenB.add(q)
			}
		}
		for range rapid.IntRange(0, 20).Draw(rt, "adds") {
			lo := rapid.Uint64Range(0, 300).Draw(rt, "lo")
			hi := lo + rapid.Uint64Range(0, 40).Draw(rt, "n")
			wantS, wantSeen := 0, 0
			for q := lo; q < hi; q++ {
				switch {
				case curB.has(q):
					wantS++
				case seenB.has(q):
					wantSeen++
				}
				curB.add(q)
			}
			if gotS, gotSeen := cur.add(lo, hi, seen); gotS != wantS || gotSeen != wantSeen {
				rt.Fatalf("add [%d, %d): in the set %d, in seen %d; want %d, %d", lo, hi, gotS, gotSeen, wantS, wantSeen)
			}
			for i, r := range cur {
				if r.lo >= r.hi || i > 0 && cur[i-1].hi >= r.lo {
					rt.Fatalf("ranges %v: not sorted, disjoint and apart", cur)
				}
			}
		}
		seen.union(cur)
		for q := uint64(0); q < 400; q++ {
			if got, want := seen.count(q, q+1) == 1, seenB.has(q) || curB.has(q); got != want {
				rt.Fatalf("Seq %d after union: in %v, want %v", q, got, want)
			}
		}
	})
}
