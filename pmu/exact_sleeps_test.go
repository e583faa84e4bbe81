package pmu

import "perfsim/sched"

// exactSleeps is sched.DefaultConfig() with no timer slack: the tests
// whose timelines were laid out with exact sleeps (every nanosleep wakes
// when asked, cpu/hrtimer.go).
func exactSleeps() sched.Config {
	cfg := sched.DefaultConfig()
	cfg.TimerSlack = 0
	return cfg
}
