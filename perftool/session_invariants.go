package perftool

import (
	"slices"
	"sort"
)

// SessionInvariant is an invariant judged on a perf record session at the end
// of a run (what perf wrote, against what the kernel model logged). The
// scenario runtime lists the registered ones and runs Check on every session.
type SessionInvariant struct {
	Name    string
	Says    string // the statement, one line
	Why     string // why it must hold, and the knob that breaks it
	Package string // where the mechanism it judges lives
	// Check returns one message per violation (none when it holds).
	Check func(ss *Session) []string
}

var sessionInvariants []SessionInvariant

// RegisterSessionInvariant adds (or replaces) a session invariant; call it
// from an init function.
func RegisterSessionInvariant(inv SessionInvariant) {
	for i := range sessionInvariants {
		if sessionInvariants[i].Name == inv.Name {
			sessionInvariants[i] = inv
			return
		}
	}
	sessionInvariants = append(sessionInvariants, inv)
}

// SessionInvariants returns the registered session invariants, sorted by name.
func SessionInvariants() []SessionInvariant {
	out := slices.Clone(sessionInvariants)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
