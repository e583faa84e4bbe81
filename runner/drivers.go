package runner

// Blank imports of the PMU driver packages that register with pmu.RegisterDriver
// from init (pmu/pt, pmu/coresight, ...): one line each, so the runtime, the
// checker and simrun know them. A driver in package pmu itself needs none.

import (
	_ "perfsim/pmu/coresight" // cs_etm (drivers/hwtracing/coresight/coresight-etm-perf.c)
	_ "perfsim/pmu/pt"        // intel_pt (arch/x86/events/intel/pt.c)
)
