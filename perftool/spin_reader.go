package perftool

import (
	"perfsim/scenarios"

	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
)

// The spin-read action: a reader that reads a forward ring "frequently
// enough" to see a data_head that went backwards (1b038c6e05ff: "a reader may
// see data_head < data_tail if it read the buffer frequently enough"). A
// thread of the tool pinned to a CPU takes the session's forward rings over
// from perf's main thread and reads them the way simpleperf did
// (HeadTailReader): it spins on data_head and, as soon as it changes,
// copies [data_tail, data_head) as the masked positions say and gives it
// back. The spin is cpu.Thread.SpinUntil: a store to data_head on another
// CPU kicks the spinner at that instant, so explore orders its loads
// against the writer's step points.
//
// What it reads goes to perf.data as perf's pushes would (without the write
// cost) and to the ring's invariant log, so read-record-was-written and
// record-accounted-once judge it. A copy that does not split into records
// (a size-0 header) aborts the reader, as simpleperf's CHECK does.

// spinRecheck is how often the spinner looks whether perf is done, when no
// store kicks it.
const spinRecheck = sim.Microsecond

type spinRing struct {
	m    *SessionMmap
	idx  int
	r    *HeadTailReader
	last uint64 // data_head at the last read
}

// spinState is what the spin-read action keeps per session.
type spinState struct {
	threads, reads, records, aborts int64
}

func (ss *Session) spinStopped() bool {
	return ss.done || ss.draining || ss.Finished || ss.Err != nil
}

// SpinRead is the spin-read action's thread t: it reads the session's
// forward rings until the workload is gone (perf's done) or the reader aborts.
// system/extras/simpleperf/event_fd.cpp: EventFd::GetAvailableMmapData()
// in a loop that reads as soon as data_head moves
func (ss *Session) SpinRead(t *sched.Task) {
	var rings []*spinRing
	for i, m := range ss.Mmaps {
		if m.Overwrite || m.Map == nil || m.Reader == nil {
			continue
		}
		r, err := NewHeadTailReader(m.Map.RB)
		if err != nil {
			ss.tool.actionErrs++
			continue
		}
		buf := m.Map.RB
		r.Tracer = ss.K.BufferTracer(buf)
		rings = append(rings, &spinRing{m: m, idx: i, r: r, last: buf.User.DataTail})
		m.Reader = nil // perf's main thread leaves this ring to the spinner
		orig := buf.Tracer
		buf.Tracer = func(ev rb.TraceEvent) { // the spinner's CPU sees the store
			if orig != nil {
				orig(ev)
			}
			if ev.Kind == rb.TraceDataHead {
				if c := t.CPU(); c != nil {
					c.Kick()
				}
			}
		}
		defer func() { buf.Tracer = orig }()
	}
	if len(rings) == 0 {
		return
	}
	ss.spin.threads++
	moved := func() bool {
		for _, g := range rings {
			if g.m.Map != nil && g.r.Head() != g.last {
				return true
			}
		}
		return false
	}
	mapped := func() bool {
		for _, g := range rings {
			if g.m.Map != nil {
				return true
			}
		}
		return false
	}
	// A ring an action unmapped is left alone (its head moving would wake
	// the spinner for nothing, for ever); with none left, the thread is done.
	for !ss.spinStopped() && mapped() {
		if !t.SpinUntil(ss.S.M.Now()+spinRecheck, moved) {
			continue
		}
		for _, g := range rings {
			if g.m.Map == nil || g.r.Head() == g.last {
				continue
			}
			g.last = g.r.Head()
			ss.spin.reads++
			for _, rec := range g.r.Read(t) {
				ss.spin.records++
				ss.Data.write(rec, g.idx, g.m.CPU, ss.S.M.Now(), false)
			}
			if g.r.Aborted != "" {
				ss.spin.aborts++
				return // simpleperf's CHECK aborts the process's reading
			}
		}
	}
}

func init() {
	RegisterAction(Action{Name: "spin-read", Args: []scenarios.ArgKind{scenarios.ArgCPU},
		Help: "a thread of perf (on cpuN if given) takes over the session's forward rings and reads them as simpleperf did: " +
			"spinning on data_head, it copies [data_tail, data_head) as the masked positions say (EventFd::GetAvailableMmapData) as soon as data_head moves",
		Do: func(ss *Session, args []string) {
			ss.ToolThread(cpuArg(args, 0), ss.SpinRead)
		}})
	RegisterSessionObservable("spin.reads", "copies the spin-read thread made", func(ss *Session) int64 { return ss.spin.reads })
	RegisterSessionObservable("spin.records", "records the spin-read thread split its copies into", func(ss *Session) int64 { return ss.spin.records })
	RegisterSessionObservable("spin.aborts", "spin-read threads that aborted on a copy that is no records (a size-0 header: simpleperf's CHECK)", func(ss *Session) int64 { return ss.spin.aborts })
}
