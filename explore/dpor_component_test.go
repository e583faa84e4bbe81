package explore

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"perfsim/cpu"
	"perfsim/sim"
)

// localStates are the final states each CPU of a shape reaches, over a set
// of schedules: per CPU, its log's distinct values, sorted.
type localStates [][]string

func (ls localStates) add(st porShapeState) localStates {
	for len(ls) < len(st.logs) {
		ls = append(ls, nil)
	}
	for i, l := range st.logs {
		if !slices.Contains(ls[i], l) {
			ls[i] = append(ls[i], l)
		}
	}
	return ls
}

func (ls localStates) sorted() localStates {
	for _, s := range ls {
		slices.Sort(s)
	}
	return ls
}

// overlap reports whether some CPU reached an overlap (the guard-off
// violation: an NMI's pause inside the resume).
func (ls localStates) overlap() bool {
	for _, s := range ls {
		if slices.ContainsFunc(s, func(l string) bool { return strings.Contains(l, "O") }) {
			return true
		}
	}
	return false
}

// fullLocal walks the shape's full tree: every CPU's local states.
func fullLocal(sh porShape, maxRuns int) (localStates, int, bool) {
	var ls localStates
	runs, ex := fullWalk(maxRuns, -1, func(ch sim.Chooser) { ls = ls.add(sh.run(ch, nil)) })
	return ls.sorted(), runs, ex
}

// compLocal walks the shape component-wise: every CPU's local states, the
// search, and whether it is complete.
func compLocal(sh porShape, maxRuns int) (localStates, *compSearch, bool) {
	var ls localStates
	s, ex := compWalk(maxRuns, func(ch sim.Chooser, attach func(*cpu.Machine)) { ls = ls.add(sh.run(ch, attach)) })
	return ls.sorted(), s, ex
}

// TestCompShapeSameLocalStates: on small shapes of the per-CPU AUX
// pause/resume family, the component-wise walk is complete and reaches,
// on every CPU, exactly the final states the full tree reaches there (so
// the overlap, the guard-off violation, exactly when the full tree does);
// and where the CPUs are not independent (a counter they share, a
// fragment nobody vouched for) it refuses, saying why, and claims nothing.
func TestCompShapeSameLocalStates(t *testing.T) {
	for _, tc := range []struct {
		sh      porShape
		refused string // "": complete
	}{
		{porShape{CPUs: 1, K: 2, NMIs: []int{0, 1}, Guard: true}, ""},
		{porShape{CPUs: 1, K: 2, NMIs: []int{0, 1}, Guard: false}, ""},
		{porShape{CPUs: 2, K: 1, NMIs: []int{0}, Guard: true}, ""},
		{porShape{CPUs: 2, K: 1, NMIs: []int{0}, Guard: false}, ""},
		{porShape{CPUs: 2, K: 1, NMIs: []int{0, 0}, Guard: false}, ""},
		{porShape{CPUs: 1, K: 3, NMIs: []int{0, 2}, Guard: true}, ""},
		{porShape{CPUs: 1, K: 2, NMIs: []int{0, 1}, Guard: false, Skid: 40 * sim.Nanosecond}, ""},
		{porShape{CPUs: 2, K: 1, NMIs: []int{0}, Guard: true, Skid: 40 * sim.Nanosecond}, ""},
		{porShape{CPUs: 2, K: 1, NMIs: []int{0}, Guard: false, Skid: 40 * sim.Nanosecond}, ""},
		{porShape{CPUs: 2, K: 1, NMIs: []int{0}, Guard: true, Shared: true}, "shared (count) is touched by cpu0,cpu1 and written by cpu0,cpu1"},
		{porShape{CPUs: 2, K: 1, NMIs: []int{0}, Guard: true, SharedAdd: true}, ""},
		{porShape{CPUs: 2, K: 1, NMIs: []int{0, 0}, Guard: false, SharedAdd: true}, ""},
		{porShape{CPUs: 1, K: 2, NMIs: []int{0, 1}, Guard: true, SumRead: true}, ""},
		{porShape{CPUs: 2, K: 1, NMIs: []int{0}, Guard: true, SumRead: true}, "shared (sum) is added to by cpu0,cpu1 and read by cpu0"},
		{porShape{CPUs: 2, K: 1, NMIs: []int{0}, Guard: false, Hidden: true}, "fragment por-shape:done-hidden: not declared complete (cpu.DeclareComplete)"},
		{porShape{CPUs: 1, K: 1, NMIs: []int{0}, Guard: true, Hidden: true}, "fragment por-shape:done-hidden: not declared complete (cpu.DeclareComplete)"},
	} {
		full, fruns, fex := fullLocal(tc.sh, 200000)
		if !fex {
			t.Fatalf("%+v: full walk did not finish", tc.sh)
		}
		got, s, ex := compLocal(tc.sh, 200000)
		if tc.refused != "" {
			if ex || s.Refused != tc.refused {
				t.Errorf("%+v: complete %v, refused %q; want refused %q", tc.sh, ex, s.Refused, tc.refused)
			}
			continue
		}
		if !ex || s.Refused != "" {
			t.Fatalf("%+v: component-wise walk complete %v, refused %q", tc.sh, ex, s.Refused)
		}
		if d := cmp.Diff(full, got); d != "" {
			t.Errorf("%+v: per-CPU final states (-full tree +component-wise):\n%s", tc.sh, d)
		}
		if full.overlap() != got.overlap() || full.overlap() == tc.sh.Guard {
			t.Errorf("%+v: overlap: full tree %v, component-wise %v", tc.sh, full.overlap(), got.overlap())
		}
		t.Logf("%+v: full %d schedules, component-wise %d", tc.sh, fruns, s.Runs)
	}
}

// TestCompShapeProperty: for random small shapes (1 or 2 CPUs, NMIs due at
// random syscalls, with a skid or not on one CPU, guard on or off, a shared
// counter, a sum the CPUs only add to (and that the NMIs read or not), a
// fragment nobody vouched for), the component-wise walk either refuses (and
// then the shape has a counter two CPUs write, a sum one CPU reads while
// another adds to it, or an undeclared fragment) or is complete with every
// CPU's final states those of the full tree.
func TestCompShapeProperty(t *testing.T) {
	if testing.Short() {
		t.Skip("long: the full trees of multi-CPU shapes")
	}
	rapid.Check(t, func(rt *rapid.T) {
		c := rapid.IntRange(1, 2).Draw(rt, "cpus")
		k := rapid.IntRange(1, 5-2*c).Draw(rt, "k")
		nmis := rapid.SliceOfN(rapid.IntRange(0, k-1), 0, 2).Draw(rt, "nmis")
		sh := porShape{CPUs: c, K: k, NMIs: nmis, Guard: rapid.Bool().Draw(rt, "guard"),
			Shared: rapid.Bool().Draw(rt, "shared"), Hidden: rapid.Bool().Draw(rt, "hidden"),
			SharedAdd: rapid.Bool().Draw(rt, "shared-add"), SumRead: rapid.Bool().Draw(rt, "sum-read"),
		}
		// The sum is read across CPUs only when an NMI falls due.
		dependent := sh.Hidden || c > 1 && (sh.Shared || sh.SumRead && len(nmis) > 0)
		if c == 1 { // a skid on two CPUs: 21,120 schedules in the full tree, in TestCompShapeSameLocalStates
			sh.Skid = sim.Duration(rapid.SampledFrom([]int{0, 40}).Draw(rt, "skid")) * sim.Nanosecond
		}
		full, _, fex := fullLocal(sh, 50000)
		if !fex {
			rt.Skipf("full walk of %+v did not finish", sh)
		}
		got, s, ex := compLocal(sh, 50000)
		switch {
		case s.Refused != "":
			if ex || !dependent {
				rt.Fatalf("%+v: refused %q (complete %v) with nothing shared or undeclared", sh, s.Refused, ex)
			}
		case !ex:
			rt.Fatalf("%+v: not complete, nothing refused", sh)
		case dependent:
			rt.Fatalf("%+v: complete with a shared counter, a sum read across CPUs or an undeclared fragment", sh)
		default:
			if d := cmp.Diff(full, got); d != "" {
				rt.Fatalf("%+v: per-CPU final states (-full +component-wise):\n%s", sh, d)
			}
		}
	})
}

// compShapeKN is the must-show family: C CPUs, K task triggers and N NMIs
// per CPU (due at syscalls 0, K/N, 2K/N, ...), with a skid (each NMI's
// nmi-skid choice, as the built-in's pmu cpu skid=200ns), the guard on.
func compShapeKN(c, k, n int) porShape {
	sh := porShape{CPUs: c, K: k, Guard: true, Skid: 40 * sim.Nanosecond}
	for i := 0; i < n; i++ {
		sh.NMIs = append(sh.NMIs, i*k/n)
	}
	return sh
}

// TestCompShapeScaling prints, for C = 1..8 CPUs of the family (K
// triggers, N NMIs per CPU, guard on), the schedules the component-wise
// walk needs (its CPUs' trees walked at once) and the sum of the CPUs'
// trees (walked one at a time), with the time; where it is small enough,
// also dpor's (C <= 4: with a skid, dpor counts the nmi-skid choice as
// touching everything, and C = 5 takes minutes). Long: PERFSIM_COMP_TABLE=K,N (e.g. 16,4).
func TestCompShapeScaling(t *testing.T) {
	v := os.Getenv("PERFSIM_COMP_TABLE")
	if v == "" {
		t.Skip("PERFSIM_COMP_TABLE=K,N prints the table")
	}
	kn := strings.Split(v, ",")
	k, _ := strconv.Atoi(kn[0])
	n, _ := strconv.Atoi(kn[1])
	t.Logf("| C | K | N | component-wise schedules | sum of CPU trees | time | dpor schedules (+blocked) | dpor time |")
	for c := 1; c <= 8; c++ {
		sh := compShapeKN(c, k, n)
		start := time.Now()
		_, s, ex := compLocal(sh, 10000000)
		el := time.Since(start)
		if !ex {
			t.Fatalf("C=%d: not complete: %s", c, s.Refused)
		}
		sum := 0
		for _, tr := range s.trees {
			sum += tr.paths
		}
		dp := "-"
		if c*k <= 8 && c <= 4 {
			start = time.Now()
			_, runs, blocked, dex, err := shapeStates(sh, true, 2000000)
			if err == nil && dex {
				dp = fmt.Sprintf("%d (+%d) | %v", runs, blocked, time.Since(start).Round(time.Millisecond))
			}
		}
		t.Logf("| %d | %d | %d | %d | %d | %v | %s |", c, k, n, s.Runs, sum, el.Round(time.Millisecond), dp)
	}
}

// BenchmarkCompShapeC3K16N4: the must-show proof, 3 CPUs with K = 16 task
// triggers and N = 4 NMIs each, guard on: complete, no overlap.
func BenchmarkCompShapeC3K16N4(b *testing.B) {
	sh := compShapeKN(3, 16, 4)
	for i := 0; i < b.N; i++ {
		ls, s, ex := compLocal(sh, 10000000)
		if !ex || ls.overlap() {
			b.Fatalf("complete %v (refused %q), overlap %v", ex, s.Refused, ls.overlap())
		}
		b.ReportMetric(float64(s.Runs), "schedules")
	}
}

// shapeLocal is how a search answers per-CPU questions of a shape: the
// component-wise walk where its guard holds, else (saying why) the dpor
// walk, whose global final states are projected on each CPU.
func shapeLocal(sh porShape, maxRuns int) (ls localStates, schedules int, fellBack string) {
	ls, s, ex := compLocal(sh, maxRuns)
	if ex {
		return ls, s.Runs, ""
	}
	ls = nil
	ps, ex2, err := porWalk(maxRuns, func(ch sim.Chooser, attach func(*cpu.Machine)) { ls = ls.add(sh.run(ch, attach)) })
	if err != nil || !ex2 {
		return nil, ps.Runs, fmt.Sprintf("%s; dpor: %v, exhausted %v", s.Refused, err, ex2)
	}
	return ls.sorted(), ps.Runs - ps.Blocked, s.Refused
}

// TestCompShapeFallBack: where the guard refuses (a counter the CPUs
// share), the answer comes from the dpor walk and still equals the full
// tree's per-CPU states; where it holds, the full tree's global final
// states are exactly every combination of the CPUs' own states, which is
// what makes per-CPU answers the whole answer.
func TestCompShapeFallBack(t *testing.T) {
	for _, tc := range []struct {
		sh       porShape
		fellBack string
	}{
		{porShape{CPUs: 2, K: 1, NMIs: []int{0}, Guard: true, Shared: true}, "shared (count) is touched by cpu0,cpu1 and written by cpu0,cpu1"},
		{porShape{CPUs: 2, K: 1, NMIs: []int{0}, Guard: false}, ""},
		{porShape{CPUs: 2, K: 1, NMIs: []int{0, 0}, Guard: true}, ""},
	} {
		full, _, _ := fullLocal(tc.sh, 200000)
		got, runs, fellBack := shapeLocal(tc.sh, 200000)
		if fellBack != tc.fellBack {
			t.Errorf("%+v: fell back %q, want %q", tc.sh, fellBack, tc.fellBack)
		}
		if d := cmp.Diff(full, got); d != "" {
			t.Errorf("%+v: per-CPU final states (-full tree +answer):\n%s", tc.sh, d)
		}
		if tc.fellBack != "" {
			continue
		}
		global, _, _, _, err := shapeStates(tc.sh, false, 200000)
		if err != nil {
			t.Fatal(err)
		}
		var product []string
		for _, a := range got[0] {
			for _, b := range got[1] {
				product = append(product, porShapeState{logs: []string{a, b}}.String())
			}
		}
		slices.Sort(product)
		if d := cmp.Diff(global, product); d != "" {
			t.Errorf("%+v: the full tree's final states are not the product of the CPUs' (-full +product):\n%s", tc.sh, d)
		}
		t.Logf("%+v: %d schedules component-wise; %d global states = %d x %d", tc.sh, runs, len(global), len(got[0]), len(got[1]))
	}
}
