package explore

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/runner"
	"perfsim/scenarios"
)

// foundReplay explores aux-pause-resume-nmi with its guard off and returns
// the replay file of the violation, written and parsed back.
func foundReplay(t *testing.T, f *scenarios.File) *ReplayFile {
	t.Helper()
	ex, err := Explore(f, Options{Runs: 100, Seed: 1, Knobs: map[string]string{"aux-pause-guard": "off"}})
	if err != nil || ex.Found == nil {
		t.Fatalf("explore: %v, found %v", err, ex.Found)
	}
	return roundTrip(t, ex.ReplayFile())
}

// edited parses the built-in name with edits applied to its text.
func edited(t *testing.T, name string, edits ...string) *scenarios.File {
	t.Helper()
	src, err := scenarios.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	text := string(src.Src)
	for i := 0; i < len(edits); i += 2 {
		if !strings.Contains(text, edits[i]) {
			t.Fatalf("%s has no %q", name, edits[i])
		}
		text = strings.Replace(text, edits[i], edits[i+1], 1)
	}
	f, err := runner.Load(&scenarios.Source{Name: src.Name, Src: []byte(text)})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestReplayVerdicts: a replay says whether the recorded violation recurred;
// it refuses a file whose scenario or knobs changed unless forced, and stops
// at the first decision whose question is not the recorded one.
func TestReplayVerdicts(t *testing.T) {
	f := loadBuiltin(t, "aux-pause-resume-nmi")
	rf := foundReplay(t, f)
	if rf.Signature != "invariant pmu-pause-resume-exclusive" || rf.Questions.Len() != 61 || rf.Format != ReplayFormat {
		t.Fatalf("replay file: signature %q, %d questions, format %d", rf.Signature, rf.Questions.Len(), rf.Format)
	}
	type verdict struct {
		Changes   []string
		Notes     []string
		Diverged  *Divergence
		Signature string
		Recurred  bool
	}
	got := func(rp *Replayed) verdict {
		return verdict{rp.Changes, rp.Notes, rp.Diverged, rp.Signature, rp.Recurred}
	}
	hash := ScenarioSHA256(f)[:12]
	knobFile := *rf
	knobFile.Knobs = append([]string(nil), rf.Knobs...)
	for i, k := range knobFile.Knobs {
		if k == "vma-split=today" {
			knobFile.Knobs[i] = "vma-split=pre-b024d7b56c77"
		}
	}
	knobFile.KnobsSHA256 = KnobsSHA256(knobFile.Knobs)
	old := *rf
	old.Format, old.Questions, old.Signature = 1, nil, ""
	older := *rf
	older.Version = "0.1.0"

	tests := []struct {
		name    string
		sc      *scenarios.File
		rf      *ReplayFile
		refused string // the ChangedError, without --force
		want    verdict
	}{
		{"recurs", f, rf, "", verdict{Signature: "invariant pmu-pause-resume-exclusive", Recurred: true}},
		{"another version", f, &older, "", verdict{Notes: []string{"simrun 0.1.0 wrote the file; this is " + Version},
			Signature: "invariant pmu-pause-resume-exclusive", Recurred: true}},
		{"one more repeat", edited(t, "aux-pause-resume-nmi", "repeat 30", "repeat 31"), rf,
			"x.replay: not replayed: the scenario changed since the file was written: builtin/aux-pause-resume-nmi.sim hashes to sha256 ",
			verdict{Notes: []string{"the run went on past the 61 decisions of the recorded run, to 62"},
				Signature: "invariant pmu-pause-resume-exclusive", Recurred: true}}, // the violation comes in the first round
		{"another period", edited(t, "aux-pause-resume-nmi", "period=1500", "period=1600"), rf,
			"x.replay: not replayed: the scenario changed since the file was written",
			verdict{Diverged: &Divergence{Decision: 3, Want: Question{"perf_event_aux_pause:irqs-off", 2}, Got: Question{"exit_to_user_mode_loop", 2}}}},
		{"a knob's default", f, &knobFile,
			"x.replay: not replayed: knob vma-split was pre-b024d7b56c77 when the file was written, is today now (--force replays it anyway)",
			verdict{Changes: []string{"knob vma-split was pre-b024d7b56c77 when the file was written, is today now"},
				Signature: "invariant pmu-pause-resume-exclusive", Recurred: true}},
		{"format 1", f, &old,
			"x.replay: not replayed: the file was written by an older simrun and records neither a hash of the scenario nor its knobs, so a change cannot be told (explore again to write a new one) (--force replays it anyway)",
			verdict{Changes: []string{"the file was written by an older simrun and records neither a hash of the scenario nor its knobs, so a change cannot be told (explore again to write a new one)"},
				Signature: "invariant pmu-pause-resume-exclusive"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rp, err := Replay(tt.sc, tt.rf, ReplayOptions{})
			var ce *ChangedError
			switch {
			case tt.refused == "" && err != nil:
				t.Fatal(err)
			case tt.refused != "" && (!errors.As(err, &ce) || !strings.HasPrefix(err.Error(), tt.refused)):
				t.Fatalf("error %v, want a refusal starting %q", err, tt.refused)
			case tt.refused != "":
				if rp, err = Replay(tt.sc, tt.rf, ReplayOptions{Force: true}); err != nil {
					t.Fatal(err)
				}
			}
			v := got(rp)
			if strings.HasPrefix(tt.refused, "x.replay: not replayed: the scenario changed") {
				want := "the scenario changed since the file was written: builtin/aux-pause-resume-nmi.sim hashes to sha256 " +
					ScenarioSHA256(tt.sc)[:12] + ", the file records " + hash + " (line 6)"
				if len(v.Changes) != 1 || v.Changes[0] != want {
					t.Errorf("changes %q, want %q", v.Changes, want)
				}
				v.Changes = nil
			}
			if d := cmp.Diff(tt.want, v); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestKnobChanges names each knob that differs, is new or is gone.
func TestKnobChanges(t *testing.T) {
	got := knobChanges([]string{"a=1", "b=2", "gone=x"}, []string{"a=1", "b=3", "new=y"})
	want := []string{"knob b was 2 when the file was written, is 3 now", "knob gone (recorded x) no longer exists", "knob new (now y) is new since the file was written"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestQuestionsEncoding: a million decisions' questions take a few kilobytes
// in a replay file, and decode to the same sequence.
func TestQuestionsEncoding(t *testing.T) {
	q := &Questions{}
	for i := range 1 << 20 {
		switch {
		case i%7 == 3:
			q.Add(2, "syscall_enter_from_user_mode")
		case i%11 == 5:
			q.Add(3, "tie")
		default:
			q.Add(2, "exit_to_user_mode_loop")
		}
	}
	enc := q.encodeIDs()
	if len(enc) > 16<<10 {
		t.Errorf("%d decisions take %d bytes", q.Len(), len(enc))
	}
	ids, err := decodeIDs(enc, q.Len(), len(q.Table))
	if err != nil || !slices.Equal(ids, q.ids) { // not cmp: a million elements
		t.Errorf("decode: %v, equal %v", err, slices.Equal(ids, q.ids))
	}
	if _, err := decodeIDs(enc, q.Len()-1, len(q.Table)); err == nil || err.Error() != "more than the 1048575 decisions recorded" {
		t.Errorf("one decision short: %v", err)
	}
}
