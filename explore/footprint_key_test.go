package explore

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// keyLog is a SegmentListener that records the stable key of every object
// the run's code touches, in order, and which object each key named.
type keyLog struct {
	seq    []string          // key and field of every access, in order
	named  map[string]string // key -> the object it named (its address or value)
	unkeyd map[string]int    // type and field of accesses with no key
	clash  []string          // keys that named two objects
}

func newKeyLog() *keyLog { return &keyLog{named: map[string]string{}, unkeyd: map[string]int{}} }

func (l *keyLog) Boundary(*cpu.CPU, cpu.BoundaryKind, cpu.Context, *cpu.Thread, string) {}

func (l *keyLog) Touch(obj any, field string, _ bool) {
	if u, ok := obj.(cpu.Unaudited); ok {
		l.seq = append(l.seq, "unaudited "+string(u)) // a mark, not an access (cpu.CPU.Unaudited): no key to check, but replayed alike
		return
	}
	key, ok := cpu.FootprintKey(obj)
	if !ok {
		l.unkeyd[fmt.Sprintf("%T %s", obj, field)]++
		return
	}
	l.seq = append(l.seq, key+" "+field)
	id := objectIdentity(obj)
	switch prev, seen := l.named[key]; {
	case !seen:
		l.named[key] = id
	case prev != id:
		l.clash = append(l.clash, fmt.Sprintf("%s names %s and %s (%T)", key, prev, id, obj))
	}
}

// objectIdentity is what makes an object itself: its address for a
// pointer (a task and its embedded thread, at one address, are one object),
// its value otherwise (a global's name).
func objectIdentity(obj any) string {
	if v := reflect.ValueOf(obj); v.Kind() == reflect.Pointer {
		return fmt.Sprintf("%#x", v.Pointer())
	}
	return fmt.Sprintf("%T(%v)", obj, obj)
}

// keyRun runs f once under a seeded random chooser with a keyLog installed.
func keyRun(t *testing.T, f *scenarios.File, seed uint64) *keyLog {
	t.Helper()
	l := newKeyLog()
	opts := Options{}.runOptions(sim.NewRandom(seed), false)
	opts.StopAtViolation, opts.MaxWall = false, 0 // a loaded machine says nothing about keys
	r, err := runner.Build(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	r.M.OnSegments(l)
	if err := r.Execute(); err != nil {
		t.Fatal(err)
	}
	return l
}

// TestFootprintKeysStable: in every built-in but the benchmarks (a few
// under -short), every object the code touches has a stable key
// (cpu.FootprintKey), two replays of one schedule touch the same keys in
// the same order, and no key names two objects in a run.
func TestFootprintKeysStable(t *testing.T) {
	names := []string{"aux-pause-resume-nmi", "rb-data-head-backwards", "pmu-overflow-vs-sched-out", "coresight-snapshot-sched-out"}
	if !testing.Short() {
		names = names[:0]
		for _, b := range scenarios.Builtins() {
			if strings.HasSuffix(b.Name, "-benchmark") {
				continue // millions of syscalls, and every access logged twice: the others cover its code
			}
			names = append(names, b.Name)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			f := loadBuiltin(t, name)
			a, b := keyRun(t, f, 7), keyRun(t, f, 7)
			if len(a.unkeyd) > 0 {
				t.Errorf("accesses to objects with no stable key: %v", a.unkeyd)
			}
			if len(a.clash) > 0 {
				t.Errorf("keys naming two objects:\n%v", a.clash)
			}
			if diff := cmp.Diff(a.seq, b.seq); diff != "" {
				t.Errorf("two replays of one schedule touched different keys (-first +second):\n%s", diff)
			}
			if len(a.seq) == 0 {
				t.Errorf("no access at all: the listener heard nothing")
			}
		})
	}
}
