package runner

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"perfsim/scenarios"
	"perfsim/sim"
)

// TestLimitError: a run that reaches a limit returns a *LimitError (not a
// scenario error) naming the limit, its value and the flag that raises it;
// a negative Options field is no limit.
func TestLimitError(t *testing.T) {
	spin := "task spin\n  repeat 1_000_000_000_000\n    compute 0us\n"
	closes := "task bench\n  repeat 1_000_000\n    syscall close\nrecord -e raw_syscalls:sys_enter -- bench\n"
	tests := []struct {
		name string
		src  string
		opts Options
		want *LimitError // nil: the run ends normally
	}{
		{"steps", spin, Options{MaxSteps: 5000}, // spin starts after one 723 ns context switch (this machine's costs)
			&LimitError{Limit: StepLimit, Value: "5000 steps", Flag: "--max-steps", At: 723 * sim.Nanosecond, Steps: 5000}},
		{"time", closes, Options{Limit: sim.Millisecond},
			&LimitError{Limit: TimeLimit, Value: "1ms", Flag: "--time", At: sim.Millisecond, Detail: "tasks not exited: bench (runnable), perf (sleeping)"}}, // perf is asleep at 1ms: its four rings took the first ~420us, bench's execve() ~170us after them
		{"time, steps unlimited", spin, Options{Limit: sim.Millisecond, MaxSteps: -1, MaxWall: 100 * time.Millisecond},
			&LimitError{Limit: WallLimit, Value: "100ms", Flag: "--max-wall"}},
		{"memory", closes, Options{MaxMemory: 1 << 10},
			&LimitError{Limit: MemoryLimit, Value: "1K", Flag: "--max-memory"}},
		{"within the limits", "task t\n  repeat 10\n    syscall close\n", Options{MaxSteps: 1000, Limit: sim.Millisecond}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Load(&scenarios.Source{Name: "limits.sim", Src: []byte(tt.src)})
			if err != nil {
				t.Fatal(err)
			}
			_, res, err := RunOnce(f, tt.opts)
			var le *LimitError
			if tt.want == nil {
				if err != nil || res == nil {
					t.Fatalf("RunOnce = %v, want a Result", err)
				}
				return
			}
			if !errors.As(err, &le) || !IsLimit(err) || res != nil {
				t.Fatalf("RunOnce = %v, %v; want a *LimitError and no Result", res, err)
			}
			var se *scenarios.Error
			if errors.As(err, &se) {
				t.Errorf("a limit is a scenario error too: %v", err)
			}
			// Where a wall-clock or memory limit strikes depends on the machine.
			ignore := cmpopts.IgnoreFields(LimitError{}, "Token")
			if tt.want.Limit == WallLimit || tt.want.Limit == MemoryLimit {
				ignore = cmpopts.IgnoreFields(LimitError{}, "Token", "At", "Steps", "Detail")
			} else if tt.want.Limit == TimeLimit {
				ignore = cmpopts.IgnoreFields(LimitError{}, "Token", "Steps")
			}
			if diff := cmp.Diff(tt.want, le, ignore); diff != "" {
				t.Errorf("(-want +got):\n%s\n%v", diff, le)
			}
		})
	}
}
