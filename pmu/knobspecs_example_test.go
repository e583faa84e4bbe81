package pmu_test

import (
	"fmt"
	"slices"

	"perfsim/pmu"
	"perfsim/sim"
)

// KnobSpecsSeq yields the same knobs as AllKnobSpecs, in the same order,
// without copying them.
func ExampleKnobSpecsSeq() {
	all := pmu.AllKnobSpecs()
	i, same := 0, true
	for k := range pmu.KnobSpecsSeq() {
		same = same && i < len(all) && all[i].Name == k.Name
		i++
	}
	fmt.Println(same && i == len(all), slices.ContainsFunc(all, func(k sim.KnobSpec) bool { return k.Name == "aux-pause-guard" }))
	// Output: true true
}
