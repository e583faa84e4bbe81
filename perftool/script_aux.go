package perftool

import (
	"bufio"
	"fmt"
	"io"
	"sort"

	"perfsim/rb"
	"perfsim/uapi"
)

// The AUX side of reading a perf.data: PERF_RECORD_AUXTRACE's data, the
// `perf report -D` lines of the AUX records, and `perf script --itrace=b`
// from decoded AUX data. intel_pt's trace is Intel PT packets (pmu/pt); the
// "branches" are the trace starts (TIP.PGE, perf's "tr strt"), one per
// stretch of traced execution, with its time, mode, task and address.

// auxtraceSkip is what perf's reader skips after a PERF_RECORD_AUXTRACE: its
// data, which header.size does not count (0 for every other record).
// tools/perf/util/session.c: perf_session__process_user_event() (PERF_RECORD_AUXTRACE returns event->auxtrace.size)
func auxtraceSkip(hdr rb.Header, rec []byte) int {
	if hdr.Type != RecordAuxtrace {
		return 0
	}
	ev, ok := ParseAuxtraceEvent(rec)
	if !ok || ev.Size > 1<<40 {
		return 0
	}
	return int(ev.Size)
}

// AuxtraceChunk is one PERF_RECORD_AUXTRACE of the perf.data with its data.
type AuxtraceChunk struct {
	Off  int // file offset of the record
	Ev   AuxtraceEvent
	Data []byte // Ev.Size bytes (padding included), or what is left of the file
}

// Auxtrace returns the PERF_RECORD_AUXTRACE records of the processed data.
func (d *PerfData) Auxtrace() []AuxtraceChunk {
	d.materialize() // the payloads' bytes (perfdata_lazy.go)
	d.Parsed()
	var out []AuxtraceChunk
	for i := range d.Records {
		r := &d.Records[i]
		if r.Header.Type != RecordAuxtrace {
			continue
		}
		ev, ok := ParseAuxtraceEvent(d.Data[r.Off:])
		if !ok {
			continue
		}
		start := r.Off + auxtraceRecordSize
		end := min(start+int(ev.Size), len(d.Data))
		out = append(out, AuxtraceChunk{Off: r.Off, Ev: ev, Data: d.Data[start:end]})
	}
	return out
}

// auxFlagString is the [TOPC] part of perf_event__fprintf_aux().
func auxFlagString(f uint64) string {
	s := ""
	for _, x := range []struct {
		bit uint64
		c   string
	}{{uapi.PERF_AUX_FLAG_TRUNCATED, "T"}, {uapi.PERF_AUX_FLAG_OVERWRITE, "O"}, {uapi.PERF_AUX_FLAG_PARTIAL, "P"}, {uapi.PERF_AUX_FLAG_COLLISION, "C"}} {
		if f&x.bit != 0 {
			s += x.c
		}
	}
	return s
}

// DumpAux writes the `perf report -D` lines of the AUX records, in file
// order: "cpu time 0xOFF [0xSIZE]: PERF_RECORD_AUX offset: ... size: ...
// flags: ... [T]", PERF_RECORD_ITRACE_START and PERF_RECORD_AUXTRACE.
// tools/perf/util/session.c: dump_event(); util/event.c: perf_event__fprintf_aux(), perf_event__fprintf_itrace_start()
func (d *PerfData) DumpAux(w io.Writer) error {
	d.materialize() // the payloads' bytes (perfdata_lazy.go)
	d.Parsed()
	bw := bufio.NewWriter(w)
	for i := range d.Records {
		r := &d.Records[i]
		stamp := func() string {
			if r.Dec == nil || r.Dec.ID == nil {
				return "-1 -1"
			}
			return fmt.Sprintf("%d %d", r.Dec.ID.CPU, r.Dec.ID.Time)
		}
		switch r.Header.Type {
		case uapi.PERF_RECORD_AUX:
			a, ok := decodedSideband[*rb.Aux](r)
			if !ok {
				continue
			}
			fmt.Fprintf(bw, "%s %#x [%#x]: PERF_RECORD_AUX offset: %#x size: %#x flags: %#x [%s]\n",
				stamp(), r.Off, r.Header.Size, a.Offset, a.Size, a.Flags, auxFlagString(a.Flags))
		case uapi.PERF_RECORD_ITRACE_START:
			a, ok := decodedSideband[*rb.ItraceStart](r)
			if !ok {
				continue
			}
			fmt.Fprintf(bw, "%s %#x [%#x]: PERF_RECORD_ITRACE_START pid: %d tid: %d\n", stamp(), r.Off, r.Header.Size, a.Pid, a.Tid)
		case RecordAuxtrace:
			ev, ok := ParseAuxtraceEvent(d.Data[r.Off:])
			if !ok {
				continue
			}
			// perf_event__fprintf_auxtrace()-like: dump_printf(" size: %#llx offset: %#llx ref: %#llx idx: %u tid: %d cpu: %d\n")
			fmt.Fprintf(bw, "%#x [%#x]: PERF_RECORD_AUXTRACE size: %#x  offset: %#x  ref: %#x  idx: %d  tid: %d  cpu: %d\n",
				r.Off, r.Header.Size, ev.Size, ev.Offset, ev.Reference, ev.Idx, int32(ev.Tid), int32(ev.CPU))
		}
	}
	return bw.Flush()
}

// decodedSideband returns the record's decoded side-band body as a T.
func decodedSideband[T any](r *DataRecord) (T, bool) {
	var zero T
	if r.Dec == nil || r.Dec.Sideband == nil {
		return zero, false
	}
	v, ok := r.Dec.Sideband.(T)
	return v, ok
}

// AuxBranch is one synthetic branch decoded from AUX data.
type AuxBranch struct {
	Time  uint64
	Tid   uint32
	CPU   int
	User  bool
	IP    uint64 // the TIP.PGE's IP
	Bytes int    // the trace bytes from it to the next TIP.PGE
	// Iterations are the loop iterations (taken branches) walked from it
	// (intel_pt: pt.Follow).
	Iterations uint64
}

// AuxDecoder turns AUX bytes of one PMU into branches; bad counts bytes that
// are not trace (padding, torn or overwritten data).
type AuxDecoder func(b []byte) (branches []AuxBranch, bad int)

var auxDecoders = map[string]AuxDecoder{}

// RegisterAuxDecoder registers the decoder of an AUX PMU's trace (call from init).
func RegisterAuxDecoder(pmuName string, dec AuxDecoder) { auxDecoders[pmuName] = dec }

// auxPMU returns the PMU of the AUX evsel in the perf.data header ("" if none).
func (d *PerfData) auxPMU() string {
	for i := range d.Attrs {
		if d.Attrs[i].Attr.Type == intelPT.typ {
			return intelPT.name
		}
		if d.Attrs[i].Attr.Type == csETM.typ {
			return csETM.name
		}
	}
	return ""
}

// ItraceBranches decodes every PERF_RECORD_AUXTRACE with the AUX PMU's
// decoder, a queue's consecutive buffers as one stream: the branches perf
// script --itrace=b would synthesize, in time order, and the errors.
// tools/perf/util/intel-pt.c: intel_pt_process_auxtrace_event() -> intel_pt_synth_branch_sample() (synthetic)
func (d *PerfData) ItraceBranches() ([]AuxBranch, int) {
	dec := auxDecoders[d.auxPMU()]
	if dec == nil {
		return nil, 0
	}
	// In full-trace mode a queue's buffers are one stream: the decoder goes
	// on from one into the next without looking for a PSB (b->consecutive);
	// each snapshot is a stream of its own.
	// tools/perf/util/intel-pt.c: intel_pt_get_buffer()
	type stream struct {
		cpu  uint32
		tid  uint32 // the buffer's thread (per-thread mmaps), else -1
		data []byte
	}
	var streams []*stream
	open := map[uint32]*stream{}
	for _, c := range d.Auxtrace() {
		s := open[c.Ev.Idx]
		if s == nil || d.Snapshot {
			s = &stream{cpu: c.Ev.CPU, tid: c.Ev.Tid}
			open[c.Ev.Idx] = s
			streams = append(streams, s)
		}
		s.data = append(s.data, c.Data...)
	}
	var out []AuxBranch
	bad := 0
	for _, s := range streams {
		bs, b := dec(s.data)
		for i := range bs {
			bs[i].CPU = int(int32(s.cpu))
			if s.tid != ^uint32(0) && bs[i].Tid == 0 {
				bs[i].Tid = s.tid
			}
		}
		out = append(out, bs...)
		bad += b
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time < out[j].Time })
	return out, bad
}

// ItraceLine is one line of `perf script --itrace=b -Fperiod,event`: a
// sample of the recorded events or a synthesized branch.
type ItraceLine struct {
	Time   uint64
	Period uint64
	Event  string // evsel name, or "branches"
	Evsel  int    // -1 for a branch
	Branch *AuxBranch
}

// ItraceScript merges the samples and the decoded branches in time order; a
// branch at the same time as a sample comes after it.
// tools/perf/builtin-script.c with --itrace=b (ordered_events)
func (d *PerfData) ItraceScript() []ItraceLine {
	d.Parsed()
	var out []ItraceLine
	for i := range d.Records {
		r := &d.Records[i]
		if r.Dec == nil || r.Dec.Sample == nil || r.Evsel < 0 {
			continue
		}
		fa := &d.Attrs[r.Evsel]
		p := r.Dec.Sample.Period
		if fa.Attr.SampleType&uapi.PERF_SAMPLE_PERIOD == 0 {
			p = fa.Attr.SamplePeriod
		}
		out = append(out, ItraceLine{Time: r.Dec.Sample.Time, Period: p, Event: fa.Name, Evsel: r.Evsel})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time < out[j].Time })
	bs, _ := d.ItraceBranches()
	merged := make([]ItraceLine, 0, len(out)+len(bs))
	j := 0
	for i := range bs {
		for j < len(out) && out[j].Time <= bs[i].Time {
			merged = append(merged, out[j])
			j++
		}
		merged = append(merged, ItraceLine{Time: bs[i].Time, Period: 1, Event: "branches", Evsel: -1, Branch: &bs[i]})
	}
	return append(merged, out[j:]...)
}

// WriteItrace writes the lines as `perf script --itrace=b -Fperiod,event`
// prints them; a branch with its TIP.PGE address, mode, task, CPU and time.
func WriteItrace(w io.Writer, lines []ItraceLine) error {
	bw := bufio.NewWriter(w)
	for _, l := range lines {
		if l.Branch == nil {
			fmt.Fprintf(bw, "%10d %s: \n", l.Period, l.Event)
			continue
		}
		mode := "kernel"
		if l.Branch.User {
			mode = "user"
		}
		fmt.Fprintf(bw, "%10d %s:  tr strt %#x (%s, tid %d, cpu %d, t=%d)\n", l.Period, l.Event, l.Branch.IP, mode, l.Branch.Tid, l.Branch.CPU, l.Time)
	}
	return bw.Flush()
}

// PauseResumeTally is test_intel_pt.sh test_pause_resume's awk over the
// --itrace=b lines: tracing starts paused; a sample of an aux_resume event
// resumes it, of an aux_pause event pauses it; a branch while paused fails.
type PauseResumeTally struct {
	Branches, WhilePaused, User int64
}

// PauseResume runs the check over lines (attrs say which evsels pause or resume).
// tools/perf/tests/shell/test_intel_pt.sh: test_pause_resume()
func (d *PerfData) PauseResume(lines []ItraceLine) PauseResumeTally {
	var t PauseResumeTally
	paused := true
	for _, l := range lines {
		if l.Branch != nil {
			t.Branches++
			if paused {
				t.WhilePaused++
			}
			if l.Branch.User {
				t.User++
			}
			continue
		}
		a := &d.Attrs[l.Evsel].Attr
		switch {
		case a.AuxResume:
			paused = false
		case a.AuxPause:
			paused = true
		}
	}
	return t
}

// itraceTally is the pause/resume check over what the session recorded.
func (ss *Session) itraceTally() PauseResumeTally {
	ss.process()
	return ss.Data.PauseResume(ss.Data.ItraceScript())
}

func init() {
	RegisterSessionObservable("perf.itrace.branches", "trace starts (TIP.PGE: the \"tr strt\" branches of perf script --itrace=b) decoded from the AUX data, one per stretch of traced execution",
		func(ss *Session) int64 { return ss.itraceTally().Branches })
	RegisterSessionObservable("perf.itrace.paused_branches", "... of them while tracing should be paused: after an aux_pause sample, before an aux_resume one (test_intel_pt.sh)",
		func(ss *Session) int64 { return ss.itraceTally().WhilePaused })
	RegisterSessionObservable("perf.itrace.user_branches", "... of them in user mode",
		func(ss *Session) int64 { return ss.itraceTally().User })
	RegisterSessionObservable("perf.aux_records", "PERF_RECORD_AUX records in perf.data", func(ss *Session) int64 {
		ss.process()
		n := int64(0)
		for i := range ss.Data.Records {
			if ss.Data.Records[i].Header.Type == uapi.PERF_RECORD_AUX {
				n++
			}
		}
		return n
	})
	RegisterSessionObservable("perf.aux_truncated_empty", "PERF_RECORD_AUX records with TRUNCATED and size 0 in perf.data (5b590160d2cf)", func(ss *Session) int64 {
		ss.process()
		n := int64(0)
		for i := range ss.Data.Records {
			if a, ok := decodedSideband[*rb.Aux](&ss.Data.Records[i]); ok && a.Size == 0 && a.Flags&uapi.PERF_AUX_FLAG_TRUNCATED != 0 {
				n++
			}
		}
		return n
	})
}
