package runner

import (
	"sort"

	"perfsim/scenarios"
	"perfsim/sim"
)

// RunOnce builds and executes one run of f and returns it with its result.
func RunOnce(f *scenarios.File, opts Options) (*Run, *Result, error) {
	r, err := Build(f, opts)
	if err != nil {
		return nil, nil, err
	}
	if err := r.Execute(); err != nil {
		return r, nil, err
	}
	return r, r.Result(), nil
}

// Variants returns the knob settings the file's outcomes mention: the file's
// own (an empty override) first, then one per distinct when condition, each
// setting the knobs of that condition. Running every variant exercises every
// outcome.
func Variants(f *scenarios.File) []map[string]string {
	out := []map[string]string{{}}
	seen := map[string]bool{"": true}
	for _, o := range f.Outcomes {
		if len(o.When) == 0 {
			continue
		}
		v := map[string]string{}
		for _, s := range o.When {
			v[s.Name] = s.Value
		}
		key := variantKey(v)
		if !seen[key] {
			seen[key] = true
			out = append(out, v)
		}
	}
	return out
}

func variantKey(v map[string]string) string {
	return joinSorted(KnobList(v))
}

func joinSorted(s []string) string {
	sort.Strings(s)
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

// ScheduleChooser is the chooser of the random schedule of seed: the seeded
// random strategy with at most budget disturbing decisions (0: 16). `simrun run
// --seed N` and explore's schedule of seed N are the same schedule.
func ScheduleChooser(seed uint64, budget int) sim.Chooser {
	if budget <= 0 {
		budget = 16
	}
	return &sim.Limited{Inner: sim.NewRandom(seed), Budget: budget}
}

// Validate does to f everything a run does before it starts, without running
// it: the knobs, the PMU lines, every record line as perf record parses it
// (the events, their terms, the options), the actions and the times against
// the time limit. It returns the error Build would (a *scenarios.Error or an
// ErrorList at the place in the file) or what perf would print and carry on
// after (Result.Messages): what simrun check reports.
func Validate(f *scenarios.File, opts Options) ([]string, error) {
	opts.PerfDataDir = "" // nothing is written
	r, err := Build(f, opts)
	if err != nil {
		return nil, err
	}
	defer r.M.Close()
	return r.Messages(), nil
}
