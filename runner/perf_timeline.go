package runner

import "perfsim/sim"

// Timeliner is implemented by a PerfRun (and, in PMUPerf, by a PMU) that
// draws timeline rows of its own under the machine's (cs_etm: its periods of
// trace per CPU, as seed 004's diagram draws them). end and width are the
// machine timeline's, so the columns line up.
type Timeliner interface {
	Timeline(end sim.Time, width int) string
}
