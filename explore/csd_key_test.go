package explore

import (
	"fmt"
	"strings"
	"testing"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
)

// csdKeys is a cpu.SegmentListener that keeps, per calling thread, the
// csd keys its own fragments touched (csd_lock_wait()'s reads), in order,
// and which thread's call came first in the run.
type csdKeys struct {
	cur   *cpu.Thread
	keys  map[int][]string // by TID
	first int              // TID of the first caller
}

func (l *csdKeys) Boundary(_ *cpu.CPU, _ cpu.BoundaryKind, ctx cpu.Context, th *cpu.Thread, _ string) {
	l.cur = nil
	if ctx == cpu.CtxTask {
		l.cur = th
	}
}

func (l *csdKeys) Touch(obj any, _ string, _ bool) {
	key, ok := cpu.FootprintKey(obj)
	if l.cur == nil || !ok || !strings.HasPrefix(key, "csd#") {
		return
	}
	tid := sched.TaskOf(l.cur).TID
	if l.first == 0 {
		l.first = tid
	}
	if k := l.keys[tid]; len(k) == 0 || k[len(k)-1] != key {
		l.keys[tid] = append(k, key)
	}
}

// TestCSDKeyPerCaller: a csd's key is its caller's TID and the number of
// the call among that thread's own (pmu/footprint_key.go), so the order in
// which two CPUs make their calls does not rename them. On the shipped
// sigtrap-cross-close-hang, two tasks on two CPUs each call
// smp_call_function_single(); over 100 schedules each of them makes the
// first call of some run, and every
// thread's calls are always named csd#1@tidT, csd#2@tidT, ... T its own.
// A number in the run's order of calls (the key before) named one call
// csd#1 in one schedule and csd#2 in another, so a footprint kept from one
// schedule (a sleep set's) could name another call's csd in the next.
func TestCSDKeyPerCaller(t *testing.T) {
	f := loadBuiltin(t, "sigtrap-cross-close-hang")
	firsts := map[int]int{}
	for seed := uint64(1); seed <= 100; seed++ {
		l := &csdKeys{keys: map[int][]string{}}
		walkedRun(t, f, nil, sim.NewRandom(seed), func(m *cpu.Machine) { m.OnSegments(l) })
		for tid, keys := range l.keys {
			for i, k := range keys {
				if want := fmt.Sprintf("csd#%d@tid%d/csd->flags", i+1, tid); k != want {
					t.Fatalf("seed %d: tid %d's call %d touched %s, want %s (its keys: %v)", seed, tid, i+1, k, want, keys)
				}
			}
		}
		if len(l.keys) > 1 {
			firsts[l.first]++
		}
	}
	if len(firsts) < 2 {
		t.Errorf("the first call came from %v (TID: runs); want schedules where each of two callers makes it", firsts)
	}
	t.Logf("first caller by TID over 100 schedules: %v", firsts)
}
