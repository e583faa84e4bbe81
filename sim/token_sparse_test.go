package sim

import (
	"testing"

	"pgregory.net/rapid"
)

// EncodeSparseToken makes the token EncodeToken makes of the dense list.
func TestEncodeSparseTokenEqualsDense(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dense := rapid.SliceOfN(rapid.IntRange(0, 3), 0, 200).Draw(t, "decisions")
		var at, d []int
		for i, v := range dense {
			if v != 0 {
				at, d = append(at, i), append(d, v)
			}
		}
		if got, want := EncodeSparseToken(at, d), EncodeToken(dense); got != want {
			t.Fatalf("sparse %q, dense %q", got, want)
		}
	})
}
