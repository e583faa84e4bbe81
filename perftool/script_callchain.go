package perftool

import (
	"bufio"
	"fmt"
	"sort"

	"perfsim/mm"
	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/uapi"
)

// PERF_CONTEXT_MAX: callchain words at or above it are context markers.
const perfContextMax = ^uint64(4095) + 1 // (u64)-4095

// timeOrder returns the decoded records in time order (ordered_events).
func (d *PerfData) timeOrder() []int {
	d.Parsed()
	order := make([]int, 0, len(d.Records))
	for i := range d.Records {
		if d.Records[i].Dec != nil {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return d.Records[order[a]].Time() < d.Records[order[b]].Time() })
	return order
}

// printCallchain ends a sample line with its callchain, one frame a line:
// context markers switch between kernel and user and are not printed; the
// word after PERF_CONTEXT_USER_DEFERRED of an unmerged sample (its cookie) is
// just a user address perf cannot resolve.
// tools/perf/builtin-script.c: process_event() (fputc('\n')),
// tools/perf/util/evsel_fprintf.c: sample__fprintf_callchain(),
// tools/perf/util/machine.c: add_callchain_ip()
func printCallchain(w *bufio.Writer, s *rb.Sample, o *ScriptOptions) {
	w.WriteByte('\n')
	kernel := s.Misc&uapi.PERF_RECORD_MISC_KERNEL != 0
	for _, ip := range s.Callchain {
		if ip >= perfContextMax {
			switch ip {
			case uapi.PERF_CONTEXT_KERNEL:
				kernel = true
			case uapi.PERF_CONTEXT_USER, uapi.PERF_CONTEXT_USER_DEFERRED:
				kernel = false
			}
			continue
		}
		// A user frame in an exec'd image's text (pmu.UserText) prints as
		// its map's file address: map_ip() of the text VMA (start
		// ImageBase+PageSize, page offset 1), ip - ImageBase. (Assumed for
		// every task: the model's perf script keeps no maps.)
		shown := ip
		if !kernel && ip >= pmu.UserText && ip < pmu.UserText+pmu.UserTextSize {
			shown = ip - mm.ImageBase
		}
		fmt.Fprintf(w, "\t%16x", shown)
		sym, off, dso, ok := "", uint64(0), "", false
		if o.Symbolize != nil {
			sym, off, dso, ok = o.Symbolize(int(s.Pid), int(s.Tid), ip, kernel)
		}
		if ok {
			fmt.Fprintf(w, " %s+0x%x (%s)\n", sym, off, dso)
		} else {
			w.WriteString(" [unknown] ([unknown])\n")
		}
	}
	w.WriteByte('\n')
}

// printCallchainDeferred prints a PERF_RECORD_CALLCHAIN_DEFERRED under
// --no-merge-callchains, as a sample line of its event (period 0) followed by
// its user frames.
// tools/perf/builtin-script.c: process_deferred_sample_event()
func printCallchainDeferred(w *bufio.Writer, fa *FileAttr, r *DataRecord, comms map[uint32]string, nameWidth int, o *ScriptOptions) {
	cd := r.Dec.Sideband.(*rb.CallchainDeferred)
	s := &rb.Sample{Misc: r.Header.Misc, Callchain: append([]uint64{uapi.PERF_CONTEXT_USER}, cd.IPs...)}
	if id := r.Dec.ID; id != nil {
		s.Pid, s.Tid, s.Time, s.CPU = id.Pid, id.Tid, id.Time, id.CPU
	}
	a := *fa
	a.Attr.SampleType |= uapi.PERF_SAMPLE_CALLCHAIN | uapi.PERF_SAMPLE_PERIOD
	f := scriptFields([]FileAttr{a})[outputType(a.Attr.Type)]
	printSample(w, &a, f, s, comms, nameWidth, o)
}
