package runner

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"perfsim/perftool"
	"perfsim/pmu"
	"perfsim/scenarios"
)

// stepLabel matches a literal step point label passed to Step or rb's step.
var stepLabel = regexp.MustCompile(`(?:\.Step|\bstep)\((?:[a-z]+, )?"([^"]+)"\)`)

// TestStepPointsRegistered scans the models' sources for literal step point
// labels: every one must be known to the checker (pmu.StepPoints, rb.StepPoints,
// the sched list, or a driver's registration), so "nmi cpuN at LABEL" can name it.
func TestStepPointsRegistered(t *testing.T) {
	reg := NewRegistry(nil, nil)
	for _, dir := range []string{"../pmu", "../rb", "../sched", "../cpu"} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range stepLabel.FindAllStringSubmatch(string(src), -1) {
				if !reg.Has(scenarios.StepPoints, m[1]) {
					t.Errorf("%s: step point %q is not registered (add it to pmu's coreStepPoints, rb.StepPoints, a Driver's StepPoints or pmu.RegisterStepPoints)", path, m[1])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestRegistryFromPackages: what the checker knows comes from the lower
// packages' registries.
func TestRegistryFromPackages(t *testing.T) {
	reg := NewRegistry(nil, nil)
	for _, d := range pmu.Drivers() {
		if _, ok := reg.PMU(d.Name); !ok {
			t.Errorf("driver %s is not a PMU of the registry", d.Name)
		}
	}
	for _, k := range pmu.AllKnobSpecs() {
		if _, ok := reg.Knob(scenarios.KernelKnobs, k.Name); !ok {
			t.Errorf("kernel knob %s missing", k.Name)
		}
	}
	for _, k := range perftool.ToolKnobs() {
		if _, ok := reg.Knob(scenarios.ToolKnobs, k.Name); !ok {
			t.Errorf("tool knob %s missing", k.Name)
		}
	}
	for _, a := range perftool.Actions() {
		if _, ok := reg.Action(a.Name); !ok {
			t.Errorf("action %s missing", a.Name)
		}
	}
	for _, n := range pmu.ObservableNames() {
		if _, ok := reg.Observable(n); !ok {
			t.Errorf("observable %s missing", n)
		}
	}
	for _, n := range perftool.AllSessionObservableNames() {
		if _, ok := reg.Observable(n); !ok {
			t.Errorf("session observable %s missing", n)
		}
	}
	for _, name := range []string{"record-accounted-once", "data-head-monotonic", "read-record-was-written"} {
		if !reg.Has(scenarios.Invariants, name) {
			t.Errorf("rb invariant %s missing", name)
		}
	}
	if _, ok := reg.PMU("cpu"); !ok {
		t.Error("the cpu PMU driver is not registered")
	}
}
