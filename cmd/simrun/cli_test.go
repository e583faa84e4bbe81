package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var simrun string // the binary, built once

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "simrun-test")
	if err != nil {
		panic(err)
	}
	simrun = filepath.Join(dir, "simrun")
	// explore's failure corpus would make a test's second exploration of a
	// scenario find its violation at schedule 1: off unless a test sets it.
	os.Setenv("PERFSIM_CORPUS", "off")
	out, err := exec.Command("go", "build", "-o", simrun, ".").CombinedOutput()
	if err != nil {
		os.Stderr.Write(out)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cli runs the binary in dir and returns stdout, stderr and the exit code.
func cli(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	return cliTB(t, dir, args...)
}

func TestCLI(t *testing.T) {
	dir := t.TempDir() // not the package directory: built-ins work from anywhere
	broken := filepath.Join(dir, "broken.sim")
	os.WriteFile(broken, []byte("scenario broken\ntask a\n  compute 5x\n"), 0o644)
	good := filepath.Join(dir, "good.sim")
	os.WriteFile(good, []byte("scenario good\ntask a\n  compute 5us\nalways task.a.exited\n"), 0o644)
	// An event session r does not record: check and run refuse it at the name.
	badEvent := filepath.Join(dir, "bad-event.sim")
	os.WriteFile(badEvent, []byte("task a\n  syscall close 1000\nrecord r: -e cs,syscalls:sys_enter_close -- a\nalways r.perf.samples[sys_enter_close] == 1\n"), 0o644)
	failing := filepath.Join(dir, "failing.sim")
	os.WriteFile(failing, []byte("scenario failing\ntask a\n  compute 5us\nalways task.a.computed == 6us\n"), 0o644)
	tests := []struct {
		name string
		args []string
		code int
		out  []string // substrings of stdout
		err  []string // substrings of stderr
	}{
		{"no command", nil, 2, nil, []string{"usage:"}},
		{"unknown command", []string{"frobnicate"}, 2, nil, []string{`unknown command "frobnicate"`}},
		{"list", []string{"list"}, 0, []string{"sched-migrate-timeline", "task-work-nmi-race ", " an NMI's task_work lost"}, nil},
		{"run builtin", []string{"run", "sched-migrate-timeline", "--timeline"}, 0,
			[]string{"held           always task.dd.migrations == 4", "CPU3: ___________###dd-101####", "replay token: s2."}, nil},
		{"demo", []string{"demo"}, 0, []string{"VIOLATION in schedule 1 (seed 1)", "the recorded violation recurred: ", "demo: explore found seed 000's race"}, nil},
		{"run file", []string{"run", good}, 0, []string{"held           always task.a.exited", "ok"}, nil},
		{"run failing", []string{"run", failing}, 1, []string{"failed         always task.a.computed == 6us", "where task.a.computed=5000", "FAIL"}, nil},
		{"run broken", []string{"run", broken}, 2, nil, []string{"broken.sim:3:11: expected a duration like 5us or 2ms, found \"5x\"\n\t  compute 5x\n\t          ^"}},
		{"run bad knob", []string{"run", "task-work-nmi-race", "--kernel", "task-work-nmi=never"}, 2, nil, []string{`kernel knob task-work-nmi has no value "never"`}},
		{"run bad knob syntax", []string{"run", "task-work-nmi-race", "--kernel", "oops"}, 2, nil, []string{`expected NAME=VALUE`}},
		{"run missing", []string{"run", "no-such-scenario"}, 2, nil, []string{"no such file, and no built-in scenario"}},
		{"run two args", []string{"run", "a", "b"}, 2, nil, []string{"usage: simrun run"}},
		{"run script", []string{"run", "sched-migrate-timeline", "--script"}, 0, []string{"(no perf session in this scenario)"}, nil},
		{"run help", []string{"run", "-h"}, 0, nil, []string{"-seed"}},
		{"check", []string{"check", good, broken}, 2, []string{"good.sim: ok"}, []string{"broken.sim:3:11"}},
		{"check unknown event", []string{"check", badEvent}, 2, nil,
			[]string{`bad-event.sim:4:23: session r does not record an event named "sys_enter_close"; its events, as perf script -F event names them: cs, syscalls:sys_enter_close`}},
		{"run unknown event", []string{"run", badEvent}, 2, nil, []string{"bad-event.sim:4:23: session r does not record"}},
		{"check ok", []string{"check", good, "task-work-nmi-race"}, 0, []string{"good.sim: ok", "task-work-nmi-race: ok"}, nil},
		{"knobs", []string{"knobs"}, 0, []string{"kernel task-work-nmi=today (default)|pre-ef1ea98c8fff", "source:  ef1ea98c8fff", "kernel rb-put-handle="}, nil},
		{"explore clean", []string{"explore", "task-work-nmi-race", "--runs", "50", "-q"}, 0,
			[]string{"Always           50         0  always task-work-before-user-return", "no violation in 50 schedules"}, nil},
		// rapid needs package testing's flags: simrun (not a test binary) refuses it.
		{"explore rapid", []string{"explore", "sched-migrate-timeline", "--strategy", "rapid", "--runs", "20", "--time", "60ms", "-q"}, 2,
			nil, []string{"simrun explore: --strategy rapid: rapid runs only under go test"}},
		{"explore bounded", []string{"explore", "task-work-nmi-race", "--strategy", "bounded", "-q"}, 0,
			[]string{"strategy bounded, 19 schedules", "no violation in 19 schedules: complete up to 2 disturbing decisions (not exhaustive: schedules with more were not run)\n"}, nil},
		{"explore bounded budget", []string{"explore", "task-work-nmi-race", "--strategy", "bounded", "--budget", "1", "-q"}, 0,
			[]string{"no violation in 7 schedules: complete up to 1 disturbing decision (not exhaustive"}, nil},
		{"explore bounded exhaustive", []string{"explore", "task-work-nmi-race", "--strategy", "bounded", "--budget", "5", "-q"}, 0,
			[]string{"no violation in 27 schedules: exhaustive, every schedule of the scenario (the bound of 5 disturbing decisions cut none; the most disturbing has 3)\n"}, nil},
		{"explore bounded json", []string{"explore", "task-work-nmi-race", "--strategy", "bounded", "--json", "-", "-q"}, 0,
			[]string{`"complete_up_to_budget": 2,`, `"exhausted": false,`, `"interrupted": false,`}, nil},
		{"explore bounded json exhaustive", []string{"explore", "task-work-nmi-race", "--strategy", "bounded", "--budget", "3", "--json", "-", "-q"}, 0,
			[]string{`"complete_up_to_budget": 3,`, `"exhausted": true,`, `"most_disturbing": 3,`}, nil},
		{"explore dpor", []string{"explore", "task-work-nmi-race", "--strategy", "dpor", "-q"}, 0,
			[]string{"strategy dpor, 27 schedules", "no violation in 27 schedules: exhaustive, one schedule of every class of equivalent interleavings (0 more stopped part way as equivalent to one run before)\n"}, nil},
		{"explore dpor runs", []string{"explore", "task-work-nmi-race", "--strategy", "dpor", "--runs", "5", "-q"}, 0,
			[]string{"no violation in 5 schedules (not exhaustive: the walk stopped at --runs or was interrupted; 0 more stopped part way as equivalent)\nfootprints: ", " had a complete one;",
				". With one CPU the walk reduces nothing whatever is declared"}, nil},
		{"explore dpor json", []string{"explore", "task-work-nmi-race", "--strategy", "dpor", "--json", "-", "-q"}, 0,
			[]string{`"strategy": "dpor",`, `"schedules": 27,`, `"exhausted": true,`, `"dpor_footprints": {`, `"cpus": 1`}, nil},
		{"explore dpor shard", []string{"explore", "task-work-nmi-race", "--strategy", "dpor", "--shard", "0/2", "-q"}, 2,
			nil, []string{"dpor walks one decision tree"}},
		// A focus no question contains would disturb nothing: the quiet schedule
		// alone, reported as a clean search. It is a usage error.
		{"explore bounded focus", []string{"explore", "task-work-nmi-race", "--strategy", "bounded", "--focus", "no-such-question", "-q"}, 2,
			nil, []string{"simrun explore: --focus \"no-such-question\" matches no question this scenario can ask: a step point label (simrun names steps), tie, nmi-skid"}},
		{"explore bounded focus ok", []string{"explore", "task-work-nmi-race", "--strategy", "bounded", "--focus", "__schedule:irqs-off", "-q"}, 0,
			[]string{"no violation in 7 schedules: complete up to 2 disturbing decisions, each at a question containing __schedule:irqs-off"}, nil},
		{"explore focus random", []string{"explore", "task-work-nmi-race", "--focus", "tie"}, 2,
			nil, []string{"simrun explore: --focus: only --strategy bounded focuses its disturbances (strategy random)\n"}},
		{"explore bounded runs", []string{"explore", "task-work-nmi-race", "--strategy", "bounded", "--runs", "5", "-q"}, 0,
			[]string{"no violation in 5 schedules (not complete: the search stopped at --runs"}, nil},
		{"explore jobs 0", []string{"explore", "task-work-nmi-race", "--jobs", "0"}, 2, nil, []string{"simrun explore: --jobs 0: expected at least 1 schedule at once\n"}},
		{"explore jobs -5", []string{"explore", "task-work-nmi-race", "--jobs", "-5"}, 2, nil, []string{"simrun explore: --jobs -5: expected at least 1 schedule at once\n"}},
		{"explore budget -1", []string{"explore", "task-work-nmi-race", "--budget", "-1"}, 2, nil, []string{"simrun explore: --budget -1: expected at least 1 disturbing decision\n"}},
		{"explore budget 0", []string{"explore", "task-work-nmi-race", "--strategy", "bounded", "--budget", "0"}, 2, nil,
			[]string{"simrun explore: --budget 0: no disturbing decision leaves only the quiet schedule; expected at least 1\n"}},
		{"explore runs 0", []string{"explore", "task-work-nmi-race", "--runs", "0"}, 2, nil, []string{"simrun explore: --runs 0: expected at least 1 schedule\n"}},
		{"explore help", []string{"explore", "-h"}, 0, nil, []string{"bounded has no seed"}},
		{"cost takes no arguments", []string{"cost", "extra"}, 2, nil, []string{"simrun cost: takes no arguments, found \"extra\"\n"}},
		{"a knob given twice", []string{"run", "task-work-nmi-race", "--kernel", "lockdep=on", "--kernel", "lockdep=off"}, 2, nil,
			[]string{"lockdep is set twice (lockdep=on, then lockdep=off): give it once"}},
		{"replay help", []string{"replay", "-h"}, 0, nil, []string{"-force"}},
		{"names steps", []string{"names", "steps"}, 0, []string{"perf_mmap_aux:has-aux\n", "raw_spin_lock:ctx->lock\n", "task_work_run:NAME\n"}, nil},
		{"names actions", []string{"names", "actions"}, 0, []string{"aux-munmap-tail SESSION SIZE [cpuN]\n    a thread of perf"}, nil},
		{"names all", []string{"names"}, 0, []string{"# actions\n", "# observables\n", "mmap.locked-vm\n    (integer) pages charged", "# invariants\n", "aux-pages-lifetime\n", "# PMUs\n", "intel_pt\n"}, nil},
		{"names syscalls", []string{"names", "syscalls"}, 0, []string{"prctl\n    nr 157 (option, arg2, arg3, arg4, arg5)\n", "uname\n    nr 63 (name); tracepoints syscalls:sys_enter_newuname, sys_exit_newuname\n", "PR_SET_NAME\n    constant 15 (0xf)\n"}, nil},
		{"names observables", []string{"names", "observables"}, 0, []string{"SESSION.perf.samples[EVENT]\n    (integer) PERF_RECORD_SAMPLE records in perf.data of one event, attributed by sample id (evlist__id2evsel()); " +
			"EVENT is written as perf script -F event names it: r.perf.samples[syscalls:sys_enter_close]"}, nil},
		{"names events", []string{"names", "events"}, 0, []string{"minor-faults\n    software event, config 5: a page fault"}, nil},
		{"names bad", []string{"names", "knobz"}, 2, nil, []string{`unknown kind "knobz"`}},
		{"explore json", []string{"explore", "aux-pause-resume-nmi", "--kernel", "aux-pause-guard=off", "--json", "-", "-q"}, 1,
			[]string{`"strategy": "random"`, `"failed": true`, `"schedule": 1`, `"token": "s2.`, `"signature": "invariant pmu-pause-resume-exclusive"`, `"interrupted": false`, `"outcome": "sometimes aux.pause_resume.calls > 0"`}, nil},
		{"explore bad time", []string{"explore", "task-work-nmi-race", "--time", "soon"}, 2, nil, []string{"--time: expected a duration"}},
		{"explore bad strategy", []string{"explore", "task-work-nmi-race", "--strategy", "dfs"}, 2, nil, []string{`unknown strategy "dfs"`}},
		{"replay missing", []string{"replay", filepath.Join(dir, "nope.replay")}, 2, nil, []string{"nope.replay"}},
		{"list perf", []string{"list"}, 0, []string{"rb-backward-read-race", "pmu-pause-output-rb-check", "seed-close-benchmark"}, nil},
		{"run perf builtin", []string{"run", "rb-zero-pages"}, 0, []string{"held           always rb.zero-pages > 0", "ok"}, nil},
		// data_head goes backwards in every run (judged by the file); the reader's
		// misparse needs explore (TestDataHeadBackwardsExplore).
		{"run perf old knob", []string{"run", "rb-data-head-backwards", "--kernel", "rb-put-handle=pre-1b038c6e05ff"}, 0,
			[]string{"held           when rb-put-handle=pre-1b038c6e05ff always rb.data-head-backwards > 0",
				"held           when rb-put-handle=pre-1b038c6e05ff never data-head-monotonic", "data-head-monotonic at", "ok"}, nil},
		{"knobs tool", []string{"knobs"}, 0, []string{"tool overwrite-reader=paused (default)|unpaused|verify", "kernel pause-output-rb-check=today (default)|posted"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := cli(t, dir, tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
			for _, s := range tt.out {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			for _, s := range tt.err {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errOut)
				}
			}
		})
	}
}

// TestCLIExploreReplay: explore finds the pre-fix violation and writes a replay
// file; replay prints the same violation and timeline, identically twice; the
// JSON of run is byte-identical across runs.
func TestCLIExploreReplay(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := cli(t, dir, "explore", "task-work-nmi-race", "--kernel", "task-work-nmi=pre-ef1ea98c8fff", "--runs", "100", "--out", "race.replay", "-q")
	if code != 1 {
		t.Fatalf("explore exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	// Under this machine's costs the NMI due at app's compute end is taken, at
	// the latest, where __schedule()'s context switch spends its time, so even
	// the quiet schedule loses the work: explore shrinks to 0 disturbances.
	for _, s := range []string{"VIOLATION in schedule 3 (seed 3)", "invariant task-work-before-user-return",
		"shrunk from 1 disturbing decisions (of 2) to 0 (of 0)", "replay file: race.replay"} {
		if !strings.Contains(out, s) {
			t.Errorf("explore output lacks %q:\n%s", s, out)
		}
	}
	rf, err := os.ReadFile(filepath.Join(dir, "race.replay"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rf), "kernel: task-work-nmi=pre-ef1ea98c8fff\n") || !strings.Contains(string(rf), "token: s2.") {
		t.Errorf("replay file:\n%s", rf)
	}
	r1, _, c1 := cli(t, dir, "replay", "race.replay")
	r2, _, c2 := cli(t, dir, "replay", "race.replay")
	if c1 != 1 || c2 != 1 || r1 != r2 {
		t.Errorf("replays: exit %d %d, outputs equal %v\n%s", c1, c2, r1 == r2, r1)
	}
	// The limit is the run's identity as the knobs are: an edited one is
	// refused, shorter (it stopped the replay at it) or longer (it replayed).
	for _, limit := range []string{"1ms", "20s"} {
		edited := strings.Replace(string(rf), "limit: 10s\n", "limit: "+limit+"\n", 1)
		if edited == string(rf) {
			t.Fatalf("no limit: 10s line:\n%s", rf)
		}
		if err := os.WriteFile(filepath.Join(dir, "edited.replay"), []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := cli(t, dir, "replay", "edited.replay")
		at := func(s string) string { return strconv.Itoa(1 + strings.Count(edited[:strings.Index(edited, s)], "\n")) }
		want := "simrun: edited.replay:" + at("limit-sha256:") +
			": limit-sha256 is not the hash of the limit line (line " + at("limit: ") + "): the file was edited\n"
		if code != 2 || out != "" || errOut != want {
			t.Errorf("limit %s: exit %d, want 2\nstdout %q\nstderr %q\nwant   %q", limit, code, out, errOut, want)
		}
	}
	for _, s := range []string{"invariant violations:\n  task-work-before-user-return at 1.501446ms on cpu0", "CPU0: ###",
		"the recorded violation recurred: invariant task-work-before-user-return\n"} {
		if !strings.Contains(r1, s) {
			t.Errorf("replay output lacks %q:\n%s", s, r1)
		}
	}

	var js [2]string
	for i := range js {
		name := filepath.Join(dir, "r.json")
		if _, e, c := cli(t, dir, "run", "sched-forced-interleavings", "--seed", "7", "--json", name); c != 0 {
			t.Fatalf("run --json exit %d: %s", c, e)
		}
		b, _ := os.ReadFile(name)
		js[i] = string(b)
	}
	if js[0] != js[1] {
		t.Error("run --json differs between two runs")
	}
	var res struct {
		Scenario string
		Token    string
		Outcomes []struct{ Status string }
	}
	if err := json.Unmarshal([]byte(js[0]), &res); err != nil || res.Scenario != "sched-forced-interleavings" || !strings.HasPrefix(res.Token, "s2.") || len(res.Outcomes) != 5 {
		t.Errorf("json %v: %+v", err, res)
	}
}

// TestCLIExplorePerf: on a perf built-in, explore with the knob of the patch as
// first posted finds the oops and exits 1 with a replay file; replay prints the
// same oops twice, identically; today's knob explores clean (exit 0).
func TestCLIExplorePerf(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := cli(t, dir, "explore", "pmu-pause-output-rb-check", "--kernel", "pause-output-rb-check=posted", "--runs", "1000", "-q")
	if code != 1 {
		t.Fatalf("explore exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, s := range []string{"VIOLATION in schedule", "kernel oops on cpu", "NULL pointer dereference in rb_toggle_paused()",
		"replay file: pmu-pause-output-rb-check.replay"} {
		if !strings.Contains(out, s) {
			t.Errorf("explore output lacks %q:\n%s", s, out)
		}
	}
	r1, _, c1 := cli(t, dir, "replay", "pmu-pause-output-rb-check.replay")
	r2, _, c2 := cli(t, dir, "replay", "pmu-pause-output-rb-check.replay")
	if c1 != 1 || c2 != 1 || r1 != r2 {
		t.Errorf("replays: exit %d %d, outputs equal %v\n%s", c1, c2, r1 == r2, r1)
	}
	for _, s := range []string{"BUG: kernel oops on cpu", "NULL pointer dereference in rb_toggle_paused()", "CPU0: "} {
		if !strings.Contains(r1, s) {
			t.Errorf("replay output lacks %q:\n%s", s, r1)
		}
	}
	out, errOut, code = cli(t, dir, "explore", "pmu-pause-output-rb-check", "--runs", "100", "-q")
	if code != 0 || !strings.Contains(out, "no violation in 100 schedules") {
		t.Errorf("today: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestCLIOutputFiles: run and replay write a Chrome trace (valid JSON with
// balanced slices) and the sessions' perf.data files (PERFILE2).
func TestCLIOutputFiles(t *testing.T) {
	dir := t.TempDir()
	trace, pd := filepath.Join(dir, "t.json"), filepath.Join(dir, "pd")
	if _, errOut, code := cli(t, dir, "run", "aux-pause-syscall", "--trace-json", trace, "--perf-data", pd); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	var tr struct {
		Events []struct {
			Ph  string `json:"ph"`
			Tid int    `json:"tid"`
		} `json:"traceEvents"`
	}
	b, err := os.ReadFile(trace)
	if err != nil || json.Unmarshal(b, &tr) != nil || len(tr.Events) == 0 {
		t.Fatalf("trace %s: %v, %d events", trace, err, len(tr.Events))
	}
	depth := map[int]int{}
	for _, e := range tr.Events {
		switch e.Ph {
		case "B":
			depth[e.Tid]++
		case "E":
			if depth[e.Tid]--; depth[e.Tid] < 0 {
				t.Fatalf("slice end without a begin on tid %d", e.Tid)
			}
		}
	}
	for tid, d := range depth {
		if d != 0 {
			t.Errorf("tid %d: %d slices left open", tid, d)
		}
	}
	data, err := os.ReadFile(filepath.Join(pd, "perf.data"))
	if err != nil || !strings.HasPrefix(string(data), "PERFILE2") {
		t.Errorf("perf.data: %v, starts %q", err, data[:min(8, len(data))])
	}
	// replay writes them too
	if _, errOut, code := cli(t, dir, "explore", "aux-pause-resume-nmi", "--kernel", "aux-pause-guard=off", "-q"); code != 1 {
		t.Fatalf("explore: exit %d: %s", code, errOut)
	}
	trace2 := filepath.Join(dir, "r.json")
	if _, errOut, code := cli(t, dir, "replay", "aux-pause-resume-nmi.replay", "--trace-json", trace2); code != 1 {
		t.Fatalf("replay: exit %d: %s", code, errOut)
	}
	if b, err := os.ReadFile(trace2); err != nil || !json.Valid(b) {
		t.Errorf("replay trace: %v", err)
	}
}

// TestCLIPerfDataVersionNote: run --perf-data names the attr size of what it
// wrote when an older perf would refuse it (today's 136-byte attrs: perf
// 6.1 says "8 bytes extra"), and says nothing for perf-version=6.1's.
func TestCLIPerfDataVersionNote(t *testing.T) {
	const note = `its attrs are 136 bytes, as today's perf writes them: a perf before 6.3 refuses the file ("file uses a more recent and unsupported ABI (8 bytes extra)"); --kernel perf-version=6.1 writes what perf 6.1 reads`
	dir := t.TempDir()
	for _, tc := range []struct {
		version string
		note    bool
	}{{"today", true}, {"6.1", false}} {
		out, errOut, code := cli(t, dir, "run", "inherit-stat-swap", "--perf-data", filepath.Join(dir, tc.version), "--kernel", "perf-version="+tc.version)
		if code != 0 {
			t.Fatalf("perf-version=%s: exit %d: %s", tc.version, code, errOut)
		}
		if strings.Contains(out, note) != tc.note {
			t.Errorf("perf-version=%s: the note printed %v, want %v:\n%s", tc.version, !tc.note, tc.note, out)
		}
	}
}
