package explore

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"perfsim/cpu"
	"perfsim/sim"
)

// csdRounds is a cpu.SegmentListener that follows the task fragments
// starting at smp_call_function_single()'s wait: per round, what it
// touched and the step point it ended at.
type csdRounds struct {
	open   map[*cpu.Thread]*csdRound
	cur    *csdRound // the round running now, nil for any other fragment
	rounds []*csdRound
}

type csdRound struct {
	touched []string // "KEY FIELD r|w"
	marks   []string // the unaudited code it reached
	end     string
}

func (l *csdRounds) Boundary(_ *cpu.CPU, kind cpu.BoundaryKind, ctx cpu.Context, th *cpu.Thread, label string) {
	if ctx != cpu.CtxTask || th == nil {
		l.cur = nil
		return
	}
	if kind == cpu.BoundaryStep {
		if r := l.open[th]; r != nil {
			r.end = label
			delete(l.open, th)
		}
		if label == "smp_call_function_single:wait" {
			r := &csdRound{}
			l.open[th] = r
			l.rounds = append(l.rounds, r)
		}
	}
	l.cur = l.open[th]
}

func (l *csdRounds) Touch(obj any, field string, write bool) {
	if l.cur == nil {
		return
	}
	if u, ok := obj.(cpu.Unaudited); ok {
		l.cur.marks = append(l.cur.marks, string(u))
		return
	}
	key, _ := cpu.FootprintKey(obj)
	op := "r"
	if write {
		op = "w"
	}
	l.cur.touched = append(l.cur.touched, key+" "+field+" "+op)
}

// TestCSDWaitRound: a round of smp_call_function_single()'s wait that finds
// the call not done (it ends at the wait's own step point, one of the ends
// pmu/footprint_funccall.go declares) reads the call's csd->flags and the
// soft-lockup watchdog's report (sched.Sched.SpinRound) and reaches no
// unaudited code. A round that finds it done returns into the caller:
// read(2)'s group read annotates its code up to its next read's step point
// or, after the last, through the syscall's return to
// exit_to_user_mode_loop (pmu/footprint_read.go), so such a round reaches
// no unaudited code and ends at a declared end, having read csd->flags;
// the close's removal returns into perf_event_release_kernel()'s tail,
// annotated through _free_event() (pmu/footprint_release.go), which
// marks only the cancel of a timer armed on another CPU (none here since
// the cancel of this CPU's was annotated: a round is marked there, never
// at the call's return). On the shipped group-leader-close-sample-read,
// whose close removes events from another CPU by IPI and whose reader
// reads the group by IPI, over 100 schedules the first two kinds occur.
func TestCSDWaitRound(t *testing.T) {
	f := loadBuiltin(t, "group-leader-close-sample-read")
	ends, _ := cpu.CompleteUntil("smp_call_function_single:wait")
	var spun, vouched, marked int
	vouchedAt := map[string]int{}
	for seed := uint64(1); seed <= 100; seed++ {
		l := &csdRounds{open: map[*cpu.Thread]*csdRound{}}
		walkedRun(t, f, nil, sim.NewRandom(seed), func(m *cpu.Machine) { m.OnSegments(l) })
		for _, r := range l.rounds {
			switch {
			case r.end == "smp_call_function_single:wait":
				spun++
				if len(r.marks) > 0 {
					t.Errorf("seed %d: a round that came back to the wait reached unaudited code %v", seed, r.marks)
				}
				if !containsPrefixSuffix(r.touched, "csd#", " sync r") {
					t.Errorf("seed %d: a round that came back to the wait did not read csd->flags: %v", seed, r.touched)
				}
				if !containsPrefixSuffix(r.touched, "softlockup ", " r") {
					t.Errorf("seed %d: a round that came back to the wait did not read the soft-lockup report: %v", seed, r.touched)
				}
			case r.end != "" && len(r.marks) == 0:
				vouched++
				vouchedAt[r.end]++
				if !slices.Contains(ends, r.end) {
					t.Errorf("seed %d: a round that returned into the caller reached no unaudited code but ended at %s, not a declared end %v", seed, r.end, ends)
				}
				if !containsPrefixSuffix(r.touched, "csd#", " sync r") {
					t.Errorf("seed %d: a round that found the call done did not read csd->flags: %v", seed, r.touched)
				}
			case r.end != "":
				marked++
				if fmt.Sprint(r.marks) != "[hrtimer_cancel (another CPU's)]" {
					t.Errorf("seed %d: a round that ended at %s reached unaudited code %v, want only _free_event()'s cancel of a timer armed on another CPU", seed, r.end, r.marks)
				}
			}
		}
	}
	if spun == 0 || vouched == 0 || vouchedAt["exit_to_user_mode_loop"] == 0 {
		t.Errorf("over 100 schedules: %d rounds came back to the wait, %d returned into annotated callers (%v), %d were marked; want the first two, and some at exit_to_user_mode_loop", spun, vouched, vouchedAt, marked)
	}
	t.Logf("%d rounds came back to the wait, %d returned into annotated callers (by end: %v), %d were marked", spun, vouched, vouchedAt, marked)
}

// containsPrefixSuffix reports whether some s of l starts with prefix and
// ends with suffix.
func containsPrefixSuffix(l []string, prefix, suffix string) bool {
	for _, s := range l {
		if strings.HasPrefix(s, prefix) && strings.HasSuffix(s, suffix) {
			return true
		}
	}
	return false
}
