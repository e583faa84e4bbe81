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
	"perfsim/scenarios"
	"perfsim/sim"
)

// TestDPORShapeSameStates: on small shapes of the per-CPU AUX pause/resume
// family, dpor reaches exactly the final states the full tree reaches
// (with the guard on and off, with a counter the CPUs share, with a
// fragment nobody vouched for), and says it is exhaustive.
func TestDPORShapeSameStates(t *testing.T) {
	for _, sh := range []porShape{
		{CPUs: 1, K: 2, NMIs: []int{0, 1}, Guard: true},
		{CPUs: 1, K: 2, NMIs: []int{0, 1}, Guard: false},
		{CPUs: 2, K: 1, NMIs: []int{0}, Guard: true},
		{CPUs: 2, K: 1, NMIs: []int{0}, Guard: false},
		{CPUs: 2, K: 1, NMIs: []int{0}, Guard: true, Shared: true},
		{CPUs: 2, K: 1, NMIs: []int{0}, Guard: true, SharedAdd: true},
		{CPUs: 2, K: 1, NMIs: []int{0}, Guard: true, SumRead: true},
		{CPUs: 2, K: 1, NMIs: []int{0}, Guard: false, SumRead: true},
		{CPUs: 2, K: 1, NMIs: []int{0}, Guard: false, Hidden: true},
		{CPUs: 2, K: 1, NMIs: []int{0}, Guard: true, Hidden: true},
	} {
		full, fruns, _, fex, err := shapeStates(sh, false, 200000)
		if err != nil || !fex {
			t.Fatalf("%+v: full walk: %v, exhausted %v", sh, err, fex)
		}
		got, runs, blocked, ex, err := shapeStates(sh, true, 200000)
		if err != nil || !ex {
			t.Fatalf("%+v: dpor: %v, exhausted %v", sh, err, ex)
		}
		if d := cmp.Diff(full, got); d != "" {
			t.Errorf("%+v: dpor's final states differ from the full tree's (-full +dpor):\n%s", sh, d)
		}
		t.Logf("%+v: %d states; full %d schedules, dpor %d (+%d blocked)", sh, len(full), fruns, runs, blocked)
	}
}

// TestDPORShapeScaling prints, for C = 1..8 CPUs of the shape (K
// syscalls and one NMI per CPU, guard on), the distinct final states (a
// lower bound for any complete search: 4 per CPU, 4^C in all), the
// schedules dpor runs (and stops part way), and the schedules of the
// bounded strategy's tree at budget 2 and the final states it reaches. Long: PERFSIM_DPOR_TABLE=1 (and
// PERFSIM_DPOR_K=K, default 1; PERFSIM_DPOR_MAXC=C, default 8).
func TestDPORShapeScaling(t *testing.T) {
	if os.Getenv("PERFSIM_DPOR_TABLE") == "" {
		t.Skip("PERFSIM_DPOR_TABLE=1 prints the table")
	}
	k := 1
	if v := os.Getenv("PERFSIM_DPOR_K"); v != "" {
		k, _ = strconv.Atoi(v)
	}
	maxC := 8
	if v := os.Getenv("PERFSIM_DPOR_MAXC"); v != "" {
		maxC, _ = strconv.Atoi(v)
	}
	for c := 1; c <= maxC; c++ {
		sh := porShape{CPUs: c, K: k, NMIs: []int{0}, Guard: true}
		start := time.Now()
		b2states := map[string]bool{}
		b2, bex := fullWalk(2000000, 2, func(ch sim.Chooser) { b2states[sh.run(ch, nil).String()] = true })
		bt := time.Since(start)
		start = time.Now()
		states, runs, blocked, ex, err := shapeStates(sh, true, 2000000)
		if err != nil || !ex {
			t.Fatalf("C=%d: %v, exhausted %v", c, err, ex)
		}
		t.Logf("| %d | %d | %d + %d blocked | %v | %d (complete %v), %d states | %v |", c, len(states), runs, blocked,
			time.Since(start).Round(time.Millisecond), b2, bex, len(b2states), bt.Round(time.Millisecond))
	}
}

// TestDPORShapeProperty: for random small shapes (1 or 2 CPUs, NMIs due at
// random syscalls, the guard on or off, a shared counter or not, a sum the
// CPUs add to and the NMIs read or not, a fragment nobody vouched for or
// not), dpor is exhaustive and reaches exactly the
// final states of the full tree, so it finds the overlap (the guard-off
// violation) exactly when the full tree does.
func TestDPORShapeProperty(t *testing.T) {
	if testing.Short() {
		t.Skip("long (about 15 s): the full trees of two-CPU shapes")
	}
	rapid.Check(t, func(rt *rapid.T) {
		c := rapid.IntRange(1, 2).Draw(rt, "cpus")
		k := rapid.IntRange(1, 3-c).Draw(rt, "k")
		nmis := rapid.SliceOfN(rapid.IntRange(0, k-1), 0, 3-c).Draw(rt, "nmis")
		sh := porShape{CPUs: c, K: k, NMIs: nmis, Guard: rapid.Bool().Draw(rt, "guard"),
			Shared: rapid.Bool().Draw(rt, "shared"), Hidden: rapid.Bool().Draw(rt, "hidden"),
			SharedAdd: rapid.Bool().Draw(rt, "shared-add"), SumRead: rapid.Bool().Draw(rt, "sum-read")}
		full, _, _, fex, err := shapeStates(sh, false, 50000)
		if err != nil || !fex {
			rt.Skipf("full walk of %+v did not finish: %v", sh, err)
		}
		got, _, _, ex, err := shapeStates(sh, true, 50000)
		if err != nil || !ex {
			rt.Fatalf("%+v: dpor: %v, exhausted %v", sh, err, ex)
		}
		if d := cmp.Diff(full, got); d != "" {
			rt.Fatalf("%+v: final states differ (-full +dpor):\n%s", sh, d)
		}
		overlap := func(states []string) bool {
			return slices.ContainsFunc(states, func(s string) bool { return strings.Contains(s, "O") })
		}
		if overlap(full) != overlap(got) {
			rt.Fatalf("%+v: full tree overlap %v, dpor %v", sh, overlap(full), overlap(got))
		}
	})
}

// TestDPORAgainstBruteForce: on scenarios of the real model, dpor reaches
// the brute-force enumeration's verdicts and the same set of final perf
// observables (perf.*) in at most its schedules, and says exhaustive. On
// one CPU (nmi) every task fragment depends on the CPU's NMI: the whole
// tree, the same outcome counts. On two (migrate) the fragments declared
// complete (the syscall entry and exit, the context switch, __schedule(),
// the threads' first: sched/footprint_entry.go, footprint_switch.go; perf
// record's open and close: pmu/footprint_open.go, footprint_release.go)
// let it skip orders of independent fragments: 32 of the 90 schedules (48
// before the happens-before filter on races, dpor_hb.go; 60
// before the exit's and the release's teardown were annotated:
// pmu/footprint_exit.go, footprint_release.go), and none stopped part way
// as equivalent (one was, before perf's open and close were declared).
func TestDPORAgainstBruteForce(t *testing.T) {
	for _, tc := range []struct {
		name, src        string
		schedules, block int
	}{
		{"nmi", bruteNMI, 0, 0},
		{"migrate", bruteMigrate, 32, 0}, // 48 before the happens-before filter (dpor_hb.go)
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := scenarios.Parse(tc.name+".sim", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			bf := enumerate(t, f, nil, 20000)
			ex, err := Explore(f, Options{Strategy: "dpor", Runs: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			want := bf.Outcomes
			for i := range want {
				want[i].Verdict, want[i].OK = ex.Outcomes[i].Verdict, ex.Outcomes[i].OK
				if tc.schedules != 0 { // fewer schedules: the verdicts, not the counts
					want[i].Positive, want[i].Negative = ex.Outcomes[i].Positive, ex.Outcomes[i].Negative
					if (bf.Outcomes[i].Positive > 0) != (ex.Outcomes[i].Positive > 0) || (bf.Outcomes[i].Negative > 0) != (ex.Outcomes[i].Negative > 0) {
						t.Errorf("outcome %q: brute force %d positive %d negative, dpor %d and %d", want[i].Outcome, bf.Outcomes[i].Positive, bf.Outcomes[i].Negative, ex.Outcomes[i].Positive, ex.Outcomes[i].Negative)
					}
				}
			}
			if diff := cmp.Diff(want, ex.Outcomes); diff != "" {
				t.Errorf("outcome counts (-brute force +dpor):\n%s", diff)
			}
			wantRuns, wantBlocked := bf.Schedules, 0
			if tc.schedules != 0 {
				wantRuns, wantBlocked = tc.schedules, tc.block
			}
			if ex.Schedules != wantRuns || !ex.Exhausted || ex.PORBlocked != wantBlocked {
				t.Errorf("dpor: %d schedules (+%d blocked), exhausted %v; want %d (+%d); brute force %d", ex.Schedules, ex.PORBlocked, ex.Exhausted, wantRuns, wantBlocked, bf.Schedules)
			}
			full, dpor := perfFinalStates(t, f, false), perfFinalStates(t, f, true)
			t.Logf("%d distinct final perf states in the whole tree, %d in dpor's", len(full), len(dpor))
			if diff := cmp.Diff(full, dpor); diff != "" {
				t.Errorf("final perf observables (-whole tree +dpor):\n%s", diff)
			}
		})
	}
}

// perfFinalStates runs f's whole decision tree (or dpor's walk) and returns
// the distinct sets of final perf.* observables.
func perfFinalStates(t *testing.T, f *scenarios.File, dpor bool) []string {
	t.Helper()
	seen := map[string]bool{}
	run := func(ch sim.Chooser, attach func(*cpu.Machine)) {
		r := walkedRun(t, f, nil, ch, attach)
		var b strings.Builder
		for _, name := range r.ObservableNames() {
			if strings.HasPrefix(name, "perf.") {
				v, _ := r.Observe(name)
				fmt.Fprintf(&b, "%s=%d ", name, v)
			}
		}
		seen[b.String()] = true
	}
	if dpor {
		if _, ex, err := porWalk(20000, run); err != nil || !ex {
			t.Fatalf("dpor walk: exhausted %v, %v", ex, err)
		}
	} else if _, ex := fullWalk(20000, -1, func(ch sim.Chooser) { run(ch, nil) }); !ex {
		t.Fatal("whole tree: more than 20000 schedules")
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// TestDPORFindsWhatBruteForceFinds: with the guard off, dpor finds the
// failure the enumeration finds, and claims nothing exhaustive.
func TestDPORFindsWhatBruteForceFinds(t *testing.T) {
	f, err := scenarios.Parse("brute-nmi.sim", []byte(bruteNMI))
	if err != nil {
		t.Fatal(err)
	}
	knobs := map[string]string{"aux-pause-guard": "off"}
	bf := enumerate(t, f, knobs, 20000)
	ex, err := Explore(f, Options{Strategy: "dpor", Runs: 100000, Knobs: knobs})
	if err != nil {
		t.Fatal(err)
	}
	var failing []string
	for _, k := range keys(bf.Signatures) {
		if k != "" {
			failing = append(failing, k)
		}
	}
	if len(failing) != 1 || ex.Found == nil {
		t.Fatalf("brute force failing signatures %q; dpor found %v", failing, ex.Found != nil)
	}
	if diff := cmp.Diff([]any{failing[0], false}, []any{ex.Found.Signature, ex.Exhausted}); diff != "" {
		t.Errorf("(-brute force +dpor):\n%s", diff)
	}
}

// TestPORDependentAdds: adds (cpu.AtomicAdd) to a field commute with each
// other and with nothing else; a fragment that adds and reads the same
// field does not commute with another's add.
func TestPORDependentAdds(t *testing.T) {
	read := porAccess{key: "k", field: "f"}
	write := porAccess{key: "k", field: "f", write: true}
	add := porAccess{key: "k", field: "f", add: true}
	other := porAccess{key: "k", field: "g", write: true}
	frag := func(lane int, acc ...porAccess) *porEvent {
		e := &porEvent{agent: porAgent{lane: lane}, complete: true}
		for _, a := range acc {
			e.touch(a)
		}
		return e
	}
	for _, tc := range []struct {
		name string
		a, b []porAccess
		want bool
	}{
		{"add/add", []porAccess{add}, []porAccess{add, add}, false},
		{"add/read", []porAccess{add}, []porAccess{read}, true},
		{"add/write", []porAccess{add}, []porAccess{write}, true},
		{"read/read", []porAccess{read}, []porAccess{read}, false},
		{"read+add/add", []porAccess{read, add}, []porAccess{add}, true},
		{"add+read/add", []porAccess{add, read}, []porAccess{add}, true},
		{"add/other field", []porAccess{add}, []porAccess{other}, false},
	} {
		if got := porDependent(frag(0, tc.a...), frag(1, tc.b...)); got != tc.want {
			t.Errorf("%s: dependent %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestDPORShapeAddsCommute: a sum every CPU adds to costs dpor nothing (as
// many schedules as with no sum), where a counter they read and write
// makes it run more.
func TestDPORShapeAddsCommute(t *testing.T) {
	base := porShape{CPUs: 2, K: 1, NMIs: []int{0}, Guard: true}
	runs := map[string]int{}
	for name, sh := range map[string]porShape{"none": base, "adds": {CPUs: 2, K: 1, NMIs: []int{0}, Guard: true, SharedAdd: true},
		"read-write": {CPUs: 2, K: 1, NMIs: []int{0}, Guard: true, Shared: true}} {
		_, n, _, ex, err := shapeStates(sh, true, 200000)
		if err != nil || !ex {
			t.Fatalf("%s: dpor: %v, exhausted %v", name, err, ex)
		}
		runs[name] = n
	}
	if runs["adds"] != runs["none"] || runs["read-write"] <= runs["none"] {
		t.Errorf("dpor schedules %v: want adds = none < read-write", runs)
	}
}

// TestDPORShapeInterruptsRead: on the shapes whose NMIs read what the
// other CPU writes (the sum, with a skid or two NMIs per CPU), dpor reaches
// exactly the full tree's final states. These are the shapes where a step
// point offering the CPU's own NMI and another CPU matters: choosing the
// other CPU passes the step point, so the NMI can no longer be taken
// there, and only the other CPU going first at the decision before (the
// tie) has the order "the other CPU's write, then this NMI at that step
// point" (next()'s irqFoot and after); and where a handler forced in after
// a fragment with no decision races with another CPU (union takes the
// whole segment).
func TestDPORShapeInterruptsRead(t *testing.T) {
	if testing.Short() {
		t.Skip("long (about 2 s): full trees of 9,408 and 21,120 schedules")
	}
	for _, sh := range []porShape{
		{CPUs: 2, K: 1, NMIs: []int{0, 0}, Guard: true, SumRead: true},
		{CPUs: 2, K: 1, NMIs: []int{0, 0}, Guard: false, SumRead: true},
		{CPUs: 2, K: 1, NMIs: []int{0}, Guard: true, SumRead: true, Skid: 40 * sim.Nanosecond},
		{CPUs: 2, K: 1, NMIs: []int{0}, Guard: false, SumRead: true, Skid: 40 * sim.Nanosecond},
		{CPUs: 2, K: 1, NMIs: []int{0}, Guard: true, Shared: true, SumRead: true, Skid: 40 * sim.Nanosecond},
		{CPUs: 2, K: 1, NMIs: []int{0, 0}, Guard: true, Shared: true},
	} {
		full, fruns, _, fex, err := shapeStates(sh, false, 400000)
		if err != nil || !fex {
			t.Fatalf("%+v: full walk: %v, exhausted %v", sh, err, fex)
		}
		got, runs, blocked, ex, err := shapeStates(sh, true, 400000)
		if err != nil || !ex {
			t.Fatalf("%+v: dpor: %v, exhausted %v", sh, err, ex)
		}
		if d := cmp.Diff(full, got); d != "" {
			t.Errorf("%+v: dpor's final states differ from the full tree's (-full +dpor):\n%s", sh, d)
		}
		t.Logf("%+v: %d states; full %d schedules, dpor %d (+%d blocked)", sh, len(full), fruns, runs, blocked)
	}
}

// TestDPORShapeCoversBounded: where the full tree is too large to compare
// (3 CPUs; 2 CPUs with 2 triggers and 2 NMIs each), every final state the
// bounded search reaches with at most 3 disturbances is one dpor reaches,
// on shapes whose NMIs read what other CPUs write.
func TestDPORShapeCoversBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("long (about 4 s)")
	}
	for _, sh := range []porShape{
		{CPUs: 3, K: 1, NMIs: []int{0}, Guard: true, SumRead: true},
		{CPUs: 3, K: 1, NMIs: []int{0}, Guard: false, SumRead: true, Shared: true},
		{CPUs: 2, K: 2, NMIs: []int{0, 1}, Guard: true, SumRead: true},
	} {
		bounded := map[string]bool{}
		runs, bex := fullWalk(300000, 3, func(ch sim.Chooser) { bounded[sh.run(ch, nil).String()] = true })
		if !bex {
			t.Fatalf("%+v: the bounded walk did not finish", sh)
		}
		got, druns, blocked, ex, err := shapeStates(sh, true, 300000)
		if err != nil || !ex {
			t.Fatalf("%+v: dpor: %v, exhausted %v", sh, err, ex)
		}
		var missing []string
		for s := range bounded {
			if !slices.Contains(got, s) {
				missing = append(missing, s)
			}
		}
		slices.Sort(missing)
		if len(missing) > 0 {
			t.Errorf("%+v: %d final states of the bounded search that dpor does not reach, first %q", sh, len(missing), missing[0])
		}
		t.Logf("%+v: bounded (budget 3) %d schedules, %d states; dpor %d (+%d blocked), %d states", sh, runs, len(bounded), druns, blocked, len(got))
	}
}
