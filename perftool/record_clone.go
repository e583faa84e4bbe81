package perftool

import "slices"

// Clone returns a copy of r that shares nothing a session changes: its own
// evsels (sessions set filters and ids through &R.Evsels[i]), target lists,
// snapshot, exit, messages and threads. The tracepoint catalogue entries and
// the evsels' parsed terms are shared (read only). An exploration parses
// each record line once and gives every run a Clone.
func (r *Record) Clone() *Record {
	c := *r
	c.Evsels = slices.Clone(r.Evsels)
	c.SideBand = slices.Clone(r.SideBand)
	c.Target.Workload = slices.Clone(r.Target.Workload)
	c.Target.CPUList = slices.Clone(r.Target.CPUList)
	c.Target.PID = slices.Clone(r.Target.PID)
	c.Target.TID = slices.Clone(r.Target.TID)
	if r.Snapshot != nil {
		s := *r.Snapshot
		c.Snapshot = &s
	}
	if r.Exit != nil {
		e := *r.Exit
		c.Exit = &e
	}
	c.Argv = slices.Clone(r.Argv)
	c.Warnings = slices.Clone(r.Warnings)
	c.Messages = slices.Clone(r.Messages)
	c.Threads = slices.Clone(r.Threads)
	return &c
}
