package rb

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// footprintLog is a Stepper and an Accessor that writes down, fragment by
// fragment (a step point starts one), what the output path annotates and
// where it marks code it does not annotate.
type footprintLog struct {
	frags []string
	cur   []string
	// nested, when set, runs at the first step point with this label (an
	// NMI writer on top of the interrupted one).
	nestAt string
	nested func()
}

func (l *footprintLog) Step(label string) {
	l.frags = append(l.frags, strings.Join(l.cur, ", "))
	l.cur = []string{label + ":"}
	if label == l.nestAt && l.nested != nil {
		f := l.nested
		l.nested = nil
		f()
	}
}

func (l *footprintLog) Annotate(_ any, field string, op uint8, _ string) {
	l.cur = append(l.cur, field+" "+map[uint8]string{OpMarkedRead: "r", OpMarkedWrite: "w", OpAtomicAdd: "add"}[op])
}

func (l *footprintLog) Footprinting() bool { return true }

func (l *footprintLog) Unaudited(fn string) { l.cur = append(l.cur, "UNAUDITED "+fn) }

// done is the fragments, the last one closed.
func (l *footprintLog) done() []string { return append(l.frags, strings.Join(l.cur, ", ")) }

// TestOutputFootprints: what each fragment of the output path annotates,
// from the caller's (before perf_output_get_handle:nest-inc) to the return
// into the caller, which is marked: the path pmu/footprint_output.go
// declares complete from each step point.
func TestOutputFootprints(t *testing.T) {
	const (
		caller   = "rb->paused r, rb->lost r, rb->nest w, rb->wakeup r"
		nestInc  = "perf_output_get_handle:nest-inc:, rb->head r, user_page->data_tail r"
		cmpxchg  = "__perf_output_begin:cmpxchg:, rb->head w, rb->wakeup w"
		headRead = "perf_output_put_handle:head-read:, user_page->data_head w"
		stored   = "perf_output_put_handle:data-head-stored:, rb->nest w"
		nestZero = "perf_output_put_handle:nest-zero:, rb->head r, rb->wakeup r, UNAUDITED perf_output_end's caller"
	)
	for _, tc := range []struct {
		name  string
		setup func(b *Buffer, ev *SimpleEvent, l *footprintLog)
		want  []string
	}{{
		name: "a sample",
		want: []string{caller, nestInc, cmpxchg,
			"__perf_output_begin:reserved:, rb->data_pages w",
			"perf_output_sample:header:, rb->data_pages w, rb->nest r, rb->head r",
			headRead, stored, nestZero},
	}, {
		name: "wakeup_events: the wakeup",
		setup: func(_ *Buffer, ev *SimpleEvent, _ *footprintLog) {
			ev.WakeupEvts = 1
		},
		want: []string{caller, nestInc, cmpxchg,
			"__perf_output_begin:reserved:, rb->data_pages w",
			"perf_output_sample:header:, rb->data_pages w, rb->events w, rb->wakeup add, rb->nest r, rb->head r",
			headRead, stored,
			"perf_output_put_handle:nest-zero:, rb->head r, rb->wakeup r, rb->poll w, UNAUDITED perf_output_end's caller"},
	}, {
		name: "no room: the record lost",
		setup: func(b *Buffer, _ *SimpleEvent, _ *footprintLog) {
			b.head = b.DataSize() - 8 // data_tail 0: 7 bytes free
		},
		want: []string{caller,
			"perf_output_get_handle:nest-inc:, rb->head r, user_page->data_tail r, rb->lost add, rb->nest r, rb->head r",
			headRead, stored,
			"perf_output_put_handle:nest-zero:, rb->head r, rb->wakeup r, UNAUDITED __perf_output_begin's caller"},
	}, {
		name: "records lost before: PERF_RECORD_LOST first",
		setup: func(b *Buffer, _ *SimpleEvent, _ *footprintLog) {
			b.lost = 2
		},
		want: []string{caller, nestInc, cmpxchg,
			"__perf_output_begin:reserved:, rb->lost w, rb->data_pages w",
			"__perf_output_begin:lost-written:, rb->data_pages w",
			"perf_output_sample:header:, rb->data_pages w, rb->nest r, rb->head r",
			headRead, stored, nestZero},
	}, {
		name: "a nested writer: only the outer one publishes",
		setup: func(b *Buffer, ev *SimpleEvent, l *footprintLog) {
			l.nestAt = "perf_output_sample:header"
			l.nested = func() { _ = PerfEventOutput(l, b, ev, seqSample(9, 0), false) }
		},
		want: []string{caller, nestInc, cmpxchg,
			"__perf_output_begin:reserved:, rb->data_pages w",
			// the NMI's writer, then the interrupted one goes on
			"perf_output_sample:header:, " + caller,
			nestInc, cmpxchg,
			"__perf_output_begin:reserved:, rb->data_pages w",
			"perf_output_sample:header:, rb->data_pages w, rb->nest r, rb->nest w, UNAUDITED perf_output_end's caller, rb->data_pages w, rb->nest r, rb->head r",
			headRead, stored, nestZero},
	}, {
		name: "the old put_handle (pre-1b038c6e05ff)",
		setup: func(b *Buffer, _ *SimpleEvent, _ *footprintLog) {
			b.Knobs.OldPutHandle = true
		},
		want: []string{caller, nestInc, cmpxchg,
			"__perf_output_begin:reserved:, rb->data_pages w",
			"perf_output_sample:header:, rb->data_pages w, rb->head r",
			"perf_output_put_handle:head-read:, rb->nest w",
			"perf_output_put_handle:nest-dec:, user_page->data_head w",
			"perf_output_put_handle:data-head-stored:, rb->head r, rb->wakeup r, UNAUDITED perf_output_end's caller"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			b := mustBuffer(1, 0, RingBufferWritable)
			ev := &SimpleEvent{EventID: 1}
			l := &footprintLog{}
			b.SetAccessor(l)
			if tc.setup != nil {
				tc.setup(b, ev, l)
			}
			_ = PerfEventOutput(l, b, ev, seqSample(1, 0), false)
			if diff := cmp.Diff(tc.want, l.done()); diff != "" {
				t.Errorf("fragments (-want +got):\n%s", diff)
			}
		})
	}
}
