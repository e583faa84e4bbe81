package explore

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sim"
)

// readerFragments is a cpu.SegmentListener that counts, per thread, the
// fragments that start at a reader's step point, marked unaudited or not.
// A thread's fragment goes on across the boundaries of the others (the
// engine runs another CPU at a step point, an interrupt comes): the
// touches belong to the context of the last boundary.
type readerFragments struct {
	start  string               // the reader's step point
	open   map[*cpu.Thread]bool // the thread's open fragment started there: marked?
	cur    *cpu.Thread          // the thread whose task context runs (nil: an interrupt's)
	counts map[string][2]int    // thread -> {unmarked, marked}
}

func (l *readerFragments) Boundary(_ *cpu.CPU, kind cpu.BoundaryKind, ctx cpu.Context, th *cpu.Thread, label string) {
	l.cur = nil
	if ctx != cpu.CtxTask || th == nil {
		return // an interrupt's fragment
	}
	l.cur = th
	if kind != cpu.BoundaryStep {
		return // th's fragment goes on (a resume, an irq's return)
	}
	l.close(th)
	if label == l.start {
		l.open[th] = false
	}
}

// close counts th's open fragment, if it started at the reader's step point.
func (l *readerFragments) close(th *cpu.Thread) {
	marked, ok := l.open[th]
	if !ok {
		return
	}
	delete(l.open, th)
	n := l.counts[th.Name]
	if marked {
		n[1]++
	} else {
		n[0]++
	}
	l.counts[th.Name] = n
}

func (l *readerFragments) Touch(obj any, _ string, _ bool) {
	if _, ok := obj.(cpu.Unaudited); ok && l.cur != nil {
		if _, open := l.open[l.cur]; open {
			l.open[l.cur] = true
		}
	}
}

// TestRecordReaderMarks: the fragments that start at the reader's step
// point after data_head is loaded ("ring_buffer_read_head:loaded",
// declared complete by perftool/footprint_record.go) are unmarked only in
// perf record's own loop: a tool thread's reads (the read action's
// overwrite reader, the spin-read action's simpleperf reader) are marked
// every time. (A mark touches everything, so each marked fragment of the
// main thread is one that went on into code outside the pass: a ring with
// nothing new at the pass's end, say.)
func TestRecordReaderMarks(t *testing.T) {
	for _, tc := range []struct {
		name, start string
		want        map[string][2]int // thread -> {unmarked, marked}
	}{
		// perf (perf-102) reads its forward ring in its loop; three read
		// actions' threads read the overwrite ring
		{"rb-backward-read-race", "ring_buffer_read_head:loaded", map[string][2]int{"perf-102": {4, 0}, "perf-103": {0, 3}, "perf-104": {0, 3}, "perf-105": {0, 3}}},
		// the spin-read thread took the rings from perf's loop at 1us
		{"rb-data-head-backwards", "ring_buffer_read_head:loaded", map[string][2]int{"perf-103": {0, 35}}},
		// perf's loop only, none marked: the final drain's last read goes
		// on into perf's main, annotated from the drain to its exit, the
		// PERF_FORMAT_LOST read of each event included
		// (perftool/footprint_record.go: accessLostSamples); a pass's last
		// read whose fragment went on into the evlist's disable (run
		// unannotated) would be marked
		{"attach-pid-thread-exit", "ring_buffer_read_head:loaded", map[string][2]int{"perf-103": {20, 0}}},
		// the AUX area's full-trace reads, as above
		{"aux-pause-resume-nmi", "auxtrace_mmap__read_head:loaded", map[string][2]int{"perf-102": {4, 0}}},
		{"aux-pause-resume-nmi", "auxtrace_mmap__write_tail:mb", map[string][2]int{"perf-102": {1, 0}}},
	} {
		t.Run(tc.name+"/"+tc.start, func(t *testing.T) {
			l := &readerFragments{start: tc.start, open: map[*cpu.Thread]bool{}, counts: map[string][2]int{}}
			realRun(t, loadBuiltin(t, tc.name), nil)(sim.NewRandom(1), func(m *cpu.Machine) { m.OnSegments(l) })
			for th := range l.open {
				l.close(th) // a thread that ended there
			}
			if diff := cmp.Diff(tc.want, l.counts); diff != "" {
				t.Errorf("fragments at %s per thread, {unmarked, marked} (-want +got):\n%s", l.start, diff)
			}
		})
	}
}
