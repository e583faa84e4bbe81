package coresight

import (
	"cmp"
	"fmt"
	"slices"

	"perfsim/sim"
)

// Span is one period of trace: an ETM enabled by etm_event_start() on CPU
// from From until etm_event_stop() disabled it at To (0 while it runs).
type Span struct {
	CPU      int
	Period   int
	From, To sim.Time
}

// spanStart notes that cpu's ETM began period p now.
func (d *Device) spanStart(cpu, p int) {
	d.Spans = append(d.Spans, Span{CPU: cpu, Period: p, From: d.host.Now()})
}

// spanEnd closes cpu's open span.
func (d *Device) spanEnd(cpu int) {
	for i := len(d.Spans) - 1; i >= 0; i-- {
		if s := &d.Spans[i]; s.CPU == cpu && s.To == 0 {
			s.To = d.host.Now()
			return
		}
	}
}

// Timeline draws the periods per CPU the way seed 004's diagram does,
//
//	CPU0: ______###P1###_________|
//
// on the time scale of the machine's timeline (end, width columns: see
// sim.Timeline), so its rows line up under the scheduler's.
func (d *Device) Timeline(end sim.Time, width int) string {
	var recs []sim.Record
	for _, s := range d.Spans {
		to := s.To
		if to == 0 {
			to = end
		}
		recs = append(recs,
			sim.Record{T: s.From, CPU: s.CPU, Kind: sim.KSwitch, Detail: fmt.Sprintf("P%d", s.Period)},
			sim.Record{T: to, CPU: s.CPU, Kind: sim.KSwitch, Detail: "idle"})
	}
	// sim.Timeline wants each CPU's switches in time order; at one instant
	// a span's end comes before the next one's start.
	slices.SortStableFunc(recs, func(a, b sim.Record) int { return cmp.Compare(a.T, b.T) })
	return sim.Timeline(recs, d.cfg.CPUs, end, width, func(name string) bool { return name == "idle" })
}
