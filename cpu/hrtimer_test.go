package cpu

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// TestHRTimerSlack: an hrtimer armed with a range fires at its hard expiry,
// or earlier when another hrtimer of its CPU fires inside its range, unless
// a timer between them in hard order is short of its soft expiry
// (__hrtimer_run_queues() stops there); a timer of another interrupt (a
// counter's NMI, a device) is no hrtimer and expires nothing.
func TestHRTimerSlack(t *testing.T) {
	us := func(n int) sim.Time { return sim.Time(n) * sim.Time(sim.Microsecond) }
	type arm struct {
		name  string
		hr    bool
		soft  int // us
		slack int // us; 0: Arm
	}
	periods := map[string]sim.Time{"period20": us(20), "period200": us(200)}
	for _, tc := range []struct {
		name string
		arms []arm
		want map[string]sim.Time // when each one's handler ran
	}{
		{"alone: the hard expiry", []arm{{"sleeper", true, 10, 50}},
			map[string]sim.Time{"sleeper": us(60)}},
		{"another hrtimer inside the range", []arm{{"sleeper", true, 10, 50}, {"tick", true, 30, 0}},
			map[string]sim.Time{"sleeper": us(30), "tick": us(30)}},
		{"before the range: no early expiry", []arm{{"sleeper", true, 10, 50}, {"tick", true, 5, 0}},
			map[string]sim.Time{"sleeper": us(60), "tick": us(5)}},
		{"a timer short of its soft expiry stops the walk", []arm{{"sleeper", true, 10, 50}, {"tick", true, 30, 0}, {"mux", true, 45, 0}},
			map[string]sim.Time{"sleeper": us(45), "tick": us(30), "mux": us(45)}},
		{"two ranges, both begun", []arm{{"a", true, 10, 50}, {"b", true, 20, 30}, {"tick", true, 25, 0}},
			map[string]sim.Time{"a": us(25), "b": us(25), "tick": us(25)}},
		{"no hrtimer: a device's irq expires nothing", []arm{{"sleeper", true, 10, 50}, {"nic", false, 30, 0}},
			map[string]sim.Time{"sleeper": us(60), "nic": us(30)}},
		// perf's cpu-clock hrtimer re-arms itself in its handler
		// (HRTIMER_RESTART), before the walk goes on: at 25us its next
		// expiry, 45us, is ahead of the sleeper's hard one and short of
		// its own soft one, and stops the walk; at 45us the next, 65us, is
		// past it, and the sleeper runs then.
		{"a periodic hrtimer re-armed ahead of the hard expiry stops the walk", []arm{{"sleeper", true, 10, 50}, {"period20", true, 5, 0}},
			map[string]sim.Time{"sleeper": us(45), "period20": us(65)}},
		{"a periodic hrtimer whose next expiry is past it", []arm{{"sleeper", true, 10, 50}, {"period200", true, 25, 0}},
			map[string]sim.Time{"sleeper": us(25), "period200": us(225)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]sim.Time{}
			m := boot(t, nil, 1, func(th *Thread) {
				c := th.CPU()
				for _, a := range tc.arms {
					var tm *Timer
					it := Interrupt{Name: a.name, Fn: func(c *CPU) {
						got[a.name] = c.Now()
						if p, ok := periods[a.name]; ok && c.Now() < us(60) {
							tm.Arm(c.Now() + p) // hrtimer_forward_now(): HRTIMER_RESTART
						}
					}}
					if a.hr {
						tm = c.NewHRTimer(it)
					} else {
						tm = c.NewTimer(false, it)
					}
					if a.slack > 0 {
						tm.ArmRange(us(a.soft), sim.Duration(a.slack)*sim.Microsecond)
					} else {
						tm.Arm(us(a.soft))
					}
				}
			})
			defer m.Close()
			if err := m.Run(sim.Millisecond); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("handlers ran at (-want +got):\n%s", d)
			}
		})
	}
}
