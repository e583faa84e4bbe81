package scenarios

import (
	"strings"
	"testing"

	"perfsim/sim"
)

// TestBuiltins runs every built-in scenario in every knob variant its outcomes
// mention, with a few seeds: each run must meet its outcomes.
func TestBuiltins(t *testing.T) {
	bs := Builtins()
	if len(bs) == 0 {
		t.Fatal("no built-in scenarios")
	}
	for _, b := range bs {
		t.Run(b.Name, func(t *testing.T) {
			if b.Title == "" {
				t.Errorf("%s has no title", b.Name)
			}
			src, err := Open(b.Name)
			if err != nil {
				t.Fatal(err)
			}
			f, err := src.Load(nil)
			if err != nil {
				t.Fatalf("load:\n%v", err)
			}
			if f.Scenario == nil || f.Scenario.Name != b.Name {
				t.Errorf("scenario name does not match the file name %s", b.Name)
			}
			for _, v := range Variants(f) {
				for seed := uint64(1); seed <= 3; seed++ {
					_, res, err := RunOnce(f, Options{Knobs: v, Chooser: sim.NewRandom(seed)})
					if err != nil {
						t.Fatalf("knobs %v seed %d: %v", v, seed, err)
					}
					if res.Failed {
						var b strings.Builder
						res.WriteText(&b, f)
						t.Errorf("knobs %v seed %d: outcomes not met:\n%s", v, seed, b.String())
					}
				}
			}
		})
	}
}
