package coresight_test

import (
	"fmt"

	"perfsim/pmu/coresight"
)

// ExampleTrace_Follow walks one synchronised stretch of ETMv4 trace: an
// A-sync, a trace info, a 64-bit address with context (EL0, context id 42)
// and an atom packet of three E atoms, at a loop of the images.
func ExampleTrace_Follow() {
	b := append(make([]byte, 11), 0x80)                           // A-sync
	b = append(b, 0x01, 0x00)                                     // trace info
	b = append(b, 0x85, 0x00, 0x28, 0x55, 0x55, 0x55, 0x55, 0, 0) // address 0x555555555000 with context
	b = append(b, 0xb0, 42, 0, 0, 0)                              // EL0, AArch64, non-secure, context id 42
	b = append(b, 0xff)                                           // atom format 3: E E E
	var tr coresight.Trace
	tr.Follow(b, func(c coresight.Context, ip uint64) bool { return c.CID == 42 && ip == 0x555555555000 })
	fmt.Println(tr.Instructions, tr.Branches, tr.Starts, tr.Errors)
	// Output: 6 3 1 0
}
