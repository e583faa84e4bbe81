package explore

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// bruteForce enumerates every schedule of f: the whole decision tree, depth
// first, each leaf one run. It is the reference the systematic strategies are
// checked against: nothing clever, no bound, no reduction.
type bruteForce struct {
	Schedules   int
	Outcomes    []OutcomeCount // positive/negative per outcome, as Explore counts them
	Signatures  map[string]int // failure signature -> schedules failing so ("" for clean)
	MinFailing  int            // fewest disturbing decisions of a failing schedule (-1: none)
	MostDisturb int            // most disturbing decisions of any schedule
}

func enumerate(t *testing.T, f *scenarios.File, knobs map[string]string, limit int) *bruteForce {
	t.Helper()
	bf := &bruteForce{Signatures: map[string]int{}, MinFailing: -1}
	for _, oc := range f.Outcomes {
		bf.Outcomes = append(bf.Outcomes, OutcomeCount{Outcome: f.OutcomeText(oc), Line: oc.Pos.Line, Quant: oc.Quant.String()})
	}
	o := Options{Knobs: knobs}
	var walk func(prefix []int)
	walk = func(prefix []int) {
		if bf.Schedules >= limit {
			t.Fatalf("more than %d schedules: too large to enumerate", limit)
		}
		probe := &optionProbe{replay: sim.NewReplay(prefix)}
		opts := o.runOptions(probe, false)
		opts.StopAtViolation = false // run each leaf to its end, as explore counts it
		r, res, err := runner.RunOnce(f, opts)
		if err != nil {
			t.Fatal(err)
		}
		bf.Schedules++
		for i, oc := range res.Outcomes {
			if !oc.Counted {
				continue
			}
			if oc.Truth {
				bf.Outcomes[i].Positive++
			} else {
				bf.Outcomes[i].Negative++
			}
		}
		sig := signature(r, res)
		bf.Signatures[sig]++
		d := disturbing(probe.taken)
		bf.MostDisturb = max(bf.MostDisturb, d)
		if sig != "" && (bf.MinFailing < 0 || d < bf.MinFailing) {
			bf.MinFailing = d
		}
		// Every decision past the prefix took option 0; each other option is
		// a subtree of its own.
		for j := len(prefix); j < len(probe.options); j++ {
			for a := 1; a < probe.options[j]; a++ {
				next := append(append([]int(nil), probe.taken[:j]...), a)
				walk(next)
			}
		}
	}
	walk(nil)
	return bf
}

const bruteNMI = `scenario brute-nmi
cpus 1
kernel cost-model=free
pmu intel_pt rate=1000 region=4K
task uname cpu0
  repeat 8
    syscall newuname
    compute 700ns
record -e '{intel_pt/aux-action=start-paused/k,syscalls:sys_enter_newuname/aux-action=resume/,cycles/period=1500,aux-action=pause/}' -m 8,8 -- uname
always perf.error == 0
always aux.pause_resume.overlaps == 0
sometimes aux.pause_resume.dropped > 0
`

const bruteMigrate = `scenario brute-migrate
cpus 2
kernel sched-balance=off    # tasks stay on cpu0: with CFS placement the tree passes 20000 schedules
task a
  syscall getpid
  compute 2us
  syscall getpid
task b
  syscall getpid
record -e syscalls:sys_enter_getpid -- a b
always perf.error == 0
sometimes perf.samples == 3
`

// The bounded strategy, given a bound no schedule reaches, runs every
// schedule of the scenario once: the same schedules, the same outcome
// counts and no violation where the brute-force enumeration of the whole
// decision tree finds none; it says "exhausted" then, and only then. At a
// bound below the most disturbing schedule it is complete up to that bound
// and does not say exhausted.
func TestBoundedAgainstBruteForce(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"nmi", bruteNMI},
		{"migrate", bruteMigrate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := scenarios.Parse(tc.name+".sim", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			bf := enumerate(t, f, nil, 20000)
			if bf.MostDisturb < 1 {
				t.Fatal("the scenario makes no disturbing decision; the test needs some")
			}
			if bf.MinFailing >= 0 {
				t.Fatalf("the scenario fails (%v); this test wants a clean one", bf.Signatures)
			}
			full, err := Explore(f, Options{Strategy: "bounded", Budget: bf.MostDisturb + 1, Runs: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			full.finish()
			want := bf.Outcomes
			for i := range want {
				want[i].Verdict, want[i].OK = full.Outcomes[i].Verdict, full.Outcomes[i].OK
			}
			if diff := cmp.Diff(want, full.Outcomes); diff != "" {
				t.Errorf("outcome counts (-brute force +bounded):\n%s", diff)
			}
			type claim struct {
				Schedules, CompleteUpTo, MostDisturbing int
				Exhausted                               bool
			}
			if diff := cmp.Diff(claim{bf.Schedules, bf.MostDisturb + 1, bf.MostDisturb, true},
				claim{full.Schedules, full.CompleteUpTo, full.MostDisturbing, full.Exhausted}); diff != "" {
				t.Errorf("full bound (-brute force +bounded):\n%s", diff)
			}
			// One below the most disturbing schedule: complete up to it, not
			// exhaustive, and fewer schedules.
			if bf.MostDisturb < 2 {
				return
			}
			cut, err := Explore(f, Options{Strategy: "bounded", Budget: bf.MostDisturb - 1, Runs: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			if cut.Exhausted || cut.CompleteUpTo != bf.MostDisturb-1 || cut.Schedules >= bf.Schedules {
				t.Errorf("bound %d: exhausted %v, complete up to %d, %d of %d schedules", bf.MostDisturb-1, cut.Exhausted, cut.CompleteUpTo, cut.Schedules, bf.Schedules)
			}
			t.Logf("%d schedules, most disturbing %d", bf.Schedules, bf.MostDisturb)
		})
	}
}

// On an old kernel with a race, the brute-force enumeration and the bounded
// search agree on whether there is a violation, on its signature and on the
// fewest disturbing decisions that show it (bounded runs fewest first); a
// search that stopped at a violation claims neither exhaustive nor complete.
func TestBoundedFindsWhatBruteForceFinds(t *testing.T) {
	f, err := scenarios.Parse("brute-nmi.sim", []byte(bruteNMI))
	if err != nil {
		t.Fatal(err)
	}
	knobs := map[string]string{"aux-pause-guard": "off"}
	bf := enumerate(t, f, knobs, 20000)
	ex, err := Explore(f, Options{Strategy: "bounded", Budget: 2, Runs: 100000, Knobs: knobs})
	if err != nil {
		t.Fatal(err)
	}
	var failing []string
	for _, k := range keys(bf.Signatures) {
		if k != "" {
			failing = append(failing, k)
		}
	}
	if len(failing) == 0 || ex.Found == nil {
		t.Fatalf("brute force failing signatures %q; bounded found %v", failing, ex.Found != nil)
	}
	type got struct {
		Signature    string
		Disturbing   int
		Exhausted    bool
		CompleteUpTo int
	}
	if diff := cmp.Diff(got{failing[0], bf.MinFailing, false, 0},
		got{ex.Found.Signature, disturbing(ex.Found.Decisions), ex.Exhausted, ex.CompleteUpTo}); diff != "" {
		t.Errorf("(-brute force +bounded):\n%s", diff)
	}
	if len(failing) != 1 {
		t.Errorf("brute force: %d failure signatures %q, the test expects one", len(failing), failing)
	}
}

// keys returns the sorted keys of m (for messages).
func keys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
