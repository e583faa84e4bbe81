package explore

import (
	"fmt"
	"sort"
	"strings"
)

// PORFootprints is what the dpor walk saw of the model's footprints: how
// many of the fragments its schedules opened had a complete one, and the
// fragment starts of those that did not. A fragment whose footprint is not
// complete (its start not declared with cpu.DeclareComplete, an object with
// no stable key, a data choice inside it) is dependent with every other
// fragment, so it is what keeps the walk from reducing: a user who sees a
// walk that does not end can tell why, and what to declare.
type PORFootprints struct {
	Fragments  int              `json:"fragments"`
	Complete   int              `json:"complete"`
	Incomplete []PORFragmentRow `json:"incomplete,omitempty"` // every start, most met first (the summary line names porTopIncomplete of them)
	// CPUs is the scenario's CPU count: with one, the walk reduces nothing
	// whatever is declared (a CPU's task fragments are never independent
	// of its own interrupts: dpor.go's Boundary).
	CPUs int `json:"cpus"`
}

// PORFragmentRow is one fragment start and how many of the walk's
// fragments started there without a complete footprint.
type PORFragmentRow struct {
	Start string `json:"start"`
	Count int    `json:"count"`
}

// porTopIncomplete is how many starts the summary line names (--json
// keeps them all: the ones a user must declare next are rarely only the
// top few).
const porTopIncomplete = 8

// incomplete makes e's footprint incomplete for the reason why (the first
// one a fragment whose start is declared complete meets is kept).
func (e *porEvent) incomplete(why string) {
	if (e.complete || e.pending) && e.why == "" {
		e.why = why
	}
	e.complete, e.pending = false, false
}

// countFragment counts a fragment the walk closed.
func (s *porSearch) countFragment(e *porEvent) {
	s.Fragments++
	if e.complete {
		return
	}
	if s.Incomplete == nil {
		s.Incomplete = map[string]int{}
	}
	start := e.start
	if start == "" {
		start = "(before any step point)"
	}
	if e.why != "" {
		start += " (declared, but: " + e.why + ")"
	}
	s.Incomplete[start]++
}

// footprints sums up the walk's fragments.
func (s *porSearch) footprints(cpus int) *PORFootprints {
	fp := &PORFootprints{Fragments: s.Fragments, CPUs: cpus}
	incomplete := 0
	for start, n := range s.Incomplete {
		incomplete += n
		fp.Incomplete = append(fp.Incomplete, PORFragmentRow{start, n})
	}
	fp.Complete = s.Fragments - incomplete
	sort.Slice(fp.Incomplete, func(i, j int) bool {
		a, b := fp.Incomplete[i], fp.Incomplete[j]
		return a.Count > b.Count || a.Count == b.Count && a.Start < b.Start
	})
	return fp
}

// footprintLine is the dpor summary's line on footprints.
func (fp *PORFootprints) footprintLine() string {
	if fp == nil || fp.Fragments == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "footprints: %d of %d fragments (%.0f%%) had a complete one", fp.Complete, fp.Fragments, 100*float64(fp.Complete)/float64(fp.Fragments))
	if len(fp.Incomplete) > 0 {
		b.WriteString("; each other one counts as touching everything, so no fragment is independent of it. Most met without one (by start: one not declared with cpu.DeclareComplete or cpu.DeclareCompleteUntil; or one declared that did what the row says):")
		for i, r := range fp.Incomplete[:min(len(fp.Incomplete), porTopIncomplete)] {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %s (%d)", r.Start, r.Count)
		}
		if more := len(fp.Incomplete) - porTopIncomplete; more > 0 {
			fmt.Fprintf(&b, "; and %d more starts (--json's dpor_footprints lists them all)", more)
		}
	}
	if fp.CPUs == 1 {
		b.WriteString(". With one CPU the walk reduces nothing whatever is declared: a CPU's task fragments are never independent of its own interrupts")
	}
	return b.String()
}
