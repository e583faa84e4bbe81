package pmu

import (
	"perfsim/rb"
	"perfsim/sim"
)

// Knobs are this layer's kernel knobs; the zero value (or "today") is today's
// upstream.
type Knobs struct {
	// PauseOutputRBCheck selects the PERF_EVENT_IOC_PAUSE_OUTPUT body:
	// "today" reads event->rb once and checks that copy; "posted" is the patch
	// as first posted (Wang Nan, 2016-03-28), which read rb, then tested
	// event->rb again, then toggled the first copy.
	PauseOutputRBCheck string
	// RB are the ring buffer knobs (rb.KnobSpecs), given to every buffer
	// perf_mmap() allocates.
	RB rb.Knobs
	// Extra holds the values of the drivers' knobs (Driver.Knobs), read with
	// Kernel.Knob.
	Extra map[string]string
}

// KnobSpecs are the pmu layer's kernel knobs.
var KnobSpecs = []sim.KnobSpec{{
	Name:    "pause-output-rb-check",
	Values:  []string{"today", "posted"},
	Implies: map[string][]string{"posted": closeFputPreV66}, // 2016
	Help: "PERF_EVENT_IOC_PAUSE_OUTPUT: today `rb = rcu_dereference(event->rb); if (!rb || !rb->nr_pages) return -EINVAL; rb_toggle_paused(rb, !!arg)`; " +
		"posted: `rb = rcu_dereference(event->rb); if (!event->rb) return -EINVAL; rb_toggle_paused(rb, !!arg)`: the test re-reads event->rb, so an mmap " +
		"attaching a buffer between the two reads passes the test with rb == NULL and rb_toggle_paused() dereferences NULL",
	Source:  "[PATCH 1/4] perf core: Introduce new ioctl options to pause and resume ring buffer (Wang Nan, 2016-03-28) and PeterZ's fixup of 2016-03-29 (\"Clearly that should've been: if (!rb || !rb->nr_pages)\"), merged as 86e7972f690c",
	Package: "pmu",
}}

// ApplyKnob sets a pmu knob in k; it reports whether the name is this layer's.
func ApplyKnob(k *Knobs, name, value string) (bool, error) {
	if found, err := sim.LookupKnob(KnobSpecs, name, value); !found || err != nil {
		return found, err
	}
	switch name {
	case "pause-output-rb-check":
		k.PauseOutputRBCheck = value
	default: // knobs registered from other files (callchain_deferred.go): read with Kernel.Knob
		if k.Extra == nil {
			k.Extra = map[string]string{}
		}
		k.Extra[name] = value
	}
	return true, nil
}
