package explore

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"perfsim/cpu"
	"perfsim/sim"
)

// hbClosure is happens-before by brute force: hb[i][j] when fragment i
// comes before j and a chain of fragments links them, each porDependent on
// the next (one context's are). A dropped fragment never ran: no link.
func hbClosure(frags []*porEvent) [][]bool {
	n := len(frags)
	hb := make([][]bool, n)
	for i := range hb {
		hb[i] = make([]bool, n)
	}
	for j := range n {
		if frags[j].dropped {
			continue
		}
		for i := j - 1; i >= 0; i-- { // hb[k][j] for k > i first
			if frags[i].dropped {
				continue
			}
			hb[i][j] = porDependent(frags[i], frags[j])
			for k := i + 1; k < j && !hb[i][j]; k++ {
				hb[i][j] = hb[i][k] && hb[k][j]
			}
		}
	}
	return hb
}

// TestPorHBClocks: newPorHB's clocks say e happens before f, and before
// the fragment of f's context (another) that ran before f, exactly when
// the brute-force closure does,
// on random runs of fragments: three contexts, reads, writes and adds of
// three fields, incomplete fragments, dropped ones, empty ones.
func TestPorHBClocks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		agents := []porAgent{{0, cpu.CtxTask}, {1, cpu.CtxTask}, {0, cpu.CtxNMI}}
		n := rapid.IntRange(1, 14).Draw(t, "n")
		frags := make([]*porEvent, n)
		for i := range frags {
			f := &porEvent{agent: agents[rapid.IntRange(0, len(agents)-1).Draw(t, "agent")], seq: i, complete: true}
			f.acc = []porAccess{{key: fmt.Sprint("cpu", f.agent.lane), field: "pending"}, {key: "machine", field: "posts"}}
			switch rapid.IntRange(0, 9).Draw(t, "kind") {
			case 0:
				f.dropped = true
			case 1:
				f.complete = false
				if rapid.Bool().Draw(t, "posts") {
					f.eng = []porAccess{{key: "machine", field: "posts", write: true}}
				}
			case 2: // empty: only what every fragment reads
			default:
				for range rapid.IntRange(1, 3).Draw(t, "accesses") {
					a := porAccess{key: "obj", field: fmt.Sprint(rapid.IntRange(0, 2).Draw(t, "field"))}
					switch rapid.IntRange(0, 2).Draw(t, "mode") {
					case 1:
						a.write = true
					case 2:
						a.add = true
					}
					f.touch(a)
				}
				if rapid.IntRange(0, 3).Draw(t, "post") == 0 { // a post to another lane
					f.touch(porAccess{key: "machine", field: "posts", write: true})
				}
			}
			frags[i] = f
		}
		h := newPorHB(frags, map[porField]*porFieldClocks{})
		hb := hbClosure(frags)
		for j, f := range frags {
			prev := -1 // f's context's last fragment before it that ran
			for k := j - 1; k >= 0; k-- {
				if frags[k].agent == f.agent && !frags[k].dropped {
					prev = k
					break
				}
			}
			for i, e := range frags[:j] {
				if e.agent != f.agent { // one context: never a race, the filter is not asked
					want := prev >= 0 && i < prev && hb[i][prev]
					if got := h.before(e, f); got != want {
						t.Fatalf("fragment %d (%v) before fragment %d's predecessor %d (%v): clocks say %v, the closure %v", i, e.agent, j, prev, f.agent, got, want)
					}
				}
				if !f.dropped && !e.dropped {
					if got := h.to(e, f); got != hb[i][j] {
						t.Fatalf("fragment %d (%v) before fragment %d (%v): clocks say %v, the closure %v", i, e.agent, j, f.agent, got, hb[i][j])
					}
				}
			}
		}
	})
}

// TestDPORSourceSetsSameStates: where the racing context is no option at
// the decision, asking one context that starts the reversal (porHB.initials)
// instead of every option reaches the same final states: on
// pin-count-open-race, whose walk it cuts from 1,479 schedules to 1,419.
func TestDPORSourceSetsSameStates(t *testing.T) {
	if testing.Short() {
		t.Skip("long: two walks of a built-in")
	}
	f := cutBuiltin(t, "pin-count-open-race", 0)
	walk := func(one func(sim.Chooser, func(*cpu.Machine))) bool { return walkTree(t, true, 5000, one) }
	got, runs, ex := finalStates(t, f, walk)
	porSourceSets = false
	want, wruns, wex := finalStates(t, f, walk)
	porSourceSets = true
	if !ex || !wex {
		t.Fatalf("not exhaustive within 5000 schedules: %v with the initials, %v without", ex, wex)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("final states (-every option +the initials):\n%s", d)
	}
	if runs != 1275 || wruns != 1335 {
		t.Errorf("schedules: %d with the initials, %d without; want 1275 and 1335", runs, wruns)
	}
	t.Logf("%d final states; %d schedules with the initials, %d without", len(got), runs, wruns)
}
