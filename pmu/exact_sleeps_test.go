package pmu

import "perfsim/sched"

// ExactSleeps is sched.DefaultConfig() with no timer slack: the tests
// whose timelines were laid out with exact sleeps (every nanosleep wakes
// when asked, cpu/hrtimer.go), here and in package pmu_test.
func ExactSleeps() sched.Config {
	cfg := sched.DefaultConfig()
	cfg.TimerSlack = 0
	return cfg
}
