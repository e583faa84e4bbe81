package explore

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReplayFileRoundTrip(t *testing.T) {
	f := &ReplayFile{Decisions: []int{0, 0, 3, 0, 1}}
	f.Add("scenario", "rb-zero-pages")
	f.Add("kernel", "a=b")
	f.Add("kernel", "c=d")
	var b bytes.Buffer
	if _, err := f.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	g, err := ParseReplayFile("x.replay", &b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f, g); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := g.All("kernel"); !cmp.Equal(got, []string{"a=b", "c=d"}) {
		t.Errorf("All(kernel) = %v", got)
	}
	_, err = ParseReplayFile("y.replay", strings.NewReader("scenario: x\nbogus line\n"))
	if err == nil || err.Error() != `y.replay:2:1: expected "key: value", found "bogus line"` {
		t.Errorf("error = %v", err)
	}
	_, err = ParseReplayFile("z.replay", strings.NewReader("scenario: x\n"))
	if err == nil || !strings.Contains(err.Error(), "z.replay:2:1: expected a \"token") {
		t.Errorf("error = %v", err)
	}
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

func trimTrailingZeros(ds []int) []int {
	for len(ds) > 0 && ds[len(ds)-1] == 0 {
		ds = ds[:len(ds)-1]
	}
	return ds
}
