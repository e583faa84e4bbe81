package sim

import (
	"slices"
	"testing"
)

// FuzzDecodeToken: any string decodes to a list or an error, never a panic;
// a list it decodes encodes back to a token that decodes to the same list,
// and no proper prefix of that token decodes.
func FuzzDecodeToken(f *testing.F) {
	for _, s := range []string{"s1.", "s1.AAgC", "s1.ABkCAAQC", "s1.AHYCAAkC", "s2.AA", "", "s1.////", "s1.gICAgICAgICAAQ",
		"s2.ANIC740", "s2.BQACBAABAs3jZIM", "s2.BQACBAABAs3jZI", "s2.BQACBAABAs3jZ", "s2.", "s2.CwAKA5Wj4S0", "s1.ABYC", "s1.ABY"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		ds, err := DecodeToken(tok)
		if err != nil {
			return
		}
		again, err := DecodeToken(EncodeToken(ds))
		if err != nil {
			t.Fatalf("re-decoding %q: %v", EncodeToken(ds), err)
		}
		if !slices.Equal(trimTrailingZeros(ds), trimTrailingZeros(again)) {
			t.Fatalf("%q: %v, round trip %v", tok, ds, again)
		}
		enc := EncodeToken(ds)
		for n := len(tokenPrefix); n < len(enc); n++ {
			if cut, err := DecodeToken(enc[:n]); err == nil {
				t.Fatalf("%q cut to %q decoded to %v", enc, enc[:n], cut)
			}
		}
	})
}

func trimTrailingZeros(ds []int) []int {
	for len(ds) > 0 && ds[len(ds)-1] == 0 {
		ds = ds[:len(ds)-1]
	}
	return ds
}
