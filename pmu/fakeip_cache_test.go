package pmu

import (
	"strings"
	"testing"
)

// TestFakeIPCache: the addresses fakeIP gives through its cache are those of
// its maps, for the same name in other bytes, the same bytes in the other
// text, and names that share a cache entry.
func TestFakeIPCache(t *testing.T) {
	k := &Kernel{}
	names := []string{"main", "loop", "default_idle", "do_syscall_64", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q"}
	want := map[[2]string]uint64{}
	for round := range 3 {
		for _, n := range names {
			for _, kernel := range []bool{false, true} {
				name := n
				if round == 1 {
					name = strings.Clone(n)
				}
				got := k.fakeIP(name, kernel)
				key := [2]string{n, map[bool]string{false: "user", true: "kernel"}[kernel]}
				if w, ok := want[key]; ok && got != w {
					t.Errorf("round %d: fakeIP(%q, %v) = %#x, want %#x", round, n, kernel, got, w)
				}
				want[key] = got
				if slow := k.fakeIPSlow(n, kernel).ip; slow != got {
					t.Errorf("fakeIP(%q, %v) = %#x, its map says %#x", n, kernel, got, slow)
				}
			}
		}
	}
	if k.fakeIP("main", false) == k.fakeIP("main", true) {
		t.Error("main has one address in user and kernel text")
	}
}
