package rb

import "testing"

// TestPosIndexCommitList checks the checker's position table and chunked
// commit list against a map and a slice, over positions that repeat (a
// record rewritten at the same place chains to the one before) and enough
// commits to grow the table and fill several chunks.
func TestPosIndexCommitList(t *testing.T) {
	var l commitList
	var x posIndex
	x.init()
	want := map[uint64]int{}
	var all []commit
	state := uint64(7)
	for i := range 3*commitChunk + 17 {
		state = state*6364136223846793005 + 1442695040888963407
		pos := (state >> 40) % 5000 * 8
		prev, ok := x.get(&l, pos)
		if wp, wok := want[pos]; ok != wok || (ok && prev != wp) {
			t.Fatalf("commit %d at %#x: get = %d, %v; the map says %d, %v", i, pos, prev, ok, wp, wok)
		}
		if !ok {
			prev = -1
		}
		c := commit{pos: pos, sum: recSum([]byte{byte(i), byte(i >> 8)}), n: 2, seq: int32(i), prev: int32(prev)}
		l.add(c)
		all = append(all, c)
		x.put(&l, pos, l.len()-1)
		want[pos] = l.len() - 1
	}
	if l.len() != len(all) {
		t.Fatalf("len %d, added %d", l.len(), len(all))
	}
	for i, c := range all {
		if *l.at(i) != c {
			t.Fatalf("commit %d: %+v, added %+v", i, *l.at(i), c)
		}
	}
	for pos, i := range want {
		if got, ok := x.get(&l, pos); !ok || got != i {
			t.Fatalf("position %#x: %d, %v; want %d", pos, got, ok, i)
		}
	}
	if _, ok := x.get(&l, 5000*8); ok {
		t.Fatalf("a position never committed was found")
	}
	l.reset()
	x.clear()
	if l.len() != 0 || len(l.chunks) != 1 {
		t.Fatalf("after reset: %d commits in %d chunks", l.len(), len(l.chunks))
	}
	if _, ok := x.get(&l, all[0].pos); ok {
		t.Fatalf("after clear: a position was found")
	}
	// recSum tells records apart by their bytes and their length.
	if recSum([]byte{1, 2, 3, 4, 5, 6, 7, 8}) == recSum([]byte{1, 2, 3, 4, 5, 6, 7, 9}) ||
		recSum([]byte{0}) == recSum([]byte{0, 0}) {
		t.Fatalf("recSum: two different records sum the same")
	}
}
