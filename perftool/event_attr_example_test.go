package perftool_test

import (
	"fmt"

	"perfsim/perftool"
)

// ParseEventAttr turns a perf record -e event into the attr a program would
// pass to perf_event_open(): the type and config, the modifiers and terms.
func ExampleParseEventAttr() {
	a, err := perftool.ParseEventAttr("cycles/period=1000/u", perftool.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Type, a.Config, a.SamplePeriod, a.Freq, a.ExcludeKernel, a.ExcludeUser)
	_, err = perftool.ParseEventAttr("{cycles,instructions}", perftool.DefaultOptions())
	fmt.Println(err)
	// Output:
	// 0 0 1000 false true false
	// perf record: -e {cycles,instructions}: names 2 events; open takes one (Invalid argument)
}
