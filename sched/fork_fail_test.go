package sched

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/faultinject"
	"perfsim/sim"
	"perfsim/uapi"
)

// freeTaskLog is a ForkCleanupHook that counts perf_event_init_task() and
// perf_event_free_task() calls.
type freeTaskLog struct{ inits, frees int }

func (l *freeTaskLog) InitTask(parent, child *Task, flags uint64) error { l.inits++; return nil }
func (l *freeTaskLog) Forked(parent, child *Task, flags uint64)         {}
func (l *freeTaskLog) FreeTask(parent, child *Task)                     { l.frees++ }

// TestForkFailsAfterPerfInit: each of copy_process()'s allocations after
// perf_event_init_task() fails the fork with -ENOMEM (clone()'s return),
// unwinds through perf_event_free_task(), makes no child, and gives back
// the pid number it had not taken yet (alloc_pid() comes after them): the
// next fork gets it. A thread shares what the first five copy, so only
// alloc_pid() can fail it.
func TestForkFailsAfterPerfInit(t *testing.T) {
	type result struct {
		Rets     []int64
		Children int
		Frees    int
		Injected []string
	}
	for _, tc := range []struct {
		site   string
		flags  uint64
		failed bool
	}{
		{"dup_fd", ForkFlags, true},
		{"copy_fs_struct", ForkFlags, true},
		{"copy_sighand", ForkFlags, true},
		{"copy_signal", ForkFlags, true},
		{"dup_mm", ForkFlags, true},
		{"alloc_pid", ForkFlags, true},
		{"dup_fd", ThreadFlags, false},
		{"copy_fs_struct", ThreadFlags, false},
		{"copy_sighand", ThreadFlags, false},
		{"copy_signal", ThreadFlags, false},
		{"dup_mm", ThreadFlags, false},
		{"alloc_pid", ThreadFlags, true},
	} {
		kind := "fork"
		if tc.flags&CLONE_THREAD != 0 {
			kind = "thread"
		}
		t.Run(tc.site+" "+kind, func(t *testing.T) {
			m, s := newSched(t, 1, DefaultConfig())
			hook := &freeTaskLog{}
			s.ForkHooks = append(s.ForkHooks, hook)
			s.Faults = faultinject.NewPlan([]*faultinject.Rule{{Site: tc.site, Who: "p", Nth: 1}})
			var got result
			ret := Call(func(t *Task) { got.Rets = append(got.Rets, t.Sys.Ret) })
			p := s.Spawn("p", CPUMask{},
				Fork("c1", tc.flags, Compute(sim.Microsecond)), ret,
				Fork("c2", tc.flags, Compute(sim.Microsecond)), ret,
				Compute(10*sim.Microsecond))
			s.Faults.Bind("p", p)
			firstTID := s.nextPID + 1 // the TID the first clone takes
			if err := m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			got.Children = len(s.Tasks) - 1
			got.Frees = hook.frees
			got.Injected = s.Faults.Injected
			want := result{Rets: []int64{int64(firstTID), int64(firstTID + 1)}, Children: 2}
			if tc.failed {
				want = result{Rets: []int64{-int64(uapi.ENOMEM), int64(firstTID)}, Children: 1, Frees: 1, Injected: []string{tc.site + " in p (call 1)"}}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("clone()s with %s failed once (-want +got):\n%s", tc.site, diff)
			}
			if hook.inits != 2 {
				t.Errorf("perf_event_init_task() ran %d times; want 2 (the failures come after it)", hook.inits)
			}
		})
	}
}

// TestCloneRet: what clone() returns to the parent.
func TestCloneRet(t *testing.T) {
	for _, tc := range []struct {
		c    *Task
		err  error
		want int64
	}{
		{&Task{TID: 1234}, nil, 1234},
		{nil, uapi.ENOMEM, -12},
		{nil, ErrIntr, -4},
	} {
		if got := cloneRet(tc.c, tc.err); got != tc.want {
			t.Errorf("cloneRet(%v, %v) = %d; want %d", tc.c, tc.err, got, tc.want)
		}
	}
}
