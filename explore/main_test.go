package explore

import (
	"os"
	"testing"

	"perfsim/sim"
)

// TestMain runs the package's tests with the collector tuned as simrun runs
// (sim.TuneGC): many short runs, each a machine of garbage.
func TestMain(m *testing.M) {
	sim.TuneGC()
	os.Exit(m.Run())
}
