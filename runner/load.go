package runner

import "perfsim/scenarios"

// Load parses a scenario and checks it against the simulator's registry (the
// names the default perf backend knows), as simrun run and check do.
func Load(src *scenarios.Source) (*scenarios.File, error) {
	return src.Load(func(f *scenarios.File) scenarios.Registry { return NewRegistry(f, DefaultPerf) })
}

// Open finds a scenario (a .sim file at arg, else the built-in called arg),
// parses it and checks it: what `simrun run ARG` runs.
func Open(arg string) (*scenarios.File, error) {
	src, err := scenarios.Open(arg)
	if err != nil {
		return nil, err
	}
	return Load(src)
}
