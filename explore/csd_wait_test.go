package explore

import (
	"fmt"
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
// the call not done (it ends at the wait's own step point, the end
// pmu/footprint_funccall.go declares) reads the call's csd->flags and the
// soft-lockup watchdog's report (sched.Sched.SpinRound) and reaches no
// unaudited code; a round that finds it done returns into the
// caller, marked there, wherever it ends. On the shipped
// group-leader-close-sample-read, whose close removes events from another
// CPU by IPI, over 100 schedules both kinds occur.
func TestCSDWaitRound(t *testing.T) {
	f := loadBuiltin(t, "group-leader-close-sample-read")
	var spun, done int
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
			case r.end != "":
				done++
				if !strings.Contains(fmt.Sprint(r.marks), "smp_call_function_single's caller") {
					t.Errorf("seed %d: a round that ended at %s is not marked where it returned into the caller: %v", seed, r.end, r.marks)
				}
			}
		}
	}
	if spun == 0 || done == 0 {
		t.Errorf("over 100 schedules: %d rounds came back to the wait, %d returned into the caller; want both", spun, done)
	}
	t.Logf("%d rounds came back to the wait, %d returned into the caller", spun, done)
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
