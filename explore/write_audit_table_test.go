package explore

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/scenarios"
)

// leafTable holds the write audit's snapshots, the last and the one being
// taken, in one open-addressed table keyed by leafKey: a leaf's entry has
// its hash in the snapshot that last saw it (gen) and in the one before
// that saw it (prevGen), so the walk finds what a leaf was in the previous
// snapshot and records what it is now with one probe. It replaces two Go
// maps (the previous snapshot and the next, filled afresh at every
// boundary), whose hashing was most of the audit's time; what it answers is
// the same: a leaf is in the previous snapshot iff its entry's latest gen
// before this walk is the previous walk's.
type leafTable struct {
	e    []leafEntry // len a power of two; gen 0: an empty slot
	n    int         // slots in use
	gen  uint32      // the walk being taken (1, 2, ...)
	mask uint64
}

type leafEntry struct {
	k            leafKey
	h, prevH     uint64
	gen, prevGen uint32
}

// begin starts the next snapshot's walk.
func (t *leafTable) begin() {
	t.gen++
	if t.e == nil {
		t.resize(1 << 12)
	}
}

// put records leaf k's hash h in the walk and returns the hash it had in
// the previous walk, and whether the previous walk saw it. A leaf met twice
// in one walk is compared with the previous walk each time and keeps its
// last hash, as a map of the walk assigned twice would.
func (t *leafTable) put(k leafKey, h uint64) (old uint64, inPrev bool) {
	if (t.n+1)*4 > len(t.e)*3 {
		t.grow()
	}
	i := t.hash(k)
	for {
		e := &t.e[i]
		if e.gen == 0 {
			*e = leafEntry{k: k, h: h, gen: t.gen}
			t.n++
			return 0, false
		}
		if e.k == k {
			if e.gen != t.gen {
				e.prevH, e.prevGen = e.h, e.gen
			}
			e.h, e.gen = h, t.gen
			return e.prevH, e.prevGen != 0 && e.prevGen == t.gen-1
		}
		i = (i + 1) & t.mask
	}
}

func (t *leafTable) hash(k leafKey) uint64 {
	x := (uint64(k.addr) ^ k.tag*0x9e3779b97f4a7c15) * 0xff51afd7ed558ccd
	return (x ^ x>>29) & t.mask
}

// grow rehashes the entries this walk or the previous one saw (an older
// entry answers no question any more: a leaf gone since) into a table
// with room for three times as many.
func (t *leafTable) grow() {
	live := 0
	for i := range t.e {
		if g := t.e[i].gen; g != 0 && g+1 >= t.gen {
			live++
		}
	}
	size := 1 << 12
	for size < live*3+3 {
		size <<= 1
	}
	old := t.e
	t.resize(size)
	for i := range old {
		if e := old[i]; e.gen != 0 && e.gen+1 >= t.gen {
			j := t.hash(e.k)
			for t.e[j].gen != 0 {
				j = (j + 1) & t.mask
			}
			t.e[j] = e
			t.n++
		}
	}
}

func (t *leafTable) resize(size int) {
	t.e = make([]leafEntry, size)
	t.mask = uint64(size - 1)
	t.n = 0
}

// TestLeafTableAsTwoMaps: the table answers as the two maps it replaced
// (the previous walk's leaves, and this walk's filled as it goes) over
// walks that keep, change, drop and revisit leaves, through its growths.
func TestLeafTableAsTwoMaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var tab leafTable
	var prev map[leafKey]uint64
	mismatches, compared := 0, 0
	for walk := range 30 {
		tab.begin()
		now := map[leafKey]uint64{}
		n := 2000 + rng.IntN(20000)
		for range n {
			k := leafKey{addr: uintptr(rng.IntN(30000)) * 8, tag: uint64(rng.IntN(3))}
			h := uint64(rng.IntN(4))
			old, ok := tab.put(k, h)
			wantOld, wantOK := prev[k]
			if walk == 0 {
				wantOK = false
			}
			now[k] = h
			compared++
			if ok != wantOK || (ok && old != wantOld) {
				mismatches++
			}
		}
		prev = now
	}
	if mismatches != 0 {
		t.Errorf("%d of %d lookups differ from the two maps'", mismatches, compared)
	}
}

// TestWriteAuditDeclaredOnlySame: the audit that snapshots only next to
// declared fragments (declaredOnly, what auditRunFile runs) checks the same
// fragments, as often, and finds the same violations and fragments ended
// elsewhere as the audit that snapshots at every boundary, on
// wake-code and user-code (3 and 2 CPUs; wake-ups, pipes, futexes, perf fd
// calls), where it skips some boundaries.
func TestWriteAuditDeclaredOnlySame(t *testing.T) {
	type outcome struct {
		Checked                    map[string]int
		Violations, EndedElsewhere []string
	}
	for _, tc := range []struct{ name, src string }{{"wake-code", wakeCodeSrc}, {"user-code", userCodeSrc}} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := scenarios.Parse(tc.name+".sim", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			var got [2]outcome
			var skipped [2]int
			for i, only := range []bool{false, true} {
				a, err := runWriteAudit(f, 3, only)
				if err != nil {
					t.Fatal(err)
				}
				got[i] = outcome{a.Checked, a.Violations, a.EndedElsewhere}
				skipped[i] = a.Skipped
			}
			if d := cmp.Diff(got[0], got[1]); d != "" {
				t.Errorf("every boundary (-) against declared fragments' only (+):\n%s", d)
			}
			if skipped[0] != 0 || skipped[1] == 0 {
				t.Errorf("boundaries skipped: %d with every boundary, %d declared only; want 0 and some", skipped[0], skipped[1])
			}
			if len(got[0].Checked) == 0 {
				t.Errorf("no declared fragment checked")
			}
		})
	}
}
