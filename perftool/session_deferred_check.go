package perftool

import (
	"fmt"
	"slices"

	"perfsim/pmu"
	"perfsim/sim"
	"perfsim/uapi"
)

// DeferredInvariant is an invariant of deferred callchains, judged on what
// perf's session layer delivers against the kernel model's notes
// (pmu.Kernel.DeferredLog).
type DeferredInvariant struct{ Name, Says, Why string }

// DeferredInvariants are the deferred callchain invariants.
var DeferredInvariants = []DeferredInvariant{
	{"deferred-callchain-stitched", "every deferred kernel sample is stitched to exactly one user callchain, from the same task and the same kernel entry",
		"the cookie names the entry (unwind_deferred_request); one PERF_RECORD_CALLCHAIN_DEFERRED per entry completes every sample of it (A8); samples after the callback (B16) are exempt"},
	{"deferred-no-double-period", "no period is counted twice",
		"the deferred user callchain carries no period (PERF_RECORD_CALLCHAIN_DEFERRED); the RFC's second PERF_RECORD_SAMPLE carried last_period again (Namhyung Kim's review)"},
	{"deferred-user-frames", "user frames in a stitched chain are the frames the task had at that return to user",
		"the unwind runs in the task before it returns to user mode, into a per-task cache; the RFC's per-CPU buffer could be rewritten by another task meanwhile"},
}

// DeferredViolation is one broken deferred callchain invariant.
type DeferredViolation struct {
	Invariant string
	T         sim.Time
	Tid       int
	Message   string
}

// CheckDeferred judges the deferred callchain invariants on the session's
// perf.data (merging as perf script does by default).
func (ss *Session) CheckDeferred() []DeferredViolation {
	ss.process()
	log := ss.K.DeferredLog()
	type key struct {
		tid  int
		time uint64
	}
	notes := map[key]pmu.DeferredSample{}
	for _, n := range log.Samples {
		notes[key{n.Tid, n.Time}] = n
	}
	rfc := map[key]bool{}
	outputs := map[key]pmu.DeferredOutput{}
	for _, o := range log.Outputs {
		outputs[key{o.Tid, o.Time}] = o
		if o.RFC > 0 {
			rfc[key{o.Tid, o.Time}] = true
		}
	}
	truth := func(tid int, entry uint64) (pmu.DeferredReturn, bool) {
		for _, r := range log.Returns {
			if r.Tid == tid && r.Entry == entry {
				return r, true
			}
		}
		return pmu.DeferredReturn{}, false
	}
	// lastRead is when perf last copied a ring: what the kernel writes later
	// is not in perf.data (the session ended before that return, B17).
	var lastRead sim.Time
	for _, c := range ss.Data.Chunks {
		if c.Map >= 0 && c.At > lastRead {
			lastRead = c.At
		}
	}
	var out []DeferredViolation
	add := func(inv string, t uint64, tid int, f string, a ...any) {
		out = append(out, DeferredViolation{Invariant: inv, T: sim.Time(t), Tid: tid, Message: fmt.Sprintf(f, a...)})
	}
	for _, ds := range ss.Data.Deliver(true) {
		s := ds.Sample
		k := key{int(s.Tid), s.Time}
		period := s.Period
		if a := &ss.Data.Attrs[ds.Evsel].Attr; a.SampleType&uapi.PERF_SAMPLE_PERIOD == 0 {
			period = a.SamplePeriod // evsel__parse_sample(): data->period = attr.sample_period
		}
		if rfc[k] && period != 0 {
			add("deferred-no-double-period", s.Time, k.tid, "the deferred user callchain came as a sample of period %d, counted again", period)
		}
		if !ds.Deferred {
			continue
		}
		n, ok := notes[k]
		if !ok || n.AfterCallback {
			continue
		}
		ret, known := truth(n.Tid, n.Entry)
		if !ds.Merged {
			if known && !ret.Exit && sim.Time(ret.Time) < lastRead {
				add("deferred-callchain-stitched", s.Time, k.tid, "sample with cookie %#x (entry %d) delivered unmerged though the task returned to user at %s",
					ds.Cookie, n.Entry, sim.Time(ret.Time))
			}
			continue
		}
		rec := &ss.Data.Records[ds.MergedWith]
		o, ok := outputs[key{int(rec.Dec.ID.Tid), rec.Dec.ID.Time}]
		if !ok || o.Tid != n.Tid || o.Entry != n.Entry {
			add("deferred-callchain-stitched", s.Time, k.tid, "sample of entry %d stitched to the callchain of task %d entry %d", n.Entry, o.Tid, o.Entry)
			continue
		}
		if !known {
			continue
		}
		got, want := userPart(s.Callchain), ret.UserIPs
		if !slices.Equal(got, want) {
			add("deferred-user-frames", s.Time, k.tid, "stitched user frames %x, the task had %x", got, want)
		}
	}
	return out
}

// userPart returns the ips after the last user context marker.
func userPart(cc []uint64) []uint64 {
	for i := len(cc) - 1; i >= 0; i-- {
		if cc[i] == uapi.PERF_CONTEXT_USER_DEFERRED || cc[i] == uapi.PERF_CONTEXT_USER {
			return cc[i+1:]
		}
	}
	return nil
}

// deferredStats counts what the tool did with deferred samples.
func (ss *Session) deferredStats() (merged, unmerged, records int64) {
	ss.process()
	for _, ds := range ss.Data.Deliver(true) {
		if ds.Merged {
			merged++
		} else if ds.Deferred {
			unmerged++
		}
	}
	for i := range ss.Data.Records {
		if ss.Data.Records[i].Header.Type == uapi.PERF_RECORD_CALLCHAIN_DEFERRED {
			records++
		}
	}
	return
}

func (ss *Session) violations(inv string) int64 {
	var n int64
	for _, v := range ss.CheckDeferred() {
		if v.Invariant == inv {
			n++
		}
	}
	return n
}

func init() {
	RegisterToolKnob(sim.KnobSpec{
		Name:   "merge-callchains",
		Values: []string{"on", "off"},
		Help:   "perf script: merge deferred user callchains into their samples (default), or --no-merge-callchains: print the records as they are",
		Source: "perf-tools-next Dec 2025: 27ddc1d7a6b7 (perf record --call-graph fp,defer), 25a9dd56cf84, 9b4525fd089d (perf script --merge-callchains), " +
			"405f5756bbd2 (flush unmatched samples at the end)",
		Package: "perftool",
	})
	RegisterSessionObservable("perf.deferred.merged", "samples delivered with their deferred user callchain stitched in", func(ss *Session) int64 { m, _, _ := ss.deferredStats(); return m })
	RegisterSessionObservable("perf.deferred.unmerged", "samples with PERF_CONTEXT_USER_DEFERRED delivered without their user callchain", func(ss *Session) int64 { _, u, _ := ss.deferredStats(); return u })
	RegisterSessionObservable("perf.deferred.records", "PERF_RECORD_CALLCHAIN_DEFERRED records in perf.data", func(ss *Session) int64 { _, _, r := ss.deferredStats(); return r })
	for _, inv := range DeferredInvariants {
		name := inv.Name
		RegisterSessionObservable("perf.violations."+name, "violations of "+name+": "+inv.Says, func(ss *Session) int64 { return ss.violations(name) })
	}
}
