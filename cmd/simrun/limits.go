package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// limitFlags are the flags of a run's limits (runner.Options): the virtual
// time (--time), the engine steps (--max-steps), the wall clock (--max-wall)
// and the heap (--max-memory). A run that reaches one stops there and simrun
// exits with status 3 (exitLimit): a limit, not a verdict.
type limitFlags struct {
	time, steps, wall, memory *string
}

// addLimitFlags registers the limit flags on fs; a flag fs already has
// (explore's own --time) is left as it is. Commands that run scenarios (run,
// explore) take them: apply them to the runner.Options of every run, and
// report a run's *runner.LimitError with limitExit.
func addLimitFlags(fs *flag.FlagSet) *limitFlags {
	l := addTimeFlag(fs)
	addMachineLimitFlags(fs, l)
	return l
}

// addMachineLimitFlags registers the limits that guard the machine, not the
// model (--max-steps, --max-wall, --max-memory) into l: all replay takes, as
// its time limit is the replay file's.
func addMachineLimitFlags(fs *flag.FlagSet, l *limitFlags) {
	l.steps = fs.String("max-steps", strconv.Itoa(runner.DefaultMaxSteps),
		"stop a run after `N` engine steps (lane runs, decisions, repeat rounds); 0: no limit")
	l.wall = fs.String("max-wall", runner.DefaultMaxWall.String(),
		"stop a run after this wall-clock `DURATION` (30s, 2m); 0: no limit")
	l.memory = fs.String("max-memory", runner.FormatSize(runner.DefaultMaxMemory),
		"stop a run when the heap passes `SIZE` (512M, 4G); 0: no limit")
}

// addTimeFlag registers --time alone (check: the time limit the actions and
// outcomes must fit in), unless fs has it.
func addTimeFlag(fs *flag.FlagSet) *limitFlags {
	l := &limitFlags{}
	if fs.Lookup("time") == nil {
		l.time = fs.String("time", scenarios.FormatDuration(time.Duration(runner.DefaultLimit)),
			"the virtual time `LIMIT` of a run, like 20ms; a run still going there stops (status 3); 0: no limit")
	}
	return l
}

// apply sets the limits the flags give in o; an error names the flag and
// what it expected.
func (l *limitFlags) apply(o *runner.Options) error {
	if l.time != nil {
		d, err := scenarios.ParseDuration(*l.time)
		if *l.time == "0" {
			d, err = 0, nil
		}
		if err != nil || sim.Time(d) > runner.MaxTimeLimit {
			return fmt.Errorf("--time: expected a duration like 20ms (0: no limit), up to %s, found %q",
				scenarios.FormatDuration(time.Duration(runner.MaxTimeLimit)), *l.time)
		}
		o.Limit = sim.Time(noLimit(int64(d)))
	}
	if l.steps != nil {
		n, err := strconv.ParseInt(*l.steps, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("--max-steps: expected a number of steps like 100000000 (0: no limit), found %q", *l.steps)
		}
		o.MaxSteps = noLimit(n)
	}
	if l.wall != nil {
		d, err := time.ParseDuration(*l.wall)
		if *l.wall == "0" {
			d, err = 0, nil
		}
		if err != nil || d < 0 {
			return fmt.Errorf("--max-wall: expected a duration like 30s or 2m (0: no limit), found %q", *l.wall)
		}
		o.MaxWall = time.Duration(noLimit(int64(d)))
	}
	if l.memory != nil {
		n, err := scenarios.ParseSize(*l.memory)
		if err != nil {
			return fmt.Errorf("--max-memory: expected a size like 512M or 4G (0: no limit), found %q", *l.memory)
		}
		o.MaxMemory = noLimit(n)
	}
	return nil
}

// noLimit maps a flag's 0 (no limit) to the Options' negative value.
func noLimit(n int64) int64 {
	if n == 0 {
		return -1
	}
	return n
}

// limitExit reports err when it is a run that stopped at a limit, and
// returns exitLimit then; ok is false for any other error.
func limitExit(err error, stderr io.Writer) (code int, ok bool) {
	var le *runner.LimitError
	if !errors.As(err, &le) {
		return 0, false
	}
	fmt.Fprintf(stderr, "simrun: %v\n", le)
	return exitLimit, true
}
