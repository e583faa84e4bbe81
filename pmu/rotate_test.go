package pmu_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// countingCycles is a counting cycles event that reads its times.
func countingCycles() pmu.Attr {
	a := cyclesAttr(0)
	a.ReadFormat = uapi.PERF_FORMAT_TOTAL_TIME_ENABLED | uapi.PERF_FORMAT_TOTAL_TIME_RUNNING
	return a
}

// computeUntil computes (staying on the CPU) until the absolute time at.
func computeUntil(mc *machine, t *sched.Task, at sim.Time) {
	if d := at - mc.m.Now(); d > 0 {
		mc.s.RunOps(t, []sched.Op{sched.Compute(d)})
	}
}

// TestRotateScaling: six counting cycles events on four counters, 40ms of
// compute at the default 4ms mux interval. Every event gets a share of the
// counters, its count is the rate times its running time (so the scaled
// count count*enabled/running estimates the whole run), and the counters
// were never idle: the running times add up to four times the time enabled.
func TestRotateScaling(t *testing.T) {
	mc := newMachine(t, 1, nil, pmu.Knobs{})
	const n = 6
	var vals [n][3]uint64
	var activeAfter bool
	mc.runIn(t, 0, func(tk *sched.Task) {
		var fds []int
		for range n {
			a := countingCycles()
			fd, err := mc.k.PerfEventOpen(tk, &a, 0, -1, -1, 0)
			if err != nil {
				t.Fatal(err)
			}
			fds = append(fds, fd)
		}
		mc.s.RunOps(tk, []sched.Op{sched.Compute(40 * sim.Millisecond)})
		for i, fd := range fds {
			b, err := mc.k.Read(tk, fd)
			if err != nil || len(b) != 24 {
				t.Fatalf("read fd %d: %d bytes, %v", fd, len(b), err)
			}
			for j := range 3 {
				vals[i][j] = binary.LittleEndian.Uint64(b[8*j:])
			}
		}
		activeAfter = mc.k.MuxHrtimerActive("cpu", 0)
	})
	if !activeAfter {
		t.Errorf("mux hrtimer not running while the events were oversubscribed")
	}
	var sumRunning, enabled uint64
	for i, v := range vals {
		count, en, run := v[0], v[1], v[2]
		t.Logf("event %d: count %d enabled %d running %d", i, count, en, run)
		if run == 0 || run >= en {
			t.Errorf("event %d: running %d, enabled %d: want 0 < running < enabled", i, run, en)
		}
		if d := int64(count) - 3*int64(run); d < -3000 || d > 3000 {
			t.Errorf("event %d: count %d, want 3/ns x running %d (within 1us)", i, count, run)
		}
		sumRunning += run
		enabled = max(enabled, en)
	}
	// Rotations at 4, 8, ... 36ms slide a window of four over the six:
	// abcd bcde cdef adef abef abcf abcd bcde cdef adef, 4ms each.
	wantRun := []sim.Duration{24, 24, 28, 32, 28, 24}
	for i, v := range vals {
		if d := int64(v[2]) - int64(wantRun[i]*sim.Millisecond); d < -100000 || d > 100000 {
			t.Errorf("event %d: running %d, want about %dms", i, v[2], wantRun[i])
		}
	}
	if enabled < uint64(40*sim.Millisecond) {
		t.Errorf("enabled %d: want at least the 40ms compute", enabled)
	}
	if d := int64(sumRunning) - 4*int64(enabled); d < -int64(4*sim.Millisecond/10) || d > 0 {
		t.Errorf("sum of running %d, want about 4 x enabled %d", sumRunning, 4*enabled)
	}
	if mc.k.MuxHrtimerActive("cpu", 0) {
		t.Errorf("mux hrtimer still running after the task exited")
	}
}

// TestRotateNotOversubscribed: four events fit on four counters, so nothing
// needs rotating and the mux hrtimer is never started.
func TestRotateNotOversubscribed(t *testing.T) {
	mc := newMachine(t, 1, nil, pmu.Knobs{})
	var armed bool
	var vals [][]byte
	mc.runIn(t, 0, func(tk *sched.Task) {
		var fds []int
		for range 4 {
			a := countingCycles()
			fd, err := mc.k.PerfEventOpen(tk, &a, 0, -1, -1, 0)
			if err != nil {
				t.Fatal(err)
			}
			fds = append(fds, fd)
		}
		mc.s.RunOps(tk, []sched.Op{sched.Compute(10 * sim.Millisecond)})
		armed = mc.k.MuxHrtimerActive("cpu", 0)
		for _, fd := range fds {
			b, _ := mc.k.Read(tk, fd)
			vals = append(vals, b)
		}
	})
	if armed {
		t.Errorf("mux hrtimer started without oversubscription")
	}
	for i, b := range vals {
		en, run := binary.LittleEndian.Uint64(b[8:]), binary.LittleEndian.Uint64(b[16:])
		if en != run {
			t.Errorf("event %d: enabled %d != running %d", i, en, run)
		}
	}
}

// TestRotateOrder: which flexible groups are ACTIVE after each rotation, as
// perf_rotate_context() does it: ctx_event_to_rotate() moves the first ACTIVE
// flexible group (or, with none, the first flexible group) to the tail, and
// merge_sched_in() stops at the first group that does not fit.
func TestRotateOrder(t *testing.T) {
	type ev struct {
		name   string
		cpuCtx bool   // a CPU-wide event on cpu 0, else the task's
		pinned bool   // attr.pinned
		group  string // the leader's name, for a sibling
	}
	flex := func(names ...string) []ev {
		var out []ev
		for _, n := range names {
			out = append(out, ev{name: n})
		}
		return out
	}
	cpuFlex := func(names ...string) []ev {
		var out []ev
		for _, n := range names {
			out = append(out, ev{name: n, cpuCtx: true})
		}
		return out
	}
	tests := []struct {
		name   string
		events []ev
		want   []string // ACTIVE group leaders, open order: at first, then after each rotation
	}{{
		// Each rotation moves the head to the tail: a window of four slides
		// one step per interval.
		name:   "six task events",
		events: flex("a", "b", "c", "d", "e", "f"),
		want:   []string{"abcd", "bcde", "cdef", "adef", "abef", "abcf", "abcd"},
	}, {
		// Two pinned events leave two counters; the three-event group G
		// does not fit and, first in line, keeps x and y off too. With no
		// flexible group ACTIVE, G itself (the first) is rotated; then x,
		// then y, back to the start.
		name: "group first, nothing active",
		events: append([]ev{{name: "p", pinned: true}, {name: "q", pinned: true},
			{name: "G"}, {name: "G1", group: "G"}, {name: "G2", group: "G"}}, flex("x", "y")...),
		want: []string{"pq", "pqxy", "pqy", "pq", "pqxy", "pqy", "pq"},
	}, {
		// CPU flexible groups go on before the task's: only the task
		// context needs rotating, and the CPU's groups stay on.
		name:   "cpu fits, task rotates",
		events: append(cpuFlex("A", "B", "C"), flex("a", "b", "c")...),
		want:   []string{"ABCa", "ABCb", "ABCc", "ABCa"},
	}, {
		// An oversubscribed CPU context rotates and the task's group never
		// gets a counter (rotating it too, alone in its list, changes
		// nothing).
		name:   "cpu oversubscribed, task starves",
		events: append(cpuFlex("A", "B", "C", "D", "E"), flex("a")...),
		want:   []string{"ABCD", "BCDE", "ACDE", "ABDE", "ABCE", "ABCD"},
	}}
	const interval = sim.Millisecond
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mc := newMachine(t, 1, nil, pmu.Knobs{})
			mc.k.Opts.MuxInterval = interval
			var got []string
			mc.runIn(t, 0, func(tk *sched.Task) {
				fds := map[string]int{}
				var leaders []string
				for _, e := range tc.events {
					a := countingCycles()
					a.Pinned = e.pinned
					pid, cpuID := 0, -1
					if e.cpuCtx {
						pid, cpuID = -1, 0
					}
					group := -1
					if e.group != "" {
						group = fds[e.group]
					} else {
						leaders = append(leaders, e.name)
					}
					fd, err := mc.k.PerfEventOpen(tk, &a, pid, cpuID, group, 0)
					if err != nil {
						t.Fatalf("open %s: %v", e.name, err)
					}
					fds[e.name] = fd
				}
				active := func() string {
					s := ""
					for _, l := range leaders {
						if mc.k.EventOf(tk, fds[l]).State() == pmu.StateActive {
							s += l
						}
					}
					return s
				}
				got = append(got, active())
				start := mc.m.Now() / interval * interval
				for i := 1; i < len(tc.want); i++ {
					// Half an interval after the i-th expiry.
					computeUntil(mc, tk, start+sim.Time(i)*interval+interval/2)
					got = append(got, active())
				}
				// The CPU-wide events outlive the task: close them so
				// that their rotation ends with the test.
				for _, e := range tc.events {
					_ = mc.k.Close(tk, fds[e.name])
				}
			})
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("ACTIVE groups per interval (-want +got):\n%s", d)
			}
		})
	}
}

// TestRotateStopsWhenFits: closing an ACTIVE event frees a counter, but the
// waiting event only gets it at the next expiry (removal does not
// reschedule, and rotate_necessary stays set while the PMU context has
// events). That rotation finds everything fits yet still returns true, so the
// timer runs one more interval, finds nothing to do and stops.
func TestRotateStopsWhenFits(t *testing.T) {
	mc := newMachine(t, 1, nil, pmu.Knobs{})
	const interval = sim.Millisecond
	mc.k.Opts.MuxInterval = interval
	var trail []string
	mc.runIn(t, 0, func(tk *sched.Task) {
		var fds []int
		for range 5 {
			a := countingCycles()
			fd, err := mc.k.PerfEventOpen(tk, &a, 0, -1, -1, 0)
			if err != nil {
				t.Fatal(err)
			}
			fds = append(fds, fd)
		}
		start := mc.m.Now() / interval * interval
		note := func() {
			s := fmt.Sprint(mc.k.MuxHrtimerActive("cpu", 0))
			for _, fd := range fds[1:] {
				s += fmt.Sprint(" ", mc.k.EventOf(tk, fd).State() == pmu.StateActive)
			}
			trail = append(trail, s)
		}
		computeUntil(mc, tk, start+interval/2)
		note()
		// After the first rotation fds[0] is off: rotate once more so it
		// is back on, then close it.
		computeUntil(mc, tk, start+5*interval+interval/2)
		note()
		if err := mc.k.Close(tk, fds[0]); err != nil {
			t.Fatal(err)
		}
		note()
		computeUntil(mc, tk, start+6*interval+interval/2)
		note()
		computeUntil(mc, tk, start+7*interval+interval/2)
		note()
	})
	want := []string{
		"true true true true false", // fds[4] waits
		"true true true true false", // after five rotations: as at first
		"true true true true false", // fds[0] closed: its counter idles
		"true true true true true",  // the next expiry puts fds[4] on
		"false true true true true", // and the one after stops the timer
	}
	if d := cmp.Diff(want, trail); d != "" {
		t.Errorf("hrtimer_active, fds[1:] ACTIVE (-want +got):\n%s", d)
	}
}

// TestRotateMovedGroup: a group led by cpu-clock with a cycles member lives
// with the hardware PMU (perf_event_open()'s move_group), so with four
// cycles events already on the four counters it takes its turn in the
// rotation of the cpu PMU: every event runs part of the 40ms.
func TestRotateMovedGroup(t *testing.T) {
	mc := newMachine(t, 1, nil, pmu.Knobs{})
	var running []uint64
	mc.runIn(t, 0, func(tk *sched.Task) {
		var fds []int
		for range 4 {
			a := countingCycles()
			fd, err := mc.k.PerfEventOpen(tk, &a, 0, -1, -1, 0)
			if err != nil {
				t.Fatal(err)
			}
			fds = append(fds, fd)
		}
		l := pmu.Attr{Type: uapi.PERF_TYPE_SOFTWARE, Size: uapi.AttrSize, Config: uapi.PERF_COUNT_SW_CPU_CLOCK,
			ReadFormat: uapi.PERF_FORMAT_TOTAL_TIME_ENABLED | uapi.PERF_FORMAT_TOTAL_TIME_RUNNING}
		lfd, err := mc.k.PerfEventOpen(tk, &l, 0, -1, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		m := countingCycles()
		mfd, err := mc.k.PerfEventOpen(tk, &m, 0, -1, lfd, 0)
		if err != nil {
			t.Fatal(err)
		}
		fds = append(fds, lfd, mfd)
		mc.s.RunOps(tk, []sched.Op{sched.Compute(40 * sim.Millisecond)})
		for _, fd := range fds {
			b, err := mc.k.Read(tk, fd)
			if err != nil || len(b) != 24 {
				t.Fatalf("read fd %d: %d bytes, %v", fd, len(b), err)
			}
			running = append(running, binary.LittleEndian.Uint64(b[16:]))
		}
	})
	for i, r := range running {
		if r == 0 || r >= uint64(40*sim.Millisecond) {
			t.Errorf("event %d ran %dns of 40ms: want a share of the counters", i, r)
		}
	}
}
