package rb

import "perfsim/sim"

// KnobSpecs are the ring buffer's kernel knobs, as scenarios name them
// (kernel rb-put-handle=pre-1b038c6e05ff). Each sets a field of Knobs; the pmu
// core applies Knobs to every buffer it allocates. A new ring buffer knob is
// added here and in ApplyKnob, nowhere else.
var KnobSpecs = []sim.KnobSpec{{
	Name:    "rb-put-handle",
	Values:  []string{"today", "pre-1b038c6e05ff"},
	Implies: map[string][]string{"pre-1b038c6e05ff": []string{"close-fput=pre-021a160abf62"}}, // pmu's close(2), as before v6.6 (v5.2)
	Help: "perf_output_put_handle(): before the fix the writer dropped rb->nest before storing data_head, " +
		"so a nested NMI writer's newer head could be overwritten by an older one (data_head goes backwards)",
	Source:  "1b038c6e05ff perf/ring_buffer: Fix exposing a temporarily decreased data_head",
	Package: "rb",
}, {
	Name:    "aux-free",
	Values:  []string{"today", "pre-57ffc5ca679f"},
	Implies: map[string][]string{"pre-57ffc5ca679f": []string{"close-fput=pre-021a160abf62"}}, // pmu's close(2), as before v6.6 (2016)
	Help: "who frees the AUX pages: today perf_mmap_close() of the last AUX mapping stops every writer (perf_pmu_output_stop()), " +
		"perf_aux_output_begin() refuses a buffer whose aux_mmap_count is 0, and the unmap drops the last aux_refcount; before: the " +
		"unmap only dropped its own reference, writers went on, and whoever dropped the last one freed the pages there, in an NMI or " +
		"with irqs off (57ffc5ca679f deferred that free to irq_work; 95ff4ca26c49 moved it back to the unmap path with the writers stopped)",
	Source:  "57ffc5ca679f perf: Fix AUX buffer refcounting; 95ff4ca26c49 perf/core: Free AUX pages in unmap path",
	Package: "rb",
}}

// ApplyKnob sets a ring buffer knob in k; it reports whether the name is one
// of this package's.
func ApplyKnob(k *Knobs, name, value string) (bool, error) {
	if found, err := sim.LookupKnob(KnobSpecs, name, value); !found || err != nil {
		return found, err
	}
	switch name {
	case "rb-put-handle":
		k.OldPutHandle = value == "pre-1b038c6e05ff"
	case "aux-free":
		k.OldAuxFree = value == "pre-57ffc5ca679f"
	}
	return true, nil
}

// StepPoints are the step point labels the writers and readers of this
// package pass to Stepper.Step (scenarios may force an NMI at any of them).
// A test checks that every label in the code is listed.
var StepPoints = []string{
	"__perf_output_begin:cmpxchg",
	"__perf_output_begin:lost-written",
	"__perf_output_begin:reserved",
	"overwrite_rb_find_range:header",
	"perf_mmap__read:header-read",
	"perf_output_get_handle:nest-inc",
	"perf_output_put_handle:data-head-stored",
	"perf_output_put_handle:head-read",
	"perf_output_put_handle:nest-dec",
	"perf_output_put_handle:nest-zero",
	"perf_output_sample:header",
	"read_verified:header-copied",
	"read_verified:record-copied",
	"ring_buffer_read_head:loaded",
}
