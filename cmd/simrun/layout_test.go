package main

import (
	"os/exec"
	"strings"
	"testing"
)

// layers ranks the packages as the README's layout draws them: a package may
// import only packages of a lower rank, so the arrows point one way.
var layers = map[string]int{
	"perfsim/uapi": 0, "perfsim/sim": 0, "perfsim/cost": 1, "perfsim/scenarios": 0, "perfsim/faultinject": 0,
	"perfsim/simrapid": 1, "perfsim/cpu": 1, "perfsim/rb": 1,
	"perfsim/mm": 1, "perfsim/sched": 2, "perfsim/unwind": 3, "perfsim/pmu": 4,
	"perfsim/pmu/pt": 5, "perfsim/pmu/coresight": 5,
	"perfsim/perftool": 6, "perfsim/runner": 7, "perfsim/explore": 8,
	"perfsim/cmd/simrun": 9, "perfsim/realperf": 8, "perfsim/realperf/summarize": 9,
}

// TestImportArrowsPointDown: no package imports one at its own level or above
// (test files aside), and every package has a place in the layout.
func TestImportArrowsPointDown(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "perfsim/...").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, rank := f[0], 0
		r, ok := layers[pkg]
		if !ok {
			t.Errorf("%s has no place in the layout (README, layers)", pkg)
			continue
		}
		rank = r
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, "perfsim/") {
				continue
			}
			if layers[imp] >= rank {
				t.Errorf("%s (layer %d) imports %s (layer %d): an arrow pointing up", pkg, rank, imp, layers[imp])
			}
		}
	}
}
