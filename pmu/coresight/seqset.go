package coresight

import (
	"slices"
	"sort"
)

// seqSet is a set of Seq values as ranges [lo, hi): sorted, neither
// overlapping nor touching. A snapshot's units are long stretches of
// consecutive Seqs (the Analyzer counts them a run at once), so a
// snapshot's set is a few ranges.
type seqSet []seqRange

type seqRange struct{ lo, hi uint64 }

// reach is the index of the first range ending at or after x (one that
// holds x or ends just before it).
func (s seqSet) reach(x uint64) int {
	return sort.Search(len(s), func(i int) bool { return s[i].hi >= x })
}

// count is how many of [lo, hi) s holds.
func (s seqSet) count(lo, hi uint64) int {
	n := uint64(0)
	for i := s.reach(lo); i < len(s) && s[i].lo < hi; i++ {
		if a, b := max(lo, s[i].lo), min(hi, s[i].hi); a < b {
			n += b - a
		}
	}
	return int(n)
}

// add adds [lo, hi) to s; it returns how many were in s already, and how
// many of the others seen holds.
func (s *seqSet) add(lo, hi uint64, seen seqSet) (inS, inSeen int) {
	if hi <= lo {
		return 0, 0
	}
	i := s.reach(lo)
	j, at := i, lo // at: where [lo, hi) is not known to be in s
	x := seqRange{lo, hi}
	for ; j < len(*s) && (*s)[j].lo <= hi; j++ {
		r := (*s)[j]
		if r.lo > at {
			inSeen += seen.count(at, r.lo)
		}
		if a, b := max(lo, r.lo), min(hi, r.hi); a < b {
			inS += int(b - a)
		}
		at = max(at, r.hi)
		x.lo, x.hi = min(x.lo, r.lo), max(x.hi, r.hi)
	}
	if at < hi {
		inSeen += seen.count(at, hi)
	}
	*s = slices.Replace(*s, i, j, x)
	return inS, inSeen
}

// union adds every range of t to s.
func (s *seqSet) union(t seqSet) {
	for _, r := range t {
		s.add(r.lo, r.hi, nil)
	}
}
