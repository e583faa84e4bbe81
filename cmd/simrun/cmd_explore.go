package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"perfsim/explore"
	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
	"perfsim/simrapid"
)

// cmdExplore runs many schedules, prints herd7-style counts per outcome, and
// shrinks and saves the first violation. Ctrl-C or SIGTERM stops it: the
// summary so far is printed (and --json written, "interrupted": true), a
// violation found is shrunk as far as it got and its replay written; a second
// signal kills it.
func cmdExplore(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // the first signal stops the search; a second one kills as usual
	}()
	fs := newFlagSet("explore", "SCENARIO [--strategy random|sparse|pct|bounded|dpor] [--depth D] [--runs N] [--seed N] [--budget N] [--focus WORDS] [--jobs N] [--shard i/n] [--corpus DIR] [--coverage FILE] [--time LIMIT] [--kernel NAME=VALUE]... [--json FILE] [--out FILE] [-q]", stderr)
	strategy := fs.String("strategy", "random", "how schedules are drawn: random (seeds seed..seed+runs-1: a coin at every decision), sparse (seeds seed..seed+runs-1: a few disturbances placed anywhere along the quiet run's decisions), pct (seeds seed..seed+runs-1: PCT, random priorities over CPUs and their interrupt lines with depth-1 change points), bounded (every schedule with at most budget disturbing decisions, fewest first), or dpor (exhaustive: one schedule per class of interleavings equivalent by the footprints, sleep sets; --runs caps it)")
	runs := fs.Int("runs", 1000, "the number of schedules, at least 1 (bounded: the most to run, default 100000)")
	seed := fs.Uint64("seed", 1, "the first seed: random, sparse and pct run seeds seed..seed+runs-1; bounded has no seed (it runs every schedule in a fixed order)")
	budget := fs.Int("budget", 16, "at least 1: random: the disturbing (non-default) decisions each schedule may make; sparse: the most it plans; bounded: the bound (2 when not given)")
	limit := fs.String("time", "", "the virtual time `LIMIT` of each schedule, like 20ms (default 10s)")
	knobs := knobFlags{}
	fs.Var(knobs, "kernel", "set a kernel (or tool) knob, `NAME=VALUE`; repeatable")
	jsonOut := fs.String("json", "", "write the exploration as JSON to `FILE` (- for standard output, instead of the text)")
	out := fs.String("out", "", "the replay `FILE` to write for a violation (default SCENARIO.replay)")
	quiet := fs.Bool("q", false, "no progress on standard error")
	focus := fs.String("focus", "", "bounded: disturb only the decisions whose question contains one of these comma-separated `WORDS` (step point labels such as perf_mmap_aux, tie, nmi-skid)")
	limits := addLimitFlags(fs) // --max-steps, --max-wall, --max-memory (explore keeps its own --time)
	depth := fs.Int("depth", 3, "pct: the bug depth `D` targeted (D-1 priority change points per schedule), at least 1")
	corpus := fs.String("corpus", "", "the failure corpus `DIR`: its violations of this scenario and knobs run first, a new one is saved there; off: none (default $PERFSIM_CORPUS, else perfsim/corpus in the user cache directory)")
	coverage := fs.String("coverage", "", "write the coverage detail to `FILE` (every question asked and every pair, with schedule counts; FILE.json: as JSON); --json then holds it too")
	shard := fs.String("shard", "", "run part `i/n` of the schedule space (0-based: 0/4 .. 3/4) and write its --json for simrun merge; default from $JOB_COMPLETION_INDEX and $SIMRUN_SHARDS (a Kubernetes Indexed Job) or $SLURM_ARRAY_TASK_ID and $SLURM_ARRAY_TASK_COUNT (a Slurm array)")
	jobs := fs.Int("jobs", runtime.NumCPU(), "schedules to run at once, at least 1 (random, sparse, bounded); the result is the same for any value")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return usageError(err)
	}
	if len(pos) != 1 {
		fs.Usage()
		return exitUsage
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if msg := checkExploreFlags(*strategy, *runs, *jobs, *budget, set["focus"]); msg != "" {
		fmt.Fprintf(stderr, "simrun explore: %s\n", msg)
		return exitUsage
	}
	if !checkOutputs("explore", stderr, output{flag: "json", path: *jsonOut}, output{flag: "out", path: *out}, output{flag: "coverage", path: *coverage}) {
		return exitUsage
	}
	f, ok := loadScenario(pos[0], stderr)
	if !ok {
		return exitUsage
	}
	if *depth < 1 {
		fmt.Fprintf(stderr, "simrun explore: --depth %d: expected at least 1\n", *depth)
		return exitUsage
	}
	if set["depth"] && *strategy != "pct" {
		fmt.Fprintf(stderr, "simrun explore: --depth: only --strategy pct has a depth (strategy %s)\n", *strategy)
		return exitUsage
	}
	o := explore.Options{Strategy: *strategy, Runs: *runs, Seed: *seed, Budget: *budget, Knobs: knobs, Jobs: *jobs, Depth: *depth}
	if set["focus"] {
		o.Focus = strings.Split(*focus, ",")
		if err := explore.CheckFocus(f, o.Focus, nil); err != nil {
			fmt.Fprintf(stderr, "simrun explore: --%v\n", err)
			return exitUsage
		}
	}
	if *strategy == "dpor" && !set["runs"] {
		o.Runs = 100000
	}
	if *strategy == "bounded" {
		if !set["budget"] {
			o.Budget = 0 // the bounded strategy's own default
		}
		if !set["runs"] {
			o.Runs = 100000
		}
	}
	if *limit != "" {
		d, err := scenarios.ParseDuration(*limit)
		if err != nil || d <= 0 || sim.Time(d) > runner.MaxTimeLimit {
			// not 0 as run takes it (no limit): every schedule of a search
			// needs an end, which its replay file records
			fmt.Fprintf(stderr, "simrun explore: --time: expected a duration like 20ms, above 0 (a search's schedules need a limit; run takes 0) and up to %s, found %q\n",
				scenarios.FormatDuration(time.Duration(runner.MaxTimeLimit)), *limit)
			return exitUsage
		}
		o.Limit = sim.Time(d)
	}
	if !*quiet && isTerminal(stderr) {
		o.Progress = progress(stderr)
	}
	var ro runner.Options
	if err := limits.apply(&ro); err != nil {
		fmt.Fprintf(stderr, "simrun explore: %v\n", err)
		return exitUsage
	}
	o.MaxSteps, o.MaxWall, o.MaxMemory = ro.MaxSteps, ro.MaxWall, ro.MaxMemory
	if o.Shard, o.Shards, err = shardOf(*shard, os.Getenv); err != nil {
		fmt.Fprintf(stderr, "simrun explore: --shard: %v\n", err)
		return exitUsage
	}
	if *strategy == "rapid" {
		fmt.Fprintf(stderr, "simrun explore: --strategy rapid: %v\n", simrapid.ErrNotInTest)
		return exitUsage
	}
	if o.Corpus, err = corpusDir(*corpus); err != nil {
		fmt.Fprintf(stderr, "simrun explore: --corpus: %v\n", err)
		return exitUsage
	}
	o.Context = ctx
	ex, err := explore.Explore(f, o)
	if o.Progress != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if code, ok := limitExit(err, stderr); ok {
		return code
	}
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	if *coverage != "" && ex.Coverage != nil {
		ex.CoverageInJSON = true
	}
	if !writeExploreFiles(ex, *coverage, *jsonOut, stdout, stderr) {
		return exitUsage
	}
	if *jsonOut != "-" {
		ex.WriteText(stdout)
	}
	if !*quiet && ex.Elapsed > 0 {
		repeats := ""
		if ex.Repeats > 0 {
			repeats = fmt.Sprintf("; %d repeated a schedule run before them", ex.Repeats)
		}
		fmt.Fprintf(stderr, "%d schedules in %s (%.0f schedules/s%s)\n", ex.Schedules, ex.Elapsed.Round(time.Millisecond), float64(ex.Schedules)/ex.Elapsed.Seconds(), repeats)
		if fd := ex.Found; fd != nil && fd.ShrinkElapsed > 0 {
			// the time to the counterexample, and the shrinking after it
			fmt.Fprintf(stderr, "violation after %s (schedule %d); shrinking %s (%d replays)\n",
				(ex.Elapsed - fd.ShrinkElapsed).Round(10*time.Microsecond), fd.Schedule, fd.ShrinkElapsed.Round(10*time.Microsecond), fd.ShrinkRuns)
		}
	}
	if rf := ex.ReplayFile(); rf != nil {
		name := *out
		if name == "" {
			name = ex.Scenario + ".replay"
		}
		if err := writeReplay(name, rf); err != nil {
			printError(stderr, err)
			return exitUsage
		}
		if *jsonOut != "-" {
			fmt.Fprintf(stdout, "replay file: %s (simrun replay %s)\n", name, name)
		}
	}
	if ex.Interrupted && ex.Found == nil {
		return exitInterrupted
	}
	if ex.Failed {
		return exitFailed
	}
	return exitOK
}

// corpusDir is the failure corpus directory of --corpus flag: flag, else
// $PERFSIM_CORPUS, else explore.DefaultCorpusDir; "off" (either) is none ("").
func corpusDir(flag string) (string, error) {
	if flag == "" {
		flag = os.Getenv("PERFSIM_CORPUS")
	}
	switch flag {
	case "off":
		return "", nil
	case "":
		return explore.DefaultCorpusDir()
	}
	return flag, nil
}

// shardOf is the shard to run: --shard i/n, else a Kubernetes Indexed Job's
// JOB_COMPLETION_INDEX with SIMRUN_SHARDS (set it to the Job's completions;
// Kubernetes does not export them), else a Slurm array task's
// SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT;
// else 0 of 0: unsharded.
func shardOf(flag string, getenv func(string) string) (i, n int, err error) {
	if flag != "" {
		return explore.ParseShard(flag)
	}
	num := func(name string) (int, error) {
		v, err := strconv.Atoi(getenv(name))
		if err != nil {
			return 0, fmt.Errorf("$%s=%q: expected a number", name, getenv(name))
		}
		return v, nil
	}
	if getenv("JOB_COMPLETION_INDEX") != "" {
		if getenv("SIMRUN_SHARDS") == "" {
			return 0, 0, fmt.Errorf("$JOB_COMPLETION_INDEX is set but not $SIMRUN_SHARDS: set it to the Indexed Job's completions")
		}
		if i, err = num("JOB_COMPLETION_INDEX"); err == nil {
			n, err = num("SIMRUN_SHARDS")
		}
		if err != nil {
			return 0, 0, err
		}
		return explore.ParseShard(fmt.Sprintf("%d/%d", i, n))
	}
	if getenv("SLURM_ARRAY_TASK_ID") != "" && getenv("SLURM_ARRAY_TASK_COUNT") != "" {
		lo := 0
		if getenv("SLURM_ARRAY_TASK_MIN") != "" {
			if lo, err = num("SLURM_ARRAY_TASK_MIN"); err != nil {
				return 0, 0, err
			}
		}
		if i, err = num("SLURM_ARRAY_TASK_ID"); err == nil {
			n, err = num("SLURM_ARRAY_TASK_COUNT")
		}
		if err != nil {
			return 0, 0, err
		}
		return explore.ParseShard(fmt.Sprintf("%d/%d", i-lo, n))
	}
	return 0, 0, nil
}

// checkExploreFlags returns what is wrong with explore's numeric flags and
// --focus, or "".
func checkExploreFlags(strategy string, runs, jobs, budget int, focus bool) string {
	switch {
	case runs < 1:
		return fmt.Sprintf("--runs %d: expected at least 1 schedule", runs)
	case jobs < 1:
		return fmt.Sprintf("--jobs %d: expected at least 1 schedule at once", jobs)
	case budget == 0:
		return "--budget 0: no disturbing decision leaves only the quiet schedule; expected at least 1"
	case budget < 0:
		return fmt.Sprintf("--budget %d: expected at least 1 disturbing decision", budget)
	case focus && strategy != "bounded":
		return fmt.Sprintf("--focus: only --strategy bounded focuses its disturbances (strategy %s)", strategy)
	}
	return ""
}

// writeExploreJSON writes ex as JSON to name (- for stdout).
func writeExploreJSON(name string, ex *explore.Result, stdout io.Writer) error {
	if name == "-" {
		return ex.WriteJSON(stdout)
	}
	fh, err := os.Create(name)
	if err != nil {
		return err
	}
	err = ex.WriteJSON(fh)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeCoverage writes the coverage detail: JSON for a .json name, text else.
func writeCoverage(name string, cv *explore.Coverage) error {
	fh, err := os.Create(name)
	if err != nil {
		return err
	}
	if strings.HasSuffix(name, ".json") {
		err = cv.WriteJSON(fh)
	} else {
		err = cv.WriteDetail(fh)
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return err
}

func writeReplay(name string, rf *explore.ReplayFile) error {
	fh, err := os.Create(name)
	if err != nil {
		return err
	}
	_, err = rf.WriteTo(fh)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return err
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	fh, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := fh.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progress returns a throttled progress printer (at most 5 updates a second).
func progress(w io.Writer) func(done, total int) {
	var last time.Time
	return func(done, total int) {
		if now := time.Now(); now.Sub(last) >= 200*time.Millisecond || done == total {
			last = now
			fmt.Fprintf(w, "\rexplore: %d/%d schedules", done, total)
		}
	}
}

// replayPath finds the scenario a replay file names: a built-in, a path as
// written, or a path relative to the replay file.
func replayPath(file, replayFile string) string {
	if b, ok := strings.CutPrefix(file, "builtin/"); ok {
		if _, err := os.Stat(file); err != nil {
			return strings.TrimSuffix(b, ".sim")
		}
	}
	if _, err := os.Stat(file); err != nil && !filepath.IsAbs(file) {
		alt := filepath.Join(filepath.Dir(replayFile), file)
		if _, err := os.Stat(alt); err == nil {
			return alt
		}
	}
	return file
}

// writeExploreFiles writes an exploration's --coverage and --json files
// (explore and merge); false after an error it printed.
func writeExploreFiles(ex *explore.Result, coverage, jsonOut string, stdout, stderr io.Writer) bool {
	if coverage != "" && ex.Coverage != nil {
		if err := writeCoverage(coverage, ex.Coverage); err != nil {
			printError(stderr, err)
			return false
		}
	}
	if jsonOut != "" {
		if err := writeExploreJSON(jsonOut, ex, stdout); err != nil {
			printError(stderr, err)
			return false
		}
	}
	return true
}
