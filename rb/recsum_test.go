package rb

import (
	"testing"

	"pgregory.net/rapid"
)

// recSumWordAtATime is recSum as first written, a word a turn: the sum a
// commit and a read of the same bytes are matched by.
func recSumWordAtATime(b []byte) uint64 {
	h := uint64(len(b))*0x9e3779b97f4a7c15 ^ 0xcbf29ce484222325
	for len(b) >= 8 {
		h = (h ^ leU64(b)) * 0xbf58476d1ce4e5b9
		h ^= h >> 31
		b = b[8:]
	}
	for _, x := range b {
		h = (h ^ uint64(x)) * 0x94d049bb133111eb
		h ^= h >> 29
	}
	return h ^ h>>32
}

// Property: recSum, two words a turn, is the word-at-a-time sum, for any
// length (the tail of 1-15 bytes too).
func TestRecSumTwoWordsATurn(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		b := rapid.SliceOfN(rapid.Byte(), 0, 300).Draw(rt, "b")
		if got, want := recSum(b), recSumWordAtATime(b); got != want {
			rt.Fatalf("recSum(%d bytes) = %#x, want %#x", len(b), got, want)
		}
	})
}
