package explore

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// TestReplayFileLimitReplays: a replay stopped at the file's time limit is
// not the recorded run (which ended before its limit): a *LimitStopError
// naming the limit line and the decisions made against the recorded count,
// which says why by whether the file hashes its limit; not runner's advice
// to raise --time, a flag replay has not. A format 2 file without the hash
// replays to its end with a note, with its limit line or without one.
func TestReplayFileLimitReplays(t *testing.T) {
	f := loadBuiltin(t, "aux-pause-resume-nmi")
	text := writeReplayFile(t, foundReplay(t, f))
	hash := "limit-sha256: " + LimitSHA256(10*sim.Second) + "\n"
	limitLine := 1 + strings.Count(text[:strings.Index(text, "limit: 10s\n")], "\n")
	if !strings.Contains(text, "limit: 10s\n"+hash) {
		t.Fatalf("no limit: 10s and its hash:\n%s", text)
	}
	format2 := strings.Replace(text, "format: 3\n", "format: 2\n", 1)
	short := "limit: 3us\nlimit-sha256: " + LimitSHA256(3*sim.Microsecond) + "\n"
	stop := "x.replay:" + strconv.Itoa(limitLine) + ": the replay stopped at the file's time limit of 3us after 0 decisions " +
		"(tasks not exited: uname (sleeping), perf (runnable)); the recorded run made 61 decisions and ended before its limit, so this is not the recorded run: "
	recurred := "invariant pmu-pause-resume-exclusive"
	tests := []struct {
		name, in string
		stop     string   // the *LimitStopError
		notes    []string // or the notes of a replay that recurred
	}{
		{name: "hashed", in: strings.Replace(text, "limit: 10s\n"+hash, short, 1),
			stop: stop + "the limit is the recorded run's (limit-sha256), so the model runs longer now; explore again"},
		{name: "format 2 hashed", in: strings.Replace(format2, "limit: 10s\n"+hash, short, 1),
			stop: stop + "the limit is the recorded run's (limit-sha256), so the model runs longer now; explore again"},
		{name: "format 2 unhashed", in: strings.Replace(format2, "limit: 10s\n"+hash, "limit: 3us\n", 1),
			stop: stop + "the file has no limit-sha256, so its limit may have been edited; explore again to write a format 3 file"},
		{name: "format 2 unhashed full", in: strings.Replace(format2, hash, "", 1),
			notes: []string{"the file records no hash of its limit (line " + strconv.Itoa(limitLine) + "), so an edit of it cannot be told"}},
		{name: "format 2 no limit", in: strings.Replace(format2, "limit: 10s\n"+hash, "", 1),
			notes: []string{"the file has no limit line and no hash of one, so the replay runs to the default limit (10s) and a deleted limit cannot be told"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rf, err := ParseReplayFile("x.replay", strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			rp, err := Replay(f, rf, ReplayOptions{})
			if tt.stop != "" {
				var ls *LimitStopError
				if !errors.As(err, &ls) {
					t.Fatalf("error %v, want a *LimitStopError", err)
				}
				if d := cmp.Diff(tt.stop, err.Error()); d != "" {
					t.Errorf("(-want +got):\n%s", d)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.notes, rp.Notes); d != "" || rp.Signature != recurred || !rp.Recurred {
				t.Errorf("signature %q recurred %v; notes (-want +got):\n%s", rp.Signature, rp.Recurred, d)
			}
		})
	}
}
