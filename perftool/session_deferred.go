package perftool

import (
	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/uapi"
)

// DeliveredSample is a sample as perf's session layer hands it to the tool:
// with its user callchain stitched in when its PERF_RECORD_CALLCHAIN_DEFERRED
// matched.
type DeliveredSample struct {
	Rec    int // index in PerfData.Records of the PERF_RECORD_SAMPLE
	Evsel  int
	Sample *rb.Sample // Callchain is the merged one when Merged
	// Deferred: the recorded callchain ends in PERF_CONTEXT_USER_DEFERRED and
	// a cookie (perf_sample.deferred_callchain).
	Deferred bool
	Cookie   uint64
	// Merged: stitched to the user callchain of a record with the same TID and
	// cookie; MergedWith is that record's index.
	Merged     bool
	MergedWith int
}

// deferredQueue is evlist->deferred_samples and the delivery around it.
// tools/perf/util/session.c: machines__deliver_event(),
// evlist__deliver_deferred_callchain(), session__flush_deferred_samples()
type deferredQueue struct {
	d     *PerfData
	merge bool // tool->merge_deferred_callchains
	queue []DeliveredSample
}

func newDeferredQueue(d *PerfData, merge bool) *deferredQueue {
	return &deferredQueue{d: d, merge: merge}
}

// deferredCookie reports whether a recorded callchain waits for a deferred
// user part: defer_callchain set and ips[nr-2] == PERF_CONTEXT_USER_DEFERRED.
// tools/perf/util/evsel.c: evsel__parse_sample()
func deferredCookie(a *pmu.Attr, cc []uint64) (uint64, bool) {
	n := len(cc)
	if !a.DeferCallchain || n < 2 || cc[n-2] != uapi.PERF_CONTEXT_USER_DEFERRED {
		return 0, false
	}
	return cc[n-1], true
}

// sample delivers PERF_RECORD_SAMPLE i now, or queues it when it waits for
// its deferred callchain.
func (q *deferredQueue) sample(i int) []DeliveredSample {
	r := &q.d.Records[i]
	ds := DeliveredSample{Rec: i, Evsel: r.Evsel, Sample: r.Dec.Sample, MergedWith: -1}
	ds.Cookie, ds.Deferred = deferredCookie(&q.d.Attrs[r.Evsel].Attr, r.Dec.Sample.Callchain)
	if ds.Deferred && q.merge {
		q.queue = append(q.queue, ds)
		return nil
	}
	return []DeliveredSample{ds}
}

// deferred handles PERF_RECORD_CALLCHAIN_DEFERRED i: every queued sample of the
// same TID is delivered, merged when the cookies match, unmerged otherwise.
// tools/perf/util/session.c: evlist__deliver_deferred_callchain()
func (q *deferredQueue) deferred(i int) []DeliveredSample {
	r := &q.d.Records[i]
	cd, ok := r.Dec.Sideband.(*rb.CallchainDeferred)
	if !ok || !q.merge {
		return nil
	}
	tid := int64(-1)
	if r.Dec.ID != nil {
		tid = int64(r.Dec.ID.Tid)
	}
	var out []DeliveredSample
	kept := q.queue[:0]
	for _, ds := range q.queue {
		if int64(ds.Sample.Tid) != tid {
			kept = append(kept, ds)
			continue
		}
		if cd.Cookie == ds.Cookie {
			if cc, ok := mergeDeferredCallchain(ds.Sample.Callchain, cd.IPs); ok {
				s := *ds.Sample
				s.Callchain = cc
				ds.Sample, ds.Merged, ds.MergedWith = &s, true, i
			}
		}
		out = append(out, ds)
	}
	q.queue = kept
	return out
}

// flush delivers what is left unmerged at the end of the session.
// tools/perf/util/session.c: session__flush_deferred_samples()
func (q *deferredQueue) flush() []DeliveredSample {
	out := q.queue
	q.queue = nil
	return out
}

// mergeDeferredCallchain is the original chain without its last word (the
// cookie; PERF_CONTEXT_USER_DEFERRED stays) followed by the deferred ips.
// tools/perf/util/callchain.c: sample__merge_deferred_callchain()
func mergeDeferredCallchain(orig, deferred []uint64) ([]uint64, bool) {
	if len(orig) < 2 {
		return nil, false
	}
	n := len(orig) - 1
	out := make([]uint64, 0, n+len(deferred))
	out = append(out, orig[:n]...)
	return append(out, deferred...), true
}

// Deliver runs the session's delivery over the whole perf.data, in time order
// (ordered_events), and returns the samples as the tool gets them.
func (d *PerfData) Deliver(merge bool) []DeliveredSample {
	d.Parsed()
	q := newDeferredQueue(d, merge)
	var out []DeliveredSample
	for _, i := range d.timeOrder() {
		r := &d.Records[i]
		switch {
		case r.Dec.Sample != nil && r.Evsel >= 0:
			out = append(out, q.sample(i)...)
		case r.Header.Type == uapi.PERF_RECORD_CALLCHAIN_DEFERRED && r.Evsel >= 0:
			out = append(out, q.deferred(i)...)
		}
	}
	return append(out, q.flush()...)
}
