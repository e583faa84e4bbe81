package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"perfsim/scenarios"
)

// TestCLIReplayVerdicts: replay says whether the recorded violation recurred
// (exit 1) or not (exit 4), refuses a file whose scenario changed or that is
// too old to tell (exit 2) unless --force, stops where the run leaves the
// recorded questions, and names the line of a malformed file; a run stopped
// at the file's time limit is no replay of the recorded run (exit 3), and a
// format 3 file without its limit lines is refused (exit 2), a format 2 one
// replayed with a note.
func TestCLIReplayVerdicts(t *testing.T) {
	dir := t.TempDir()
	b, ok := scenarios.LookupBuiltin("aux-pause-resume-nmi")
	if !ok {
		t.Fatal("no built-in aux-pause-resume-nmi")
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("mine.sim", string(b.Src))
	if out, errOut, code := cli(t, dir, "explore", "mine.sim", "--kernel", "aux-pause-guard=off", "--out", "m.replay", "-q"); code != 1 {
		t.Fatalf("explore: exit %d\n%s\n%s", code, out, errOut)
	}
	rf, err := os.ReadFile(filepath.Join(dir, "m.replay"))
	if err != nil {
		t.Fatal(err)
	}
	replay := string(rf)
	lines := strings.Split(replay, "\n")
	tokenLine, limitLine := 0, 0
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "token: "):
			tokenLine = i + 1
		case strings.HasPrefix(l, "limit: "):
			limitLine = i + 1
		}
	}
	tok := lines[tokenLine-1]
	write("cut.replay", strings.Replace(replay, tok, tok[:len(tok)-3], 1))
	write("old.replay", "scenario: aux-pause-resume-nmi\nfile: mine.sim\nkernel: aux-pause-guard=off\ntoken: s1.ABYC\n")
	write("edited.replay", strings.Replace(replay, "seed: 1\n", "seed: 1x\n", 1))
	limits := lines[limitLine-1] + "\n" + lines[limitLine] + "\n" // the limit and limit-sha256 lines
	write("nolimit.replay", strings.Replace(replay, limits, "", 1))
	// format 2, written before the limit was hashed: its limit edited shorter,
	// or both lines gone (blank lines keep the others' numbers)
	format2 := strings.Replace(replay, "format: 3\n", "format: 2\n", 1)
	write("limit2.replay", strings.Replace(format2, limits, "limit: 3us\n\n", 1))
	write("nolimit2.replay", strings.Replace(format2, limits, "\n\n", 1))

	type step struct {
		name  string
		edit  [2]string // an edit of mine.sim before the replay
		args  []string
		code  int
		out   []string
		err   []string
		noOut []string
	}
	for _, st := range []step{
		{name: "recurs", args: []string{"replay", "m.replay"}, code: 1,
			out: []string{"replaying: invariant pmu-pause-resume-exclusive", "the recorded violation recurred: invariant pmu-pause-resume-exclusive\n"}},
		{name: "repeat changed", edit: [2]string{"repeat 30", "repeat 31"}, args: []string{"replay", "m.replay"}, code: 2,
			err: []string{"simrun replay: m.replay: not replayed:\n  the scenario changed since the file was written: mine.sim hashes to sha256 ",
				"simrun replay: explore again to record this scenario, or --force to replay the file anyway\n"},
			noOut: []string{"replaying"}},
		// The violation comes in the first round, before the added one changes anything.
		{name: "repeat changed forced", edit: [2]string{"repeat 30", "repeat 31"}, args: []string{"replay", "m.replay", "--force"}, code: 1,
			out: []string{"the recorded violation recurred: invariant pmu-pause-resume-exclusive\n"},
			err: []string{"simrun replay: --force: the scenario changed since the file was written",
				"simrun replay: note: the run went on past the 61 decisions of the recorded run, to 62\n"}},
		{name: "period changed forced", edit: [2]string{"period=1500", "period=1600"}, args: []string{"replay", "--force", "m.replay"}, code: 4,
			out: []string{"the replay diverged and stopped at decision #3: the recorded run asked perf_event_aux_pause:irqs-off (2 options), this run asked exit_to_user_mode_loop (2 options)\n",
				"the recorded violation did not recur: the run left the recorded schedule first\n"}},
		{name: "token cut short", args: []string{"replay", "cut.replay"}, code: 2,
			err: []string{"cut.replay:" + strconv.Itoa(tokenLine) + ": replay token: checksum mismatch: the token was cut short or changed\n"}},
		{name: "limit lines deleted", args: []string{"replay", "nolimit.replay"}, code: 2,
			err: []string{"simrun: nolimit.replay:" + strconv.Itoa(len(lines)-2) + `: expected a "limit" line (format 3)` + "\n"}},
		{name: "format 2 limit cut", args: []string{"replay", "limit2.replay"}, code: 3,
			err: []string{"simrun replay: limit2.replay:" + strconv.Itoa(limitLine) + ": the replay stopped at the file's time limit of 3us after 0 decisions " +
				"(tasks not exited: uname (sleeping), perf (runnable)); the recorded run made 61 decisions and ended before its limit, so this is not the recorded run: " +
				"the file has no limit-sha256, so its limit may have been edited; explore again to write a format 3 file\n"},
			noOut: []string{"replaying"}},
		{name: "format 2 limit lines deleted", args: []string{"replay", "nolimit2.replay"}, code: 1,
			out: []string{"the recorded violation recurred: invariant pmu-pause-resume-exclusive\n"},
			err: []string{"simrun replay: note: the file has no limit line and no hash of one, so the replay runs to the default limit (10s) and a deleted limit cannot be told\n"}},
		{name: "step limit", args: []string{"replay", "m.replay", "--max-steps", "5"}, code: 3,
			err: []string{"simrun: stopped at the step limit of 5 steps at ", " (raise it with --max-steps)\n"}, noOut: []string{"replaying"}},
		{name: "bad step limit", args: []string{"replay", "m.replay", "--max-steps", "x"}, code: 2,
			err: []string{"simrun replay: --max-steps: expected a number of steps like 100000000 (0: no limit), found \"x\"\n"}, noOut: []string{"replaying"}},
		{name: "no time flag", args: []string{"replay", "m.replay", "--time", "1s"}, code: 2,
			err: []string{"flag provided but not defined: -time"}, noOut: []string{"replaying"}},
		{name: "malformed", args: []string{"replay", "edited.replay"}, code: 2, err: []string{`edited.replay:`, `: seed: expected a number, found "1x"`}},
		{name: "old file", args: []string{"replay", "old.replay"}, code: 2,
			err: []string{"simrun replay: old.replay: not replayed:\n  the file was written by an older simrun and records neither a hash of the scenario nor its knobs"}},
		// The old token's schedule (recorded with kernel work free) does not
		// break the guard under this machine's costs.
		{name: "old file forced", args: []string{"replay", "old.replay", "--force"}, code: 4,
			out: []string{"the recorded violation did not recur: this run held\n"},
			err: []string{"simrun replay: --force: the file was written by an older simrun"}},
	} {
		t.Run(st.name, func(t *testing.T) {
			text := string(b.Src)
			if st.edit[0] != "" {
				if !strings.Contains(text, st.edit[0]) {
					t.Fatalf("no %q in the scenario", st.edit[0])
				}
				text = strings.Replace(text, st.edit[0], st.edit[1], 1)
			}
			write("mine.sim", text)
			out, errOut, code := cli(t, dir, st.args...)
			if code != st.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, st.code, out, errOut)
			}
			for _, s := range st.out {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			for _, s := range st.noOut {
				if strings.Contains(out, s) {
					t.Errorf("stdout has %q:\n%s", s, out)
				}
			}
			for _, s := range st.err {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errOut)
				}
			}
		})
	}
}

// TestCLIExploreInterrupt: SIGINT or SIGTERM during a long clean search stops
// it: the summary of the schedules run so far is printed, --json says
// "interrupted": true, and the exit status is 130.
func TestCLIExploreInterrupt(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sig   syscall.Signal
		cause string
	}{
		{"SIGINT", syscall.SIGINT, "interrupt signal received"},
		{"SIGTERM", syscall.SIGTERM, "terminated signal received"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cmd := exec.Command(simrun, "explore", "task-work-nmi-race", "--runs", "100000000", "--jobs", "2", "--json", "x.json")
			cmd.Dir = dir
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// A second of its CPU time, not of the wall clock: on a loaded
			// machine a second of wall clock can pass before the first
			// schedule ends.
			waitCPUTime(t, cmd.Process.Pid, time.Second)
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("still running 30s after %s\n%s\n%s", tc.name, out.String(), errb.String())
			}
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != 130 {
				t.Errorf("exit %d, want 130\n%s\n%s", code, out.String(), errb.String())
			}
			for _, s := range []string{"explore task-work-nmi-race (builtin/task-work-nmi-race.sim): strategy random, seed 1, ",
				"INTERRUPTED (" + tc.cause + ") after ", "verdict    positive  negative  outcome\n", "\nno violation in "} {
				if !strings.Contains(out.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, out.String())
				}
			}
			var js struct {
				Schedules   int    `json:"schedules"`
				Interrupted bool   `json:"interrupted"`
				By          string `json:"interrupted_by"`
				Outcomes    []struct {
					Positive, Negative int
				} `json:"outcomes"`
			}
			b, err := os.ReadFile(filepath.Join(dir, "x.json"))
			if err != nil || json.Unmarshal(b, &js) != nil {
				t.Fatalf("x.json: %v\n%s", err, b)
			}
			if !js.Interrupted || js.By != tc.cause || js.Schedules < 1 || js.Schedules >= 100000000 ||
				len(js.Outcomes) != 5 || js.Outcomes[0].Positive+js.Outcomes[0].Negative != js.Schedules {
				t.Errorf("x.json: %+v", js)
			}
		})
	}
}

// waitCPUTime waits until process pid has run for d of CPU time (user and
// system, /proc/PID/stat), or a minute of wall clock has passed.
func waitCPUTime(t *testing.T, pid int, d time.Duration) {
	t.Helper()
	const tick = 10 * time.Millisecond // USER_HZ = 100
	for start := time.Now(); time.Since(start) < time.Minute; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			t.Fatalf("reading the CPU time of pid %d: %v", pid, err)
		}
		// Fields after the command's closing parenthesis: state is the 3rd
		// field, utime the 14th and stime the 15th.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		ut, err1 := strconv.ParseInt(f[11], 10, 64)
		st, err2 := strconv.ParseInt(f[12], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("pid %d stat: %q", pid, b)
		}
		if time.Duration(ut+st)*tick >= d {
			return
		}
	}
}
