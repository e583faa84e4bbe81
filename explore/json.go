package explore

import (
	"encoding/json"
	"io"

	"perfsim/sim"
)

// exploreJSON is what explore --json writes: everything WriteText prints, for
// scripts. The wall clock is left out, so the same exploration writes the
// same bytes.
type exploreJSON struct {
	Scenario  string   `json:"scenario"`
	File      string   `json:"file"`
	Strategy  string   `json:"strategy"`
	Seed      uint64   `json:"seed"`
	Knobs     []string `json:"knobs,omitempty"`
	Schedules int      `json:"schedules"`
	Bound     int      `json:"bound,omitempty"`
	Focus     []string `json:"focus,omitempty"`
	// CompleteUpTo (bounded): every schedule with at most this many
	// disturbing decisions ran; Exhausted: every schedule of the scenario
	// ran (the bound cut none).
	CompleteUpTo   int  `json:"complete_up_to_budget,omitempty"`
	Exhausted      bool `json:"exhausted"`
	MostDisturbing int  `json:"most_disturbing,omitempty"`
	// Depth, Agents and Steps (pct): the depth, the n and k of its
	// guarantee, and the guarantee 1/(n*k^(depth-1)).
	Depth       int            `json:"depth,omitempty"`
	Agents      int            `json:"pct_agents,omitempty"`
	Steps       int            `json:"pct_steps,omitempty"`
	Guarantee   float64        `json:"pct_guarantee,omitempty"`
	NoDecisions bool           `json:"no_decisions,omitempty"`
	Interrupted bool           `json:"interrupted"`
	Cause       string         `json:"interrupted_by,omitempty"`
	Failed      bool           `json:"failed"`
	Outcomes    []OutcomeCount `json:"outcomes"`
	Found       *foundJSON     `json:"found,omitempty"`
	// CorpusRuns: failure corpus entries run first (among the schedules);
	// CorpusSaved: where the found violation was saved.
	CorpusRuns  int    `json:"corpus_runs,omitempty"`
	CorpusSaved string `json:"corpus_saved,omitempty"`
}

type foundJSON struct {
	Schedule           int      `json:"schedule"`
	Seed               uint64   `json:"seed,omitempty"`
	Violation          string   `json:"violation"`
	Original           int      `json:"original_decisions"`
	OriginalDisturbing int      `json:"original_disturbing"`
	Token              string   `json:"token"`
	Disturbing         []string `json:"disturbing_choices"`
	ShrinkRuns         int      `json:"shrink_runs"`
	ShrinkInterrupted  bool     `json:"shrink_interrupted,omitempty"`
	Signature          string   `json:"signature"`
	Corpus             string   `json:"corpus,omitempty"` // the corpus entry that showed it
}

// WriteJSON writes the exploration as indented JSON.
func (ex *Result) WriteJSON(w io.Writer) error {
	out := exploreJSON{Scenario: ex.Scenario, File: ex.File, Strategy: ex.Strategy, Seed: ex.Seed, Knobs: ex.Knobs,
		Schedules: ex.Schedules, CorpusRuns: ex.CorpusRuns, CorpusSaved: ex.CorpusSaved, Exhausted: ex.Exhausted, NoDecisions: ex.NoDecisions, Interrupted: ex.Interrupted, Cause: ex.Cause, Failed: ex.Failed, Outcomes: ex.Outcomes}
	if ex.Strategy == "bounded" {
		out.Bound, out.Focus, out.CompleteUpTo = ex.Bound, ex.Focus, ex.CompleteUpTo
		if ex.Exhausted {
			out.MostDisturbing = ex.MostDisturbing
		}
	}
	if ex.Strategy == "pct" {
		out.Depth, out.Agents, out.Steps = ex.Depth, ex.PCTAgents, ex.PCTSteps
		out.Guarantee = PCTGuarantee(ex.PCTAgents, ex.PCTSteps, ex.Depth)
	}
	if fd := ex.Found; fd != nil {
		out.Found = &foundJSON{Schedule: fd.Schedule, Seed: fd.Seed, Violation: fd.Violation, Original: fd.Original,
			OriginalDisturbing: fd.OriginalDisturbing, Token: sim.EncodeToken(fd.Decisions), Disturbing: fd.Lines,
			ShrinkRuns: fd.ShrinkRuns, ShrinkInterrupted: fd.ShrinkInterrupted, Signature: fd.Signature, Corpus: fd.Corpus}
		if out.Found.Disturbing == nil {
			out.Found.Disturbing = []string{}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // outcomes hold > and <
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
