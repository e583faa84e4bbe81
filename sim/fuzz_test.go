package sim

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// FuzzDecodeToken: any string decodes to a list or an error, never a panic,
// and a list it decodes encodes back to a token that decodes to the same list.
func FuzzDecodeToken(f *testing.F) {
	for _, s := range []string{"s1.", "s1.AAgC", "s1.ABkCAAQC", "s1.AHYCAAkC", "s2.AA", "", "s1.////", "s1.gICAgICAgICAAQ"} {
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
	})
}

func trimTrailingZeros(ds []int) []int {
	for len(ds) > 0 && ds[len(ds)-1] == 0 {
		ds = ds[:len(ds)-1]
	}
	return ds
}

// FuzzParseReplayFile: any input parses or fails with an error naming the
// file; what parses writes out and parses again to the same fields.
func FuzzParseReplayFile(f *testing.F) {
	f.Add("# perfsim replay\nscenario: aux-pause-resume-nmi\ntoken: s1.AAgC\n")
	f.Add("scenario: x\nknob: a=b\nknob: c=d\nviolation: invariant x: y\ntoken: s1.\n")
	f.Add("\n\n# comment only\n")
	f.Add("token\n")
	f.Fuzz(func(t *testing.T, in string) {
		rf, err := ParseReplayFile("f.replay", strings.NewReader(in))
		if err != nil {
			if !strings.Contains(err.Error(), "f.replay") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		var b bytes.Buffer
		if _, err := rf.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		again, err := ParseReplayFile("g.replay", &b)
		if err != nil {
			t.Fatalf("re-parsing what was written (%q): %v", b.String(), err)
		}
		if !slices.Equal(rf.Fields, again.Fields) || !slices.Equal(trimTrailingZeros(rf.Decisions), trimTrailingZeros(again.Decisions)) {
			t.Fatalf("fields %v %v, after a round trip %v %v", rf.Fields, rf.Decisions, again.Fields, again.Decisions)
		}
	})
}
