package realperf

import (
	"fmt"

	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// SeedLoop is seed 002's benchmark simulated: calls close(-1) on cpu1, with
// perf record -o /dev/null -e 'raw_syscalls:*' on cpu0 when traced, under a
// cost-model profile. It returns how long the loop took in virtual time
// (the task's exit).
func SeedLoop(calls int, traced bool, profile string) (sim.Duration, error) {
	src := fmt.Sprintf("scenario seed-loop\ncpus 2\nkernel cost-model=%s\ntask bench cpu1\n  repeat %d\n    syscall close\n", profile, calls)
	if traced {
		src += "record -e 'raw_syscalls:*' -o /dev/null -- bench\n"
	}
	f, err := runner.Load(&scenarios.Source{Name: "seed-loop.sim", Src: []byte(src)})
	if err != nil {
		return 0, err
	}
	r, _, err := runner.RunOnce(f, runner.Options{})
	if err != nil {
		return 0, err
	}
	t := r.Tasks["bench"]
	if t == nil || t.Exited == 0 {
		return 0, fmt.Errorf("seed loop: the task did not exit")
	}
	return sim.Duration(t.Exited), nil
}

// SeedRatio is the simulated traced/untraced ratio of seed 002's loop under
// a profile.
func SeedRatio(calls int, profile string) (base, traced sim.Duration, err error) {
	if base, err = SeedLoop(calls, false, profile); err != nil {
		return
	}
	traced, err = SeedLoop(calls, true, profile)
	return
}
