package main

import (
	"bytes"
	"strings"
	"testing"
)

// cliFuzzCommands are the commands FuzzCLIFlags drives, each with the
// arguments that go first (a small built-in) and those that go last, which
// keep every run small whatever flags the fuzzer adds before them (the flag
// package keeps the last value of a flag).
var cliFuzzCommands = []struct{ first, last []string }{
	{[]string{"run", "task-work-nmi-race"}, []string{"--time", "1ms"}},
	{[]string{"explore", "task-work-nmi-race"}, []string{"--runs", "2", "--jobs", "1", "--time", "1ms", "-q"}},
	{[]string{"check"}, nil},
	{[]string{"names"}, nil},
	{[]string{"knobs"}, nil},
	{[]string{"list"}, nil},
	{[]string{"replay"}, nil},
}

// FuzzCLIFlags: whatever words follow a command, simrun returns one of its
// documented exit statuses (never a Go panic), and a usage error says what
// was wrong on standard error. Words with a path separator are skipped: the
// fuzzer must not name files outside its temporary directory.
func FuzzCLIFlags(f *testing.F) {
	for _, seed := range []string{
		"", "--seed 7", "--kernel task-work-nmi=never", "--kernel oops", "--json -", "--strategy bounded --budget 1",
		"--strategy rapid", "--strategy sparse --budget 3", "--budget -1", "--jobs 0", "--focus tie", "--focus nothing",
		"--runs 0", "-h", "--time 5x", "--timeline --script", "names steps", "x y z", "--kernel=task-work-nmi=today",
		"task-work-nmi-race", "no-such-scenario", "--force", "--strategy", "--seed -1", "--seed 18446744073709551616",
	} {
		for i := range cliFuzzCommands {
			f.Add(uint8(i), seed)
		}
	}
	f.Fuzz(func(t *testing.T, cmd uint8, words string) {
		if strings.ContainsAny(words, `/\`) || strings.Contains(words, "..") || len(words) > 400 {
			t.Skip()
		}
		t.Chdir(t.TempDir()) // --out, --json FILE and --perf-data DIR land here
		c := cliFuzzCommands[int(cmd)%len(cliFuzzCommands)]
		args := append(append(append([]string(nil), c.first...), strings.Fields(words)...), c.last...)
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		switch code {
		case exitOK, exitFailed, 3, 4, 130:
		case exitUsage:
			if stderr.Len() == 0 {
				t.Errorf("simrun %q: exit 2 with nothing on standard error", args)
			}
		default:
			t.Errorf("simrun %q: exit %d, not a documented status", args, code)
		}
	})
}
