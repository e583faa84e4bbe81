package perftool

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"perfsim/rb"
	"perfsim/uapi"
)

// ScriptOptions are the perf script options the model knows.
type ScriptOptions struct {
	// Symbolize resolves a sample ip to sym+off and dso; nil (or ok=false)
	// prints "[unknown] ([unknown])", what perf prints for an ip outside every
	// known map.
	Symbolize func(pid, tid int, ip uint64, kernel bool) (sym string, off uint64, dso string, ok bool)
	// NoMergeCallchains is --no-merge-callchains: samples with a deferred
	// user callchain are printed as recorded and PERF_RECORD_CALLCHAIN_DEFERRED
	// on its own (script_callchain.go).
	NoMergeCallchains bool
}

// Script writes what `perf script` prints by default for the samples of d:
// samples in time order (ordered_events), each with the default output
// fields of its event type. Hardware, software and other PMU events print
// comm, tid, [cpu] (when sampled), time, period, event name, ip, sym+off and
// dso; tracepoints print comm, tid, [cpu], time, event name and the event's
// print fmt applied to its raw data (libtraceevent's tep_print_event()).
// tools/perf/builtin-script.c: process_event(), perf_sample__fprintf_start()
func (d *PerfData) Script(w io.Writer, o ScriptOptions) error {
	d.Parsed()
	bw := bufio.NewWriter(w)
	order := make([]int, 0, len(d.Records))
	for i := range d.Records {
		if d.Records[i].Dec != nil {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return d.Records[order[a]].Time() < d.Records[order[b]].Time() })

	nameWidth := 0 // evlist__max_name_len()
	for i := range d.Attrs {
		nameWidth = max(nameWidth, len(d.Attrs[i].Name))
	}
	fields := scriptFields(d.Attrs)
	comms := map[uint32]string{}
	dq := newDeferredQueue(d, !o.NoMergeCallchains) // evlist->deferred_samples (session_deferred.go)
	sr := &sampleRead{d: d}
	print := func(ds []DeliveredSample) {
		for _, x := range ds {
			fa := &d.Attrs[x.Evsel]
			if fa.Attr.SampleType&uapi.PERF_SAMPLE_READ != 0 {
				sr.deliver(x, func(evsel int, s *rb.Sample) {
					fa := &d.Attrs[evsel]
					printSample(bw, fa, fields[outputType(fa.Attr.Type)], s, comms, nameWidth, &o)
				})
				continue
			}
			printSample(bw, fa, fields[outputType(fa.Attr.Type)], x.Sample, comms, nameWidth, &o)
		}
	}
	for _, i := range order {
		r := &d.Records[i]
		switch {
		case r.Header.Type == uapi.PERF_RECORD_COMM:
			c := r.Dec.Sideband.(*rb.Comm)
			comms[c.Tid] = c.Comm // machine__process_comm_event() -> thread__set_comm()
		case r.Header.Type == uapi.PERF_RECORD_FORK:
			// machine__process_fork_event() -> thread__fork(): the child
			// starts with its parent's comm.
			f := r.Dec.Sideband.(*rb.Task)
			if c, ok := comms[f.Ptid]; ok {
				comms[f.Tid] = c
			}
		case r.Dec.Sample != nil && r.Evsel >= 0:
			print(dq.sample(i))
		case r.Header.Type == uapi.PERF_RECORD_CALLCHAIN_DEFERRED && r.Evsel >= 0:
			if o.NoMergeCallchains {
				printCallchainDeferred(bw, &d.Attrs[r.Evsel], r, comms, nameWidth, &o)
				continue
			}
			print(dq.deferred(i))
		}
	}
	print(dq.flush()) // session__flush_deferred_samples()
	return bw.Flush()
}

// perf script output fields (enum perf_output_field), the ones modelled.
const (
	outComm = 1 << iota
	outTID
	outCPU
	outTime
	outPeriod
	outEvname
	outTrace
	outIP
	outSym
	outSymOff
	outDSO
)

// outputType is builtin-script.c's output_type(): PERF_TYPE_* below
// PERF_TYPE_MAX index their own defaults, dynamic PMUs share "other" (same
// defaults as hardware).
func outputType(typ uint32) int {
	if typ < uapi.PERF_TYPE_MAX {
		return int(typ)
	}
	return uapi.PERF_TYPE_MAX
}

// scriptFields returns, per output type, the default fields of builtin-script.c's
// output[] table, minus those the first evsel of the type does not sample:
// "Samples for '%s' event do not have %s attribute set. Skipping '%s' field."
// (PERIOD is not checked: without PERF_SAMPLE_PERIOD it prints attr.sample_period).
// tools/perf/builtin-script.c: output[], evsel__check_attr(), evsel__do_check_stype()
func scriptFields(attrs []FileAttr) map[int]int {
	hw := outComm | outTID | outCPU | outTime | outEvname | outIP | outSym | outSymOff | outDSO | outPeriod
	tp := outComm | outTID | outCPU | outTime | outEvname | outTrace
	out := map[int]int{}
	for i := range attrs {
		a := &attrs[i].Attr
		t := outputType(a.Type)
		if _, done := out[t]; done {
			continue
		}
		f := hw
		if a.Type == uapi.PERF_TYPE_TRACEPOINT {
			f = tp
		}
		for _, c := range []struct {
			bit   uint64
			field int
		}{{uapi.PERF_SAMPLE_TID, outTID}, {uapi.PERF_SAMPLE_CPU, outCPU}, {uapi.PERF_SAMPLE_TIME, outTime}, {uapi.PERF_SAMPLE_IP, outIP | outSym | outSymOff | outDSO}} {
			if a.SampleType&c.bit == 0 {
				f &^= c.field
			}
		}
		out[t] = f
	}
	return out
}

// printSample prints one sample line.
// tools/perf/builtin-script.c: process_event(), perf_sample__fprintf_start()
func printSample(w *bufio.Writer, fa *FileAttr, f int, s *rb.Sample, comms map[uint32]string, nameWidth int, o *ScriptOptions) {
	st := fa.Attr.SampleType
	if f&outComm != 0 {
		comm, ok := comms[s.Tid]
		switch {
		case ok:
		case s.Tid == 0:
			comm = "swapper" // machine__create_kernel_maps(): the idle thread
		default:
			comm = fmt.Sprintf(":%d", s.Tid) // thread__new(): a thread without COMM is ":tid"
		}
		if f&outIP != 0 && st&uapi.PERF_SAMPLE_CALLCHAIN != 0 {
			fmt.Fprintf(w, "%s ", comm) // a callchain follows: not right-aligned
		} else {
			fmt.Fprintf(w, "%16s ", comm)
		}
	}
	if f&outTID != 0 {
		fmt.Fprintf(w, "%5d ", int32(s.Tid))
	}
	if f&outCPU != 0 {
		fmt.Fprintf(w, "[%03d] ", s.CPU)
	}
	if f&outTime != 0 {
		// timestamp__scnprintf_usec()
		fmt.Fprintf(w, "%12s: ", fmt.Sprintf("%d.%06d", s.Time/1e9, s.Time%1e9/1e3))
	}
	if f&outPeriod != 0 {
		fmt.Fprintf(w, "%10d ", s.Period)
	}
	if f&outEvname != 0 {
		fmt.Fprintf(w, "%*s: ", nameWidth, fa.Name)
	}
	if f&outTrace != 0 && s.Raw != nil && fa.Tracepoint != nil {
		w.WriteString(tpPrint(fa.Tracepoint, s.Raw)) // event_format__fprintf()
	}
	if f&outIP != 0 && st&uapi.PERF_SAMPLE_CALLCHAIN != 0 && s.Callchain != nil {
		printCallchain(w, s, o) // sample__fprintf_callchain() (script_callchain.go)
		return
	}
	if f&outIP != 0 {
		// sample__fprintf_sym() without a callchain
		w.WriteByte(' ')
		fmt.Fprintf(w, "%16x", s.IP)
		sym, off, dso, ok := "", uint64(0), "", false
		if o.Symbolize != nil {
			sym, off, dso, ok = o.Symbolize(int(s.Pid), int(s.Tid), s.IP, s.Misc&uapi.PERF_RECORD_MISC_KERNEL != 0)
		}
		switch {
		case ok && f&outSymOff != 0:
			fmt.Fprintf(w, " %s+0x%x (%s)", sym, off, dso)
		case ok:
			fmt.Fprintf(w, " %s (%s)", sym, dso)
		default:
			w.WriteString(" [unknown] ([unknown])")
		}
	}
	w.WriteByte('\n')
}

// ScriptString is Script into a string.
func (d *PerfData) ScriptString(o ScriptOptions) string {
	var b strings.Builder
	d.Script(&b, o)
	return b.String()
}
