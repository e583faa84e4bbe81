package explore

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/scenarios"
	"perfsim/sim"
)

// traceClass is the Mazurkiewicz trace of one run as dpor's dependence
// sees it: each context's fragments in order (by their start), and every
// ordered pair of dependent fragments of two contexts (porDependent). Two
// runs are equivalent (one is the other with independent fragments
// swapped) exactly when their classes are equal. Fragments that never ran
// code (opened at a step point where another context was chosen, or
// touched nothing after) are left out on both sides alike.
func traceClass(frags []*porEvent) string {
	units, id := traceUnits(frags)
	var lines []string
	for _, u := range units {
		lines = append(lines, id[u])
	}
	slices.Sort(lines) // each context's own order is in its numbering
	for i, e := range units {
		for _, f := range units[i+1:] {
			if e.agent != f.agent && porDependent(e, f) {
				lines = append(lines, id[e]+" < "+id[f])
			}
		}
	}
	slices.Sort(lines)
	return strings.Join(slices.Compact(lines), "\n")
}

// traceUnits are a run's fragments as traceClass counts them, each named
// by its context, its number among that context's and its start.
func traceUnits(frags []*porEvent) (units []*porEvent, id map[*porEvent]string) {
	// A context's code from one step point (or handler entry) to the next
	// is one fragment however often it was cut where it went on (a
	// handler's return, the engine resuming its lane): where those cuts
	// fall depends on the other contexts' timing, not on the class.
	open := map[porAgent]*porEvent{}
	id = map[*porEvent]string{}
	nth := map[porAgent]int{}
	for _, f := range frags {
		if f.dropped || f.complete && f.empty() {
			continue // ran no code, or none that touched anything but what every fragment reads (Boundary)
		}
		if u := open[f.agent]; u != nil && f.cont && u.start == f.start {
			u.merge(f)
			continue
		}
		u := &porEvent{agent: f.agent, start: f.start, complete: f.complete, why: f.why}
		u.merge(f)
		open[f.agent] = u
		units = append(units, u)
		id[u] = fmt.Sprintf("%v#%d:%s", f.agent, nth[f.agent], f.start)
		nth[f.agent]++
	}
	return units, id
}

// traceRecorder listens to a run of the full tree for its fragments, as
// dpor's run does, without choosing anything.
func traceRecorder() *porRun {
	return &porRun{s: &porSearch{}, task: map[*cpu.Thread]string{}, irq: map[porAgent]string{}, until: untilFragments{}}
}

// traceClasses walks f's full tree (dpor false) or dpor's walk and returns
// the classes of the schedules that ran to their end, and how many did.
func traceClasses(t *testing.T, f *scenarios.File, dpor bool, maxRuns int) (classes map[string]bool, runs int) {
	t.Helper()
	classes = map[string]bool{}
	one := func(ch sim.Chooser, attach func(*cpu.Machine)) {
		p, _ := ch.(*porRun)
		if p == nil {
			p = traceRecorder()
			attach = p.attach
		}
		walkedRun(t, f, nil, ch, attach)
		p.flushUntil()
		classes[traceClass(p.frags)] = true
		runs++
	}
	if !walkTree(t, dpor, maxRuns, one) {
		t.Fatalf("not finished within %d schedules (dpor %v)", maxRuns, dpor)
	}
	return classes, runs
}

// TestDPORReachesEveryTrace: every Mazurkiewicz trace of the full tree
// (a class of schedules equivalent under porDependent) is one dpor's walk
// runs. This is the property the search rests on, checked directly rather
// than through the final states it implies; it is what the happens-before
// filter on races (dpor_hb.go) must keep. The schedule counts are pinned
// too: dpor may run a class more than once (a context sleeps by its whole
// transition to the next decision, coarser than its fragments), and a
// change that makes it do so less shows there.
func TestDPORReachesEveryTrace(t *testing.T) {
	parse := func(src string) func(t *testing.T) *scenarios.File {
		return func(t *testing.T) *scenarios.File {
			f, err := scenarios.Parse("trace.sim", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	builtin := func(name string) func(t *testing.T) *scenarios.File {
		return func(t *testing.T) *scenarios.File { return cutBuiltin(t, name, 0) }
	}
	for _, tc := range []struct {
		name    string
		f       func(t *testing.T) *scenarios.File
		classes int
		// dpor's schedules with the happens-before filter and without
		schedules, unfiltered int
		long                  bool
	}{
		{"migrate", parse(bruteMigrate), 9, 32, 48, false},
		{"sigtrap-vs-exit", builtin("sigtrap-vs-exit"), 5, 5, 5, true},
		{"sigtrap-inherit-vs-close", builtin("sigtrap-inherit-vs-close"), 5, 5, 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.long && testing.Short() {
				t.Skip("long: the full tree")
			}
			f := tc.f(t)
			full, fruns := traceClasses(t, f, false, 30000)
			got, runs := traceClasses(t, f, true, 30000)
			porHBFilter = false
			unf, uruns := traceClasses(t, f, true, 30000)
			porHBFilter = true
			for _, w := range []struct {
				name string
				got  map[string]bool
			}{{"dpor", got}, {"dpor without the happens-before filter", unf}} {
				var miss []string
				for c := range full {
					if !w.got[c] {
						miss = append(miss, c)
					}
				}
				if len(miss) > 0 {
					slices.Sort(miss)
					t.Errorf("%s: %d of the full tree's %d classes never run; the first, against the nearest it runs:\n%s", w.name, len(miss), len(full), nearestClass(miss[0], w.got))
				}
			}
			if d := cmp.Diff([]int{tc.classes, tc.schedules, tc.unfiltered}, []int{len(full), runs, uruns}); d != "" {
				t.Errorf("the full tree's classes, dpor's schedules with the filter and without (-want +got):\n%s", d)
			}
			t.Logf("full tree: %d schedules, %d classes; dpor: %d schedules (%d without the filter)", fruns, len(full), runs, uruns)
		})
	}
}

// nearestClass says how class c differs from the nearest of got: the lines
// only c has (-) and only it has (+).
func nearestClass(c string, got map[string]bool) string {
	cl := strings.Split(c, "\n")
	best, bn := "", -1
	for g := range got {
		gl := strings.Split(g, "\n")
		var d []string
		for _, l := range cl {
			if !slices.Contains(gl, l) {
				d = append(d, "- "+l)
			}
		}
		for _, l := range gl {
			if !slices.Contains(cl, l) {
				d = append(d, "+ "+l)
			}
		}
		if bn < 0 || len(d) < bn {
			bn, best = len(d), strings.Join(d, "\n")
		}
	}
	return best
}
