package pmu_test

import (
	"testing"

	"perfsim/pmu"
)

// BenchmarkSeedCloseDataRaceOff is BenchmarkSeedClose with the data-race
// oracle off (data-race=off): the footprint annotations cost a nil check.
// BenchmarkSeedClose itself runs with the default, the oracle on.
func BenchmarkSeedCloseDataRaceOff(b *testing.B) {
	benchSeedClose(b, pmu.Knobs{Extra: map[string]string{"data-race": "off"}})
}

// BenchmarkSeedCloseLifetimeOff is BenchmarkSeedClose with the
// object-lifetime oracle off (object-lifetime=off): no lifePoint is recorded
// at the gets and puts of events, buffers and contexts.
func BenchmarkSeedCloseLifetimeOff(b *testing.B) {
	benchSeedClose(b, pmu.Knobs{Extra: map[string]string{"object-lifetime": "off"}})
}
