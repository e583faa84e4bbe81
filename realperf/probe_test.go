package realperf

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestProbes runs every probe variant's scenario and compares its folded%
// with the real workload's (testdata/CASE/real.txt), within the probe's
// tolerance.
func TestProbes(t *testing.T) {
	probes, err := Probes("testdata")
	if err != nil {
		t.Fatal(err)
	}
	if len(probes) == 0 {
		t.Fatal("no probes under testdata")
	}
	for _, p := range probes {
		t.Run(p.Name, func(t *testing.T) {
			real, err := p.Real()
			if err != nil {
				t.Fatal(err)
			}
			var bad []string
			for _, v := range p.Variants {
				r, ok := real[v.Name]
				if !ok {
					bad = append(bad, v.Name+": not in real.txt (rerun capture-probe.sh)")
					continue
				}
				sim, err := p.SimFolded(v, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%-10s folded%%: real %6.1f  simulated %6.1f", v.Name, r.Folded(), sim)
				if math.Abs(r.Folded()-sim) > p.Tolerance {
					bad = append(bad, fmt.Sprintf("%s: folded%% real %.1f, simulated %.1f (tolerance %g points: %s)", v.Name, r.Folded(), sim, p.Tolerance, p.Why))
				}
			}
			if len(bad) > 0 {
				t.Errorf("%s differs from the real kernel:\n%s", p.Name, strings.Join(bad, "\n"))
			}
		})
	}
}

// TestProbeRemoveOnExecKnob: with sync-child-event=pre-c418d8b4d7a4 (the
// kernel before c418d8b4d7a4) or the fix candidate sync-after-remove the
// simulated roe-exec variant folds the child's 2ms; today's kernel, simulated
// and real, does not.
func TestProbeRemoveOnExecKnob(t *testing.T) {
	p, err := LoadProbe("testdata/remove-on-exec-inherit")
	if err != nil {
		t.Fatal(err)
	}
	real, err := p.Real()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range p.Variants {
		if v.Name != "roe-exec" {
			continue
		}
		today, err := p.SimFolded(v, nil)
		if err != nil {
			t.Fatal(err)
		}
		pre, err := p.SimFolded(v, map[string]string{"sync-child-event": "pre-c418d8b4d7a4"})
		if err != nil {
			t.Fatal(err)
		}
		fix, err := p.SimFolded(v, map[string]string{"sync-child-event": "sync-after-remove"})
		if err != nil {
			t.Fatal(err)
		}
		type view struct{ RealLost, TodayLost, PreLost, FixLost bool }
		lost := func(f float64) bool { return f < 50 }
		got := view{lost(real[v.Name].Folded()), lost(today), lost(pre), lost(fix)}
		if want := (view{RealLost: true, TodayLost: true}); got != want {
			t.Errorf("roe-exec folded%%: real %.1f, today %.1f, pre-c418d8b4d7a4 %.1f, sync-after-remove %.1f: got %+v, want %+v",
				real[v.Name].Folded(), today, pre, fix, got, want)
		}
		return
	}
	t.Fatal("no roe-exec variant")
}

// TestKVProbes compares each key of every key/value probe with the real
// workload's figure: a compare key must be equal, a differs key must still
// differ (it says why; when the model changes, move it to compare).
func TestKVProbes(t *testing.T) {
	probes, err := KVProbes("testdata")
	if err != nil {
		t.Fatal(err)
	}
	if len(probes) == 0 {
		t.Fatal("no key/value probes under testdata")
	}
	for _, p := range probes {
		t.Run(p.Name, func(t *testing.T) {
			real, err := p.Real()
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range p.Keys {
				r, ok := real[k.Key]
				if !ok {
					t.Errorf("%s: not in real.txt (rerun capture-probe.sh)", k.Key)
					continue
				}
				sim, err := p.Sim(k)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%-20s real %d  simulated %d", k.Key, r, sim)
				switch {
				case k.Why == "" && sim != r:
					t.Errorf("%s: real %d, simulated %d (%s %s)", k.Key, r, sim, k.Sim, k.Observable)
				case k.Why != "" && sim == r:
					t.Errorf("%s: listed as differing (%s) but real and simulated are both %d: make it a compare key", k.Key, k.Why, r)
				}
			}
		})
	}
}
