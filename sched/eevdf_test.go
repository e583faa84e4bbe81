package sched

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sim"
)

func TestBaseSliceScalesWithCPUs(t *testing.T) {
	got := map[int]sim.Duration{}
	for _, n := range []int{1, 2, 3, 4, 8, 64} {
		got[n] = BaseSlice(n)
	}
	want := map[int]sim.Duration{1: 700 * sim.Microsecond, 2: 1400 * sim.Microsecond, 3: 1400 * sim.Microsecond,
		4: 2100 * sim.Microsecond, 8: 2800 * sim.Microsecond, 64: 2800 * sim.Microsecond}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("BaseSlice (-want +got):\n%s", d)
	}
}

// wakeWaits logs, for one task, how long each of its wake-ups waited for
// the CPU (sched_wakeup to the sched_switch to it) and when the wait ended.
type wakeWaits struct {
	traceLog
	s      *Sched
	comm   string
	woken  sim.Time
	waits  []sim.Duration
	endsAt []sim.Time
}

func (l *wakeWaits) SchedWakeup(c *cpu.CPU, t *Task, target int, isNew bool) {
	if t.Comm == l.comm {
		l.woken = l.s.M.Now()
	}
}

func (l *wakeWaits) SchedSwitch(c *cpu.CPU, preempt bool, prev, next *Task, st int64) {
	if next != nil && next.Comm == l.comm && l.woken > 0 {
		l.waits = append(l.waits, l.s.M.Now()-l.woken)
		l.endsAt = append(l.endsAt, l.s.M.Now())
		l.woken = 0
	}
}

// TestEEVDFReaderStallsUntilTheTick is perf record's pattern on a CPU it
// shares with a busy workload: it wakes every 10 us and runs 5 us. Each
// wake-up preempts the workload while the reader has lag; its runs use the
// lag up (5 us run, half of it charged against V), it goes to sleep
// ineligible (delayed dequeue), is woken at V with no lag (DELAY_ZERO),
// finds the workload's slice protected, and waits until the tick sees the
// workload past its protection. The waits are then milliseconds, end on a
// tick, and come a few per hundred wake-ups.
func TestEEVDFReaderStallsUntilTheTick(t *testing.T) {
	m, s := newSched(t, 1, exactSleeps())
	l := &wakeWaits{s: s, comm: "reader"}
	s.TraceHooks = append(s.TraceHooks, l)
	s.Spawn("hog", CPUMask{}, Compute(200*sim.Millisecond))
	s.Spawn("reader", CPUMask{}, Loop(4000, Sleep(10*sim.Microsecond), Compute(5*sim.Microsecond)))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	var short, long int
	for i, w := range l.waits {
		switch {
		case w == 0:
			short++ // preempted the hog at once
		case w >= 500*sim.Microsecond:
			long++
			if l.endsAt[i]%sim.Time(s.Cfg.Tick) != 0 {
				t.Errorf("wait %d of %v ended at %v, not on a tick (every %v)", i, w, l.endsAt[i], s.Cfg.Tick)
			}
		default:
			t.Errorf("wait %d of %v: neither at once nor until a tick", i, w)
		}
	}
	t.Logf("%d wake-ups: %d at once, %d waited for the tick", len(l.waits), short, long)
	if long == 0 || long*20 > len(l.waits) || short+long != len(l.waits) {
		t.Errorf("%d wake-ups: %d at once, %d waited for the tick; want most at once and some (under 5%%) for the tick", len(l.waits), short, long)
	}
}

// TestEEVDFYieldHandsTheCPUOver: sched_yield() forfeits the rest of the
// yielder's request, so the other task runs, and back (yield_task_fair()).
func TestEEVDFYieldHandsTheCPUOver(t *testing.T) {
	m, s := newSched(t, 1, DefaultConfig())
	l := &traceLog{}
	s.TraceHooks = append(s.TraceHooks, l)
	s.Spawn("a", CPUMask{}, Compute(sim.Microsecond), Yield(), Compute(sim.Microsecond))
	s.Spawn("b", CPUMask{}, Compute(sim.Microsecond), Yield(), Compute(sim.Microsecond))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range l.lines {
		if len(line) > 11 && line[5:11] == "switch" {
			got = append(got, line)
		}
	}
	want := []string{
		"cpu0 switch swapper/0 state=0x0 -> a/101",
		"cpu0 switch a/101 state=0x0 -> b/102",  // a yields
		"cpu0 switch b/102 state=0x0 -> a/101",  // b yields
		"cpu0 switch a/101 state=0x20 -> b/102", // a exits (EXIT_ZOMBIE)
		"cpu0 switch b/102 state=0x20 -> swapper/0",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("switches (-want +got):\n%s", d)
	}
}

// exactSleeps is DefaultConfig() with no timer slack: the tests whose
// timelines were laid out with exact sleeps (cpu/hrtimer.go).
func exactSleeps() Config {
	cfg := DefaultConfig()
	cfg.TimerSlack = 0
	return cfg
}
