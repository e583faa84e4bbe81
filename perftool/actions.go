package perftool

import (
	"perfsim/scenarios"

	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// This file is the tool side's registry: the perf tool's knobs (scenario
// "tool NAME=VALUE"), the actions a scenario can ask a perf session to do
// ("at TIME VERB SESSION ..."), and extra session observables. The scenario
// runtime lists and runs whatever is registered here, so tool-side work
// (snapshots, deferred callchain stitching, ...) plugs in without touching
// the runtime: call RegisterAction / RegisterToolKnob /
// RegisterSessionObservable from an init function of package record.

// Action is a verb of "at TIME VERB SESSION [ARG...]": something the perf
// tool process of SESSION is made to do at that time. Do runs in the context
// that carries the action out (an irq on the action's CPU); to enter the
// kernel it starts a tool thread (Session.ToolThread) or signals perf.
type Action struct {
	Name    string
	Help    string
	Args    []scenarios.ArgKind // the arguments after the session
	MinArgs int                 // how many of Args are required
	Do      func(ss *Session, args []string)
}

var (
	actions   []Action
	toolKnobs []sim.KnobSpec
	extraObs  []sessionObservable
)

type sessionObservable struct {
	name, help string
	get        func(ss *Session) int64
}

// RegisterAction adds (or replaces) an action verb.
func RegisterAction(a Action) {
	for i := range actions {
		if actions[i].Name == a.Name {
			actions[i] = a
			return
		}
	}
	actions = append(actions, a)
}

// Actions returns the registered actions sorted by name.
func Actions() []Action {
	out := slices.Clone(actions)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// RegisterToolKnob adds a tool knob; its value reaches each session in
// SessionOptions.Knobs.
func RegisterToolKnob(k sim.KnobSpec) { toolKnobs = append(toolKnobs, k) }

// ToolKnobs lists the perf tool's knobs, sorted by name.
func ToolKnobs() []sim.KnobSpec {
	out := slices.Clone(toolKnobs)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// RegisterSessionObservable adds a session observable (AllSessionObservableNames
// and Session.Observe see it).
func RegisterSessionObservable(name, help string, get func(ss *Session) int64) {
	extraObs = append(extraObs, sessionObservable{name, help, get})
}

// AllSessionObservableNames lists the session observables: perf record's
// own (SessionObservableNames) and the registered ones.
func AllSessionObservableNames() []string {
	out := SessionObservableNames()
	for _, o := range extraObs {
		out = append(out, o.name)
	}
	return out
}

// Knob returns the value of a tool knob for this session (its default when
// SessionOptions.Knobs does not set it). An unknown name panics: a typo must
// not silently select the default.
func (ss *Session) Knob(name string) string {
	for _, k := range toolKnobs {
		if k.Name == name {
			if v, ok := ss.Opts.Knobs[name]; ok {
				return v
			}
			return k.Default()
		}
	}
	panic("perftool: Session.Knob: no tool knob " + name)
}

// KnobIs reports whether tool knob name has value; a value the knob does not
// have panics, like an unknown name.
func (ss *Session) KnobIs(name, value string) bool {
	v := ss.Knob(name)
	for _, k := range toolKnobs {
		if k.Name == name {
			if err := k.Check(value); err != nil {
				panic("perftool: Session.KnobIs: " + err.Error())
			}
		}
	}
	return v == value
}

// toolState is what the registered actions keep per session.
type toolState struct {
	reads        int64 // read passes by the read action
	readRecs     int64 // records they returned
	readTorn     int64 // records among them that do not parse
	lastMismatch bool  // the record just read is not what the kernel wrote there
	pauses       int64 // PAUSE_OUTPUT ioctls the actions made
	pauseErrs    int64 // ... that failed (-EINVAL: no buffer)
	unmapped     []*SessionMmap
	auxExtra     []*pmu.Mapping // AUX mappings the aux-mmap action made
	auxMapped    int64
	threads      int64
	actionErrs   int64
}

// ToolThread runs fn on a new thread of the perf process (sharing its fds
// and its address space: pthread_create()), pinned to cpu (or on any CPU
// when cpu < 0): a second thread of the tool, so an action can race perf's
// own thread or another action. Its mmap() and munmap() calls take perf's
// mmap_lock.
func (ss *Session) ToolThread(cpu int, fn func(t *sched.Task)) {
	if t := ss.toolTask(cpu, fn); t != nil {
		ss.K.ShareMM(t, ss.Perf)
	}
}

// ToolProcess runs fn in a new process that shares perf's fd table but has
// an address space of its own (clone(CLONE_FILES) without CLONE_VM): its
// mmap() of perf's fds does not take perf's mmap_lock, so it can run inside
// a munmap() by a thread of perf, as a second process holding the same perf
// fds can.
func (ss *Session) ToolProcess(cpu int, fn func(t *sched.Task)) { ss.toolTask(cpu, fn) }

func (ss *Session) toolTask(cpu int, fn func(t *sched.Task)) *sched.Task {
	if ss.Perf == nil || ss.Finished || ss.Err != nil {
		return nil
	}
	var mask sched.CPUMask
	if cpu >= 0 {
		mask = sched.MaskOf(cpu)
	}
	ss.tool.threads++
	t := ss.S.Spawn(ss.Opts.Comm, mask, sched.Call(fn))
	ss.K.ShareFiles(t, ss.Perf)
	return t
}

// ReadPerRecord is the user time the read action spends on each record it
// returns (a reader that looks at every record, as perf top or a tracer
// does): the window in which a burst on another CPU can wrap the ring under
// a reader that did not pause it.
const ReadPerRecord = 500 * sim.Nanosecond

// readStepper runs a reader's step points on its task; a verifying reader
// spends ReadPerRecord when it has copied a record, before it checks it.
type readStepper struct{ t *sched.Task }

func (s readStepper) Step(label string) {
	s.t.Step(label)
	if label == "read_verified:record-copied" {
		s.t.Spend(ReadPerRecord)
	}
}

// ReadOverwrite is one read of every --overwrite ring of the session by the
// calling tool thread, in the way the overwrite-reader tool knob says:
//
//	paused    PERF_EVENT_IOC_PAUSE_OUTPUT 1, perf_mmap__read_init(),
//	          read_event until the end, read_done, PAUSE_OUTPUT 0 (perf today:
//	          evlist__toggle_bkw_mmap())
//	unpaused  the same without pausing: the ring keeps being written while it
//	          is read (seed 002, before PAUSE_OUTPUT existed)
//	verify    unpaused, with the copy-then-verify loop of seed 002
//	          (Mmap.ReadVerified)
//
// Each record returned costs ReadPerRecord; records are decoded with the
// session's first attr and those that do not parse are counted torn.
func (ss *Session) ReadOverwrite(t *sched.Task) {
	mode := ss.Knob("overwrite-reader")
	for _, m := range ss.Mmaps {
		if !m.Overwrite || m.Map == nil || m.Reader == nil {
			continue
		}
		r := m.Reader
		ss.tool.reads++
		// Judge each record returned against what the kernel wrote at that
		// place (the invariant log), besides whether it parses.
		orig, buf := r.Tracer, m.Map.RB
		r.Tracer = func(ev rb.TraceEvent) {
			if orig != nil {
				orig(ev)
			}
			if ev.Kind == rb.TraceRead {
				same, ok := ss.K.WrittenAt(buf, ev.Pos, ev.Rec)
				ss.tool.lastMismatch = ok && !same
			}
		}
		switch mode {
		case "verify":
			for _, rec := range r.ReadVerified(readStepper{t}) {
				ss.countRead(t, rec, false)
			}
		default:
			paused := mode != "unpaused"
			if paused {
				ss.pauseOutput(t, m, true)
			}
			if err := r.ReadInit(readStepper{t}); err == nil {
				for {
					rec := r.ReadEvent(readStepper{t})
					if rec == nil {
						break
					}
					ss.countRead(t, rec, true)
				}
				r.ReadDone(readStepper{t})
			}
			if paused {
				ss.pauseOutput(t, m, false)
			}
		}
		r.Tracer = orig
	}
}

func (ss *Session) countRead(t *sched.Task, rec []byte, spend bool) {
	ss.tool.readRecs++
	a := &ss.Data.Attrs[0].Attr
	if _, err := rb.DecodeAttr(rec, a.SampleLayout(), a.SampleIDAll); err != nil || ss.tool.lastMismatch {
		ss.tool.readTorn++
	}
	ss.tool.lastMismatch = false
	if spend {
		t.Spend(ReadPerRecord)
	}
}

func (ss *Session) pauseOutput(t *sched.Task, m *SessionMmap, pause bool) {
	v := uint64(0)
	if pause {
		v = 1
	}
	ss.tool.pauses++
	if _, err := ss.K.Ioctl(t, m.FD, uapi.PERF_EVENT_IOC_PAUSE_OUTPUT, v); err != nil {
		ss.tool.pauseErrs++
	}
}

// unmapRings is munmap(2) of every mapped ring of the session, as
// evlist__munmap() does it: each ring, then its AUX area (mmap__munmap()).
// Two threads may run it at once (two munmap actions): each ring is
// remembered as unmapped once, by the thread that cleared its pointer.
func (ss *Session) unmapRings(t *sched.Task) {
	ss.unmapAuxExtra(t)
	for _, m := range ss.Mmaps {
		if ss.perfMmapMunmap(t, m) {
			ss.tool.unmapped = append(ss.tool.unmapped, m)
		}
		ss.auxtraceMunmap(t, m) // mmap__munmap(): the AUX area after the ring
	}
}

// perfMmapMunmap unmaps ring m if it is mapped and clears its pointer,
// reporting whether this call cleared it. Like perf it tests the pointer,
// calls munmap() and then clears it, so two threads can both call munmap()
// for one ring: the kernel closes the VMA once and the other munmap()
// finds nothing there and returns 0. The pointer is cleared only if it
// still holds the mapping this call unmapped (perf sets map->base = NULL
// unconditionally, which would forget a mapping another thread made in
// between).
// tools/lib/perf/mmap.c: perf_mmap__munmap()
func (ss *Session) perfMmapMunmap(t *sched.Task, m *SessionMmap) bool {
	mp := m.Map
	if mp == nil {
		return false
	}
	if err := ss.K.Munmap(t, mp); err != nil {
		ss.tool.actionErrs++
	}
	if m.Map != mp {
		return false // another thread cleared it, or mapped the ring again
	}
	m.Map, m.Reader = nil, nil
	return true
}

// remapRings maps the unmapped rings again, length bytes each (0: perf's
// size). A mapping of the user page alone has no data pages: nothing reads it.
func (ss *Session) remapRings(t *sched.Task, length uint64) {
	todo := ss.tool.unmapped
	ss.tool.unmapped = nil
	if length == 0 {
		length = uint64(ss.R.MmapBytes())
	}
	for _, m := range todo {
		prot := pmu.ProtRead | pmu.ProtWrite
		if m.Overwrite {
			prot = pmu.ProtRead
		}
		mp, err := ss.K.Mmap(t, m.FD, 0, length, prot)
		if err != nil {
			ss.tool.actionErrs++
			continue
		}
		m.Map, m.Reader, m.pushedAny, m.pushedEnd = mp, nil, false, 0
		if mp.RB.NrPages() == 0 {
			continue // perf never reads a ring without data pages
		}
		reader, err := NewMmap(mp.RB, m.Overwrite)
		if err != nil {
			ss.tool.actionErrs++
			continue
		}
		reader.Tracer = ss.K.BufferTracer(mp.RB)
		m.Reader = reader
	}
}

// sizeArg parses an optional size argument (4096, 4K, 1M), or 0.
func sizeArg(args []string, i int) uint64 {
	if i >= len(args) {
		return 0
	}
	v := strings.ReplaceAll(args[i], "_", "")
	mult := uint64(1)
	switch {
	case strings.HasSuffix(v, "K"):
		mult, v = 1024, strings.TrimSuffix(v, "K")
	case strings.HasSuffix(v, "M"):
		mult, v = 1<<20, strings.TrimSuffix(v, "M")
	case strings.HasSuffix(v, "G"):
		mult, v = 1<<30, strings.TrimSuffix(v, "G")
	}
	n, err := strconv.ParseUint(v, 0, 64)
	if err != nil {
		return 0
	}
	return n * mult
}

// cpuArg returns the CPU of an optional cpuN argument, or -1.
func cpuArg(args []string, i int) int {
	if i < len(args) {
		var n int
		if _, err := fmt.Sscanf(args[i], "cpu%d", &n); err == nil {
			return n
		}
	}
	return -1
}

func init() {
	RegisterToolKnob(sim.KnobSpec{
		Name:   "overwrite-reader",
		Values: []string{"paused", "unpaused", "verify"},
		Help: "how the read action reads an --overwrite (backward) ring: paused with PERF_EVENT_IOC_PAUSE_OUTPUT around the read as perf does; " +
			"unpaused, while the kernel keeps writing; or unpaused with the copy-then-verify loop",
		Source:  "seed 002: [PATCH 4/4] perf core: Add backward attribute to perf event (Wang Nan, 2016-03-28) and its review (the copy-then-verify reader); tools/perf/util/evlist.c: evlist__toggle_bkw_mmap()",
		Package: "perftool",
	})
	cpuOpt := []scenarios.ArgKind{scenarios.ArgCPU}
	RegisterAction(Action{Name: "read", Args: cpuOpt,
		Help: "a thread of perf (on cpuN if given) reads every --overwrite ring once, the way tool overwrite-reader says",
		Do: func(ss *Session, args []string) {
			ss.ToolThread(cpuArg(args, 0), ss.ReadOverwrite)
		}})
	for _, pause := range []bool{true, false} {
		name, help := "pause-output", "a thread of perf (on cpuN if given) pauses every ring of the session: ioctl(PERF_EVENT_IOC_PAUSE_OUTPUT, 1)"
		if !pause {
			name, help = "resume-output", "a thread of perf (on cpuN if given) resumes every ring: ioctl(PERF_EVENT_IOC_PAUSE_OUTPUT, 0)"
		}
		RegisterAction(Action{Name: name, Args: cpuOpt, Help: help,
			Do: func(ss *Session, args []string) {
				ss.ToolThread(cpuArg(args, 0), func(t *sched.Task) {
					for _, m := range ss.Mmaps {
						if m.FD >= 0 {
							ss.pauseOutput(t, m, pause)
						}
					}
				})
			}})
	}
	for _, enable := range []bool{true, false} {
		name, help := "enable", "a thread of perf (on cpuN if given) enables the session's events: ioctl(PERF_EVENT_IOC_ENABLE) on each group leader"
		cmd := uint64(uapi.PERF_EVENT_IOC_ENABLE)
		if !enable {
			name, help = "disable", "a thread of perf (on cpuN if given) disables the session's events: ioctl(PERF_EVENT_IOC_DISABLE)"
			cmd = uapi.PERF_EVENT_IOC_DISABLE
		}
		RegisterAction(Action{Name: name, Args: cpuOpt, Help: help,
			Do: func(ss *Session, args []string) {
				ss.ToolThread(cpuArg(args, 0), func(t *sched.Task) { ss.evlistIoctl(t, cmd) })
			}})
	}
	RegisterAction(Action{Name: "refresh", Args: []scenarios.ArgKind{scenarios.ArgInt, scenarios.ArgCPU}, MinArgs: 1,
		Help: "a thread of perf (on cpuN if given) arms every group leader for N more overflows: ioctl(PERF_EVENT_IOC_REFRESH, N) " +
			"(event_limit; at 0 the overflow disables the event with POLL_HUP), as a self-profiler such as async-profiler does after each sample",
		Do: func(ss *Session, args []string) {
			n, _ := strconv.ParseUint(args[0], 10, 32)
			ss.ToolThread(cpuArg(args, 1), func(t *sched.Task) { ss.evlistIoctlArg(t, uapi.PERF_EVENT_IOC_REFRESH, n) })
		}})
	RegisterAction(Action{Name: "set-filter", Args: []scenarios.ArgKind{scenarios.ArgWord, scenarios.ArgWord, scenarios.ArgCPU}, MinArgs: 2,
		Help: "a thread of perf (on cpuN if given) replaces the address filters of the session's --filter events mid-run: FUNC FILE writes " +
			"'filter FUNC @ FILE' (FILE kernel: the kernel function, 'filter FUNC'), resolved as perf record --filter resolves it, to each of their fds " +
			"with PERF_EVENT_IOC_SET_FILTER (perf_event_set_addr_filter(): splice, apply to the event and its children, perf_event_stop(event, 1) on the CPU it runs on)",
		Do: func(ss *Session, args []string) {
			ss.ToolThread(cpuArg(args, 2), func(t *sched.Task) { ss.setAddrFilter(t, args[0], args[1]) })
		}})
	RegisterAction(Action{Name: "munmap", Args: cpuOpt,
		Help: "a thread of perf (on cpuN if given) unmaps every ring of the session and its AUX area (perf_mmap_close); perf stops reading them",
		Do: func(ss *Session, args []string) {
			ss.ToolThread(cpuArg(args, 0), ss.unmapRings)
		}})
	RegisterAction(Action{Name: "mmap", Args: []scenarios.ArgKind{scenarios.ArgCPU, scenarios.ArgSize},
		Help: "a thread of perf (on cpuN if given) maps again the rings the munmap action unmapped (perf_mmap), with their protection and perf's size or SIZE (4K: the user page alone, no data pages); not their AUX areas",
		Do: func(ss *Session, args []string) {
			ss.ToolThread(cpuArg(args, 0), func(t *sched.Task) { ss.remapRings(t, sizeArg(args, 1)) })
		}})
	RegisterAction(Action{Name: "remap", Args: cpuOpt,
		Help: "a thread of perf (on cpuN if given) unmaps every ring and maps it again at once (munmap, then mmap): the first mmap of a buffer, racing whatever another thread does with the event",
		Do: func(ss *Session, args []string) {
			ss.ToolThread(cpuArg(args, 0), func(t *sched.Task) {
				ss.unmapRings(t)
				ss.remapRings(t, 0)
			})
		}})
	RegisterAction(Action{Name: "snapshot",
		Help: "kill -USR2 $PERFPID: perf takes an AUX snapshot (with -S)", Do: func(ss *Session, _ []string) { ss.Snapshot() }})
	RegisterAction(Action{Name: "stop",
		Help: "kill -INT $PERFPID: perf stops recording", Do: func(ss *Session, _ []string) { ss.Stop() }})

	RegisterSessionObservable("reader.passes", "read passes of the read action", func(ss *Session) int64 { return ss.tool.reads })
	RegisterSessionObservable("reader.records", "records the read action returned", func(ss *Session) int64 { return ss.tool.readRecs })
	RegisterSessionObservable("reader.torn", "records the read action returned that do not parse or are not, byte for byte, the record the kernel wrote there (torn or overwritten under the reader)", func(ss *Session) int64 { return ss.tool.readTorn })
	RegisterSessionObservable("tool.pause-ioctls", "PERF_EVENT_IOC_PAUSE_OUTPUT ioctls made by actions", func(ss *Session) int64 { return ss.tool.pauses })
	RegisterSessionObservable("tool.pause-einval", "... of them that failed (-EINVAL: no buffer, or no data pages)", func(ss *Session) int64 { return ss.tool.pauseErrs })
	RegisterSessionObservable("tool.threads", "tool threads the actions started", func(ss *Session) int64 { return ss.tool.threads })
	RegisterSessionObservable("tool.errors", "mmap/munmap actions that failed", func(ss *Session) int64 { return ss.tool.actionErrs })
}

// tracePushed reports the records perf is about to copy out of a ring,
// [start, end), to the ring's invariant log (pmu.Kernel.BufferTracer) as
// reads: the reader of the ring buffer invariants is perf.data's consumer.
// Bytes perf_mmap__push() copies a second time (perf.dup_bytes: it re-reads
// data_head) are not reported again. A piece that does not parse ends the
// walk there (the invariants see what was reported). mp is the mapping the
// pass holds: an action's thread may have cleared m.Map meanwhile.
func (ss *Session) tracePushed(m *SessionMmap, mp *pmu.Mapping, start, end uint64) {
	tr := ss.K.BufferTracer(mp.RB)
	if tr == nil || !ss.K.BufferTracing(mp.RB) {
		return
	}
	if !m.Overwrite && m.pushedAny && start < m.pushedEnd {
		start = min(m.pushedEnd, end)
	}
	buf := mp.RB
	tr(rb.TraceEvent{Kind: rb.TraceReadPass, Backward: m.Overwrite})
	var hb [rb.HeaderSize]byte
	for p := start; end-p >= rb.HeaderSize && int64(end-p) > 0; {
		h, _ := rb.ParseHeader(buf.View(p, rb.HeaderSize, hb[:]))
		n := uint64(h.Size)
		if n < rb.HeaderSize || n > end-p {
			return
		}
		// The buffer's log (pmu.BufferLog) compares a read record with
		// the committed ones and keeps none of its bytes: the ring's own
		// bytes serve, or one copy of a record that wraps.
		if uint64(cap(m.traceRec)) < n {
			m.traceRec = make([]byte, max(n, 256))
		}
		rec := buf.View(p, int(n), m.traceRec)
		tr(rb.TraceEvent{Kind: rb.TraceRead, Pos: p, Size: int(n), Rec: rec, Backward: m.Overwrite})
		p += n
	}
}
