package pmu

import (
	"testing"

	"perfsim/cpu"
	"perfsim/rb"
)

// TestRBAccessOpsAgree: rb numbers the access kinds it annotates as
// cpu.AccessOp numbers them (rb cannot import cpu).
func TestRBAccessOpsAgree(t *testing.T) {
	for _, tc := range []struct {
		rb  uint8
		cpu cpu.AccessOp
	}{{rb.OpMarkedRead, cpu.MarkedRead}, {rb.OpMarkedWrite, cpu.MarkedWrite}, {rb.OpAtomicAdd, cpu.AtomicAdd}} {
		if cpu.AccessOp(tc.rb) != tc.cpu {
			t.Errorf("rb's %d is cpu's %v, want %v", tc.rb, cpu.AccessOp(tc.rb), tc.cpu)
		}
	}
}
