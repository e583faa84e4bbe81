package perftool

import "fmt"

// The deferred callchain invariants (DeferredInvariants) are oracles of the
// tool side: they are registered as session invariants, so the scenario
// runtime lists them (simrun names them), a scenario can say
// "always deferred-callchain-stitched", and their violations are reported at
// the end of every run that recorded with --call-graph ...,defer. The
// perf.violations.NAME observables stay for outcomes that count them.

// deferredCheck returns the Check of the deferred invariant named inv: the
// violations CheckDeferred finds for it, one message each.
func deferredCheck(inv string) func(ss *Session) []string {
	return func(ss *Session) []string {
		if !ss.deferredActive() {
			return nil
		}
		var out []string
		for _, v := range ss.CheckDeferred() {
			if v.Invariant == inv {
				out = append(out, fmt.Sprintf("tid %d, sample at %s: %s", v.Tid, v.T, v.Message))
			}
		}
		return out
	}
}

// deferredActive reports whether the kernel noted any deferred sample or
// deferred output: without one no deferred invariant can fail, and the check
// (which processes perf.data) is skipped.
func (ss *Session) deferredActive() bool {
	if ss == nil || ss.K == nil || ss.Data == nil {
		return false
	}
	log := ss.K.DeferredLog()
	return len(log.Samples) > 0 || len(log.Outputs) > 0
}

func init() {
	for _, inv := range DeferredInvariants {
		RegisterSessionInvariant(SessionInvariant{
			Name:    inv.Name,
			Says:    inv.Says,
			Why:     inv.Why,
			Package: "perftool",
			Check:   deferredCheck(inv.Name),
		})
	}
}
