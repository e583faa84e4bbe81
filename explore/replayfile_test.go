package explore

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"perfsim/sim"
)

// testReplayFile is a format 2 file of a made-up run of five decisions.
func testReplayFile() *ReplayFile {
	q := &Questions{}
	for _, x := range []Question{{"tie", 2}, {"perf_mmap:mmap_mutex", 3}, {"tie", 2}, {"nmi-skid", 2}, {"tie", 2}} {
		q.Add(x.N, x.What)
	}
	knobs := []string{"a=b", "c=d"}
	return &ReplayFile{Format: ReplayFormat, Version: Version, Scenario: "rb-zero-pages", File: "builtin/rb-zero-pages.sim",
		ScenarioSHA256: strings.Repeat("ab", 32), Kernel: []string{"c=d"}, Knobs: knobs, KnobsSHA256: KnobsSHA256(knobs),
		Strategy: "random", Seed: 7, Limit: 20 * sim.Millisecond, LimitSHA256: LimitSHA256(20 * sim.Millisecond), Violation: "invariant x at 1us: y", Signature: "invariant x",
		Questions: q, QuestionsSHA256: q.SHA256(), Disturbing: []string{"0.000001 cpu0 choice  perf_mmap:mmap_mutex: option 2 of 3"},
		Decisions: []int{0, 2, 0, 1}}
}

func writeReplayFile(t *testing.T, f *ReplayFile) string {
	t.Helper()
	var b bytes.Buffer
	if _, err := f.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// replayFileCmp compares parsed replay files: the questions by their
// sequence, not their index; Disturbing is written as comments only.
var replayFileCmp = []cmp.Option{
	cmp.AllowUnexported(ReplayFile{}),
	cmpopts.IgnoreFields(ReplayFile{}, "name", "lines", "Disturbing"),
	cmp.Comparer(func(a, b *Questions) bool {
		if a == nil || b == nil {
			return a == b
		}
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if a.At(i) != b.At(i) {
				return false
			}
		}
		return true
	}),
	cmpopts.EquateEmpty(),
}

func TestReplayFileRoundTrip(t *testing.T) {
	f := testReplayFile()
	text := writeReplayFile(t, f)
	for _, s := range []string{"format: 3\nsimrun: " + Version + "\n", "knob: a=b\nknob: c=d\n", "question: 2 tie\nquestion: 3 perf_mmap:mmap_mutex\nquestion: 2 nmi-skid\n",
		"decisions: 5\n", "#   0.000001 cpu0 choice  perf_mmap:mmap_mutex: option 2 of 3\n", "limit: 20ms\nlimit-sha256: " + LimitSHA256(20*sim.Millisecond) + "\n", "signature: invariant x\n"} {
		if !strings.Contains(text, s) {
			t.Errorf("written file lacks %q:\n%s", s, text)
		}
	}
	g, err := ParseReplayFile("x.replay", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f, g, replayFileCmp...); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if g.Line("token") != strings.Count(text, "\n") || g.Line("format") != 2 {
		t.Errorf("token on line %d, format on line %d:\n%s", g.Line("token"), g.Line("format"), text)
	}
}

// TestParseReplayFileErrors: a malformed file is an error naming its line,
// never another schedule.
func TestParseReplayFileErrors(t *testing.T) {
	good := writeReplayFile(t, testReplayFile())
	line := func(key string) string { // the line of key in good
		for _, l := range strings.Split(good, "\n") {
			if strings.HasPrefix(l, key+": ") {
				return l
			}
		}
		t.Fatalf("no %s line", key)
		return ""
	}
	edit := func(old, new string) string {
		if !strings.Contains(good, old) {
			t.Fatalf("no %q in the file", old)
		}
		return strings.Replace(good, old, new, 1)
	}
	tok := line("token")
	tests := []struct{ name, in, want string }{
		{"not key value", "scenario: x\nbogus line\n", `f.replay:2: expected "key: value", found "bogus line"`},
		{"no token", "scenario: x\n", `f.replay:2: expected a "token: s2...." line`},
		{"unknown key", edit("strategy: random\n", "stratgy: random\n"), `f.replay:11: unknown key "stratgy"`},
		{"twice", edit("seed: 7\n", "seed: 7\nseed: 8\n"), `f.replay:13: a second "seed" line (the first is line 12)`},
		{"seed", edit("seed: 7\n", "seed: x\n"), `f.replay:12: seed: expected a number, found "x"`},
		{"limit", edit("limit: 20ms\n", "limit: soon\n"), `f.replay:13: limit: expected a duration like 20ms, found "soon"`},
		{"limit edited", edit("limit: 20ms\n", "limit: 10ms\n"), `f.replay:14: limit-sha256 is not the hash of the limit line (line 13): the file was edited`},
		{"limit longer", edit("limit: 20ms\n", "limit: 1s\n"), `f.replay:14: limit-sha256 is not the hash of the limit line (line 13): the file was edited`},
		{"limit removed", edit("limit: 20ms\n", ""), `f.replay:13: limit-sha256 without a limit line: the file was edited`},
		{"limit hash removed", edit(line("limit-sha256")+"\n", ""), `f.replay:25: expected a "limit-sha256" line (format 3)`},
		// deleted together they would replay to the default limit unnoticed
		{"both limit lines removed", edit("limit: 20ms\n"+line("limit-sha256")+"\n", ""), `f.replay:24: expected a "limit" line (format 3)`},
		{"knob", edit("kernel: c=d\n", "kernel: c\n"), `f.replay:7: kernel: expected NAME=VALUE, found "c"`},
		{"hash", edit(line("scenario-sha256"), "scenario-sha256: abc"), `f.replay:6: scenario-sha256: expected 64 lowercase hex digits, found "abc"`},
		{"format too new", edit("format: 3\n", "format: 4\n"), `f.replay:2: format: format 4 is newer than this simrun's (3, version ` + Version + `): replay it with the simrun that wrote it`},
		{"format not first", edit("format: 3\nsimrun: "+Version+"\n", "simrun: "+Version+"\nformat: 3\n"), `f.replay:3: format: the format line must come first`},
		{"format 3 without", edit("signature: invariant x\n", ""), `f.replay:25: expected a "signature" line (format 3)`},
		{"knob edited", edit("knob: a=b\n", "knob: a=c\n"), `f.replay:10: knobs-sha256 is not the hash of the knob lines: the file was edited`},
		{"question edited", edit("question: 2 nmi-skid\n", "question: 2 nmi-skip\n"), `f.replay:20: questions-sha256 is not the hash of the questions: the file was edited`},
		{"decisions", edit("decisions: 5\n", "decisions: 6\n"), `f.replay:24: question-ids: 5 decisions, 6 recorded`},
		{"question ids", edit(line("question-ids"), "question-ids: AAAA"), `f.replay:24: question-ids: not a deflated stream: unexpected EOF`},
		{"question twice", edit("question: 2 nmi-skid\n", "question: 2 tie\n"), `f.replay:23: question: "tie" with 2 options is listed twice`},
		{"question", edit("question: 2 nmi-skid\n", "question: 1 nmi-skid\n"), `f.replay:23: question: expected "OPTIONS QUESTION" (at least 2 options), found "1 nmi-skid"`},
		{"token cut short", edit(tok, tok[:len(tok)-1]), `f.replay:25: replay token: illegal base64 data at input byte 12`},
		{"token cut shorter", edit(tok, tok[:len(tok)-3]), `f.replay:25: replay token: checksum mismatch: the token was cut short or changed`},
		{"token cut to its prefix", edit(tok, "token: s2."), `f.replay:25: replay token: too short: cut off, or not a token`},
		{"token too long", edit(tok, "token: "+sim.EncodeToken([]int{0, 0, 0, 0, 0, 1})), `f.replay:25: token: 6 decisions, but the run recorded 5`},
		{"option out of range", edit(tok, "token: "+sim.EncodeToken([]int{2})), `f.replay:25: token: decision #0 takes option 2, but its question tie has 2 options`},
		{"s1 token in format 3", edit(tok, "token: s1.AAUC"), `f.replay:25: token: format 3 carries s2 tokens, which a cut or a typo cannot turn into another schedule; found "s1.AAU"...`},
		{"format 1 with a format 2 key", "file: x.sim\nsignature: y\ntoken: s2.ANIC740\n", `f.replay:2: signature in a file without a "format: 3" line`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseReplayFile("f.replay", strings.NewReader(tt.in))
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v\nwant    %s", err, tt.want)
			}
		})
	}
}

// TestReplayFileLimit: limit-sha256 is of the limit, not its spelling; a
// format 2 file still parses without limit-sha256 (written before the hash)
// and even without its limit line (Replay notes either), and one that has
// the hash is held to it as a format 3 file is.
func TestReplayFileLimit(t *testing.T) {
	good := writeReplayFile(t, testReplayFile())
	hash := "limit-sha256: " + LimitSHA256(20*sim.Millisecond) + "\n"
	format2 := strings.Replace(good, "format: 3\n", "format: 2\n", 1)
	tests := []struct {
		name, in string
		limit    sim.Time
		hash     string
		err      string
	}{
		{name: "respelled", in: strings.Replace(good, "limit: 20ms\n", "limit: 20000us\n", 1), limit: 20 * sim.Millisecond, hash: LimitSHA256(20 * sim.Millisecond)},
		{name: "format 2 hashed", in: format2, limit: 20 * sim.Millisecond, hash: LimitSHA256(20 * sim.Millisecond)},
		{name: "format 2 hashed edited", in: strings.Replace(format2, "limit: 20ms\n", "limit: 5ms\n", 1),
			err: `f.replay:14: limit-sha256 is not the hash of the limit line (line 13): the file was edited`},
		{name: "format 2 hash without a limit", in: strings.Replace(format2, "limit: 20ms\n"+hash, "limit-sha256: "+LimitSHA256(0)+"\n", 1),
			err: `f.replay:13: limit-sha256 without a limit line: the file was edited`},
		{name: "format 2 unhashed", in: strings.Replace(format2, hash, "", 1), limit: 20 * sim.Millisecond},
		{name: "format 2 no limit", in: strings.Replace(format2, "limit: 20ms\n"+hash, "", 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(good, hash) {
				t.Fatalf("no %q in\n%s", hash, good)
			}
			g, err := ParseReplayFile("f.replay", strings.NewReader(tt.in))
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Errorf("error = %v\nwant    %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g.Limit != tt.limit || g.LimitSHA256 != tt.hash {
				t.Errorf("limit %v, hash %q; want %v, %q", g.Limit, g.LimitSHA256, tt.limit, tt.hash)
			}
			// it writes out as it was read, and parses back
			again, err := ParseReplayFile("g.replay", strings.NewReader(writeReplayFile(t, g)))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(g, again, replayFileCmp...); diff != "" {
				t.Errorf("written and read again (-want +got):\n%s", diff)
			}
		})
	}
}

// A format 1 file (written before the identity) still parses: Replay then
// refuses it unless forced.
func TestParseReplayFileFormat1(t *testing.T) {
	g, err := ParseReplayFile("old.replay", strings.NewReader("# perfsim replay file\nscenario: x\nfile: x.sim\nkernel: a=b\nstrategy: random\nseed: 3\nlimit: 10s\nviolation: v\ntoken: s1.ABYC\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := &ReplayFile{Format: 1, Scenario: "x", File: "x.sim", Kernel: []string{"a=b"}, Strategy: "random", Seed: 3, Limit: 10 * sim.Second, Violation: "v",
		Decisions: append(make([]int, 22), 1)} // s1.ABYC: a run of 22 zeros, then 1
	if diff := cmp.Diff(want, g, replayFileCmp...); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// FuzzParseReplayFile: any input parses or fails with an error naming the
// file; what parses writes out and parses again to the same file.
func FuzzParseReplayFile(f *testing.F) {
	f.Add("# perfsim replay\nscenario: aux-pause-resume-nmi\ntoken: s1.AAgC\n")
	f.Add("scenario: x\nkernel: a=b\nkernel: c=d\nviolation: invariant x: y\ntoken: s1.\n")
	f.Add("\n\n# comment only\n")
	f.Add("token\n")
	f.Add("file: x.sim\ntoken: s2.BQACBAABAs3jZIM\n")
	f.Add("file: x.sim\ntoken: s2.BQACBAABAs3jZI\n") // cut short
	f.Add("file: x.sim\ntoken: s1.ABY\n")
	var b bytes.Buffer
	if _, err := testReplayFile().WriteTo(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.String())
	f.Fuzz(func(t *testing.T, in string) {
		rf, err := ParseReplayFile("f.replay", strings.NewReader(in))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.replay:") {
				t.Fatalf("error without the file name and line: %v", err)
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
		// The token written ends at the last non-zero decision (sim.EncodeToken):
		// the trailing zeros a replay answers with the default anyway.
		for len(rf.Decisions) > 0 && rf.Decisions[len(rf.Decisions)-1] == 0 {
			rf.Decisions = rf.Decisions[:len(rf.Decisions)-1]
		}
		if len(rf.Decisions) == 0 {
			rf.Decisions = nil
		}
		// the decisions first, cheaply: a token may hold millions (a zero
		// run up to maxTokenDecisions), which cmp.Diff walks for seconds
		if !slices.Equal(rf.Decisions, again.Decisions) {
			t.Fatalf("after a round trip: %d decisions, then %d", len(rf.Decisions), len(again.Decisions))
		}
		rf.Decisions, again.Decisions = nil, nil
		if diff := cmp.Diff(rf, again, replayFileCmp...); diff != "" {
			t.Fatalf("after a round trip (-first +second):\n%s", diff)
		}
	})
}
