package sched

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"perfsim/cpu"
	"perfsim/sim"
)

// rqState is what a placement reads of one CPU: whether a task runs there
// (rq->curr), how many wait on its run queue, whether a wake-up is pending
// on its wake list.
type rqState struct {
	running bool
	queued  int
	pending bool
}

// placeMachine builds a scheduler of len(st) CPUs whose run queues hold
// st's tasks (made, not run: the placement functions only read the state).
func placeMachine(t *testing.T, st []rqState) *Sched {
	t.Helper()
	m, s := placeState(st)
	t.Cleanup(m.Close)
	return s
}

func placeState(st []rqState) (*cpu.Machine, *Sched) {
	m := cpu.NewMachine(cpu.Config{CPUs: len(st)}, sim.NewReplay(nil))
	s := New(m, DefaultConfig())
	for i, c := range st {
		mk := func(name string) *Task {
			return &Task{Comm: name, Allowed: AllCPUs(len(st)), s: s, lastCPU: i}
		}
		if c.running {
			s.rqCurr[i] = mk(fmt.Sprintf("run%d", i))
		}
		for k := 0; k < c.queued; k++ {
			s.rq[i] = append(s.rq[i], mk(fmt.Sprintf("q%d.%d", i, k)))
		}
		if c.pending {
			s.wakeList[i] = append(s.wakeList[i], mk(fmt.Sprintf("w%d", i)))
		}
	}
	return m, s
}

// TestSelectIdleSibling: the wake-up fast path as select_idle_sibling()
// takes it on one LLC: an idle target, then an idle prev, then an idle
// recently used CPU, then the first idle CPU after target (wrapping), then
// target; a CPU with a pending wake-up or a queued task is not idle, and
// one outside the affinity is never taken.
func TestSelectIdleSibling(t *testing.T) {
	busy := rqState{running: true}
	idle := rqState{}
	tests := []struct {
		name          string
		st            []rqState
		allowed       CPUMask // empty: all
		prev, target  int
		recent        int
		want          int
		wantRecentSet int // p->recent_used_cpu afterwards
	}{
		{"idle target", []rqState{busy, idle, idle, idle}, CPUMask{}, 1, 0, 1, 1, 1},
		{"target busy, prev idle", []rqState{busy, idle, busy, busy}, CPUMask{}, 1, 0, 3, 1, 3},
		{"recent used idle", []rqState{busy, busy, busy, idle}, CPUMask{}, 1, 0, 3, 3, 1},
		{"scan after target", []rqState{busy, busy, idle, idle}, CPUMask{}, 1, 1, 1, 2, 1},
		{"scan wraps", []rqState{idle, busy, busy, busy}, CPUMask{}, 2, 2, 2, 0, 2},
		{"scan skips disallowed", []rqState{busy, busy, idle, idle}, MaskOf(0, 1, 3), 1, 1, 1, 3, 1},
		{"pending wake is not idle", []rqState{busy, busy, {pending: true}, idle}, CPUMask{}, 1, 1, 1, 3, 1},
		{"queued task is not idle", []rqState{busy, busy, {queued: 1}, busy}, CPUMask{}, 1, 1, 1, 1, 1},
		{"nothing idle: target", []rqState{busy, busy, busy}, CPUMask{}, 2, 0, 2, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := placeMachine(t, tt.st)
			p := &Task{Comm: "p", Allowed: tt.allowed, s: s, lastCPU: tt.prev, recentUsedCPU: tt.recent}
			if p.Allowed.Empty() {
				p.Allowed = AllCPUs(len(tt.st))
			}
			got := []int{s.selectIdleSibling(p, tt.prev, tt.target), p.recentUsedCPU}
			if diff := cmp.Diff([]int{tt.want, tt.wantRecentSet}, got); diff != "" {
				t.Errorf("selectIdleSibling(prev %d, target %d) [cpu, recent_used_cpu] (-want +got):\n%s", tt.prev, tt.target, diff)
			}
		})
	}
}

// TestWakeAffine: wake_affine() between the waker's CPU (this) and prev.
func TestWakeAffine(t *testing.T) {
	busy := rqState{running: true}
	idle := rqState{}
	tests := []struct {
		name       string
		st         []rqState
		this, prev int
		sync       bool
		want       int
	}{
		// wake_affine_idle(): the waker's CPU idle (a wake-up from an irq)
		{"this idle, prev busy: this", []rqState{idle, busy}, 0, 1, false, 0},
		{"both idle: prev", []rqState{idle, idle}, 0, 1, false, 1},
		{"sync, waker alone: this", []rqState{busy, busy}, 0, 1, true, 0},
		{"sync, waker not alone, prev busy: weight", []rqState{{running: true, queued: 1}, busy}, 0, 1, true, 1},
		{"prev idle: prev", []rqState{busy, idle}, 0, 1, false, 1},
		// wake_affine_weight(): (this+1)*100 < (prev-1)*108 in loads
		{"prev one task: prev", []rqState{busy, busy}, 0, 1, false, 1},
		{"prev two tasks: prev", []rqState{busy, {running: true, queued: 1}}, 0, 1, false, 1},
		{"prev three tasks: this", []rqState{busy, {running: true, queued: 2}}, 0, 1, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := placeMachine(t, tt.st)
			p := &Task{Comm: "p", Allowed: AllCPUs(len(tt.st)), s: s, lastCPU: tt.prev}
			if got := s.wakeAffine(p, tt.this, tt.prev, tt.sync); got != tt.want {
				t.Errorf("wakeAffine(this %d, prev %d, sync %v) = %d, want %d", tt.this, tt.prev, tt.sync, got, tt.want)
			}
		})
	}
}

// TestSchedBalanceFindDstCPU: the fork/exec slow path picks the group with
// the most idle CPUs (the first after this CPU on a tie), stays on this CPU
// when it is as idle, and compares loads with imbalance_pct when none is
// idle.
func TestSchedBalanceFindDstCPU(t *testing.T) {
	busy := rqState{running: true}
	idle := rqState{}
	two := rqState{running: true, queued: 1}
	tests := []struct {
		name    string
		st      []rqState
		allowed CPUMask
		this    int
		want    int
	}{
		{"this idle: stay", []rqState{idle, idle, idle}, CPUMask{}, 0, 0},
		{"this busy: first idle after it", []rqState{busy, busy, idle, idle}, CPUMask{}, 1, 2},
		{"first idle wraps", []rqState{idle, busy, busy}, CPUMask{}, 1, 0},
		{"idle CPU not allowed", []rqState{busy, idle, busy}, MaskOf(0, 2), 0, 0},
		{"all busy, equal: stay", []rqState{busy, busy}, CPUMask{}, 0, 0},
		{"this overloaded: the fully busy one", []rqState{two, busy}, CPUMask{}, 0, 1},
		{"this not allowed: the idlest allowed", []rqState{idle, two, busy}, MaskOf(1, 2), 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := placeMachine(t, tt.st)
			allowed := tt.allowed
			if allowed.Empty() {
				allowed = AllCPUs(len(tt.st))
			}
			p := &Task{Comm: "child", Allowed: allowed, s: s, lastCPU: tt.this}
			if got := s.schedBalanceFindDstCPU(p, tt.this, tt.this, sdBalanceFork); got != tt.want {
				t.Errorf("schedBalanceFindDstCPU(this %d) = %d, want %d", tt.this, got, tt.want)
			}
		})
	}
}

// TestPlacementRuns: placements as a run makes them, read from the
// sched_wakeup_new / sched_migrate_task tracepoints. Four unpinned tasks
// made on an idle 4-CPU machine spread one a CPU (fork balancing: each
// made while the earlier wait on theirs); a child forked by a computing
// parent goes to an idle CPU; a task that sleeps while its CPU gets busy
// is woken onto an idle one; a CPU going idle pulls the oldest queued task
// that is not cache hot (sched_balance_newidle()).
func TestPlacementRuns(t *testing.T) {
	t.Run("spawn spreads", func(t *testing.T) {
		m, s := newSched(t, 4, exactSleeps())
		var got []int
		for i := range 4 {
			got = append(got, s.Spawn(fmt.Sprint("t", i), CPUMask{}, Compute(sim.Microsecond)).lastCPU)
		}
		if err := m.Run(sim.Second); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]int{0, 1, 2, 3}, got); diff != "" {
			t.Errorf("CPUs of the spawned tasks (-want +got):\n%s", diff)
		}
	})
	t.Run("fork to idle", func(t *testing.T) {
		m, s := newSched(t, 2, exactSleeps())
		l := &traceLog{}
		s.TraceHooks = append(s.TraceHooks, l)
		s.Spawn("parent", CPUMask{}, Compute(sim.Microsecond), Fork("child", ForkFlags, Compute(sim.Microsecond)), Compute(5*sim.Microsecond))
		if err := m.Run(sim.Second); err != nil {
			t.Fatal(err)
		}
		want := "cpu0 wakeup new=true parent/102 target=1"
		if !contains(l.lines, want) {
			t.Errorf("no %q in:\n%v", want, l.lines)
		}
	})
	t.Run("wake to idle", func(t *testing.T) {
		m, s := newSched(t, 2, exactSleeps())
		l := &traceLog{}
		s.TraceHooks = append(s.TraceHooks, l)
		s.Spawn("sleeper", CPUMask{}, Sleep(2*sim.Microsecond), Compute(sim.Microsecond))
		s.Spawn("hog", MaskOf(0), Compute(20*sim.Microsecond))
		if err := m.Run(sim.Second); err != nil {
			t.Fatal(err)
		}
		want := "cpu0 migrate sleeper/101 0->1"
		if !contains(l.lines, want) {
			t.Errorf("no %q in:\n%v", want, l.lines)
		}
	})
	t.Run("newidle pull", func(t *testing.T) {
		m, s := newSched(t, 2, exactSleeps())
		l := &traceLog{}
		s.TraceHooks = append(s.TraceHooks, l)
		// a and b start on cpu0 (cpu1 runs c); c finishes first and cpu1
		// pulls b, queued behind a and never run (not cache hot).
		s.Spawn("a", MaskOf(0), Compute(50*sim.Microsecond))
		s.Spawn("c", MaskOf(1), Compute(2*sim.Microsecond))
		b := s.Spawn("b", CPUMask{}, Compute(sim.Microsecond))
		if err := m.Run(sim.Second); err != nil {
			t.Fatal(err)
		}
		want := "cpu1 migrate b/103 0->1"
		if b.lastCPU != 1 || !contains(l.lines, want) {
			t.Errorf("b ended on cpu%d; want a %q in:\n%v", b.lastCPU, want, l.lines)
		}
	})
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// TestPlacementProperties: whatever the run queues hold, a placement never
// leaves the task's affinity, and an idle CPU the task may use is chosen at
// fork (the idlest group) and at wake-up (select_idle_sibling() scans the
// whole LLC) whenever one exists.
func TestPlacementProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(2, 8).Draw(rt, "cpus")
		st := make([]rqState, n)
		for i := range st {
			st[i] = rqState{
				running: rapid.Bool().Draw(rt, fmt.Sprint("running", i)),
				queued:  rapid.IntRange(0, 2).Draw(rt, fmt.Sprint("queued", i)),
				pending: rapid.IntRange(0, 5).Draw(rt, fmt.Sprint("pending", i)) == 0,
			}
		}
		var cpus []int
		for i := range n {
			if rapid.Bool().Draw(rt, fmt.Sprint("allowed", i)) {
				cpus = append(cpus, i)
			}
		}
		if len(cpus) < 2 {
			cpus = []int{0, n - 1}
		}
		allowed := MaskOf(cpus...)
		this := rapid.IntRange(0, n-1).Draw(rt, "this")
		prev := rapid.SampledFrom(cpus).Draw(rt, "prev")
		m, s := placeState(st)
		defer m.Close()
		idleAllowed := false
		for _, c := range cpus {
			idleAllowed = idleAllowed || s.availableIdleCPU(c)
		}
		for _, wf := range []int{wfFork, wfExec, wfTTWU, wfTTWU | wfSync} {
			p := &Task{Comm: "p", Allowed: allowed, s: s, lastCPU: prev, recentUsedCPU: -1}
			var got int
			if wf&wfTTWU != 0 {
				// the waker runs on this: select_task_rq_fair()'s body with cpu = this
				newCPU := prev
				if p.Allowed.Has(this) && this != prev {
					newCPU = s.wakeAffine(p, this, prev, wf&wfSync != 0)
				}
				got = s.selectIdleSibling(p, prev, newCPU)
			} else {
				got = s.schedBalanceFindDstCPU(p, this, prev, wf)
				if got == this && !allowed.Has(this) {
					got = s.fallbackCPU(p) // select_task_rq(): !is_cpu_allowed()
				}
			}
			if !allowed.Has(got) && wf&wfTTWU == 0 {
				rt.Fatalf("wf %#x: placed on cpu%d outside %s", wf, got, allowed)
			}
			if wf&wfTTWU != 0 && !allowed.Has(got) {
				rt.Fatalf("wake-up placed on cpu%d outside %s", got, allowed)
			}
			if idleAllowed && !s.availableIdleCPU(got) && (wf&wfTTWU != 0 || wf == wfFork) {
				rt.Fatalf("wf %#x: cpu%d chosen while an allowed CPU is idle (state %+v, allowed %s, this %d, prev %d)", wf, got, st, allowed, this, prev)
			}
		}
	})
}
