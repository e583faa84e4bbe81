package explore

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"perfsim/cpu"
	"perfsim/sim"
)

// The AUX pause/resume shape of aux-pause-resume-nmi, replicated per CPU,
// written straight on cpu.Machine with every access annotated: on each of
// C CPUs a task makes K "syscalls", each firing the resume tracepoint
// (perf_event_aux_pause(event, false): rb->aux_in_pause_resume set, the
// PMU's resume callback, the guard cleared), and the CPU's counter raises
// an NMI whose handler pauses (perf_event_aux_pause(event, true)): dropped
// when the guard is set; with the guard off (the series before V5) its
// PERF_EF_PAUSE runs inside the task's PERF_EF_RESUME, an overlap. Each
// CPU's ring and PT state are its own, so no fragment of one CPU touches
// what another's does: the CPUs are independent, and only the order of
// each CPU's NMIs against its own resumes makes a difference.

// porShape is one shape of the family.
type porShape struct {
	CPUs, K int
	NMIs    []int // per CPU: the syscalls whose resume an NMI falls due at
	Guard   bool  // rb->aux_in_pause_resume (today); off: before V5
	Shared  bool  // every resume also bumps one counter all CPUs share (dependent across CPUs)
	// SharedAdd: every resume also adds to a second counter all CPUs share
	// with an atomic add whose result nobody uses (cpu.AtomicAdd: the adds
	// commute, the CPUs stay independent); SumRead: and each NMI reads that
	// sum (its parity goes in the CPU's log: dependent across CPUs).
	SharedAdd, SumRead bool
	Hidden             bool // the resume-done fragment is not declared complete (it must then count as touching everything)
	// Skid: the PMI may be taken this late (pmu cpu skid=); it falls due
	// Skid/2 before the syscall's entry ends, so the engine asks
	// (nmi-skid) whether it is taken there or held to the entry's end.
	Skid sim.Duration
}

type porShapeObj string

func (o porShapeObj) FootprintKey() string { return string(o) }

func init() {
	cpu.DeclareComplete("por-shape:enter", "por-shape:resume", "por-shape:callback", "enter:por-shape-pmi")
	// por-shape:done and por-shape:done-hidden: por-shape:done is declared
	// below; por-shape:done-hidden never is.
	cpu.DeclareComplete("por-shape:done")
	for i := 0; i < 8; i++ {
		cpu.DeclareComplete(fmt.Sprintf("start:uname%d", i))
	}
}

// porShapeState is what a run of the shape ends in: per CPU, the order in
// which its resumes (R), callbacks (C), dones (D) and NMIs (P: paused, X:
// dropped, O: overlapped) happened, and the shared counter.
type porShapeState struct {
	logs     []string
	shared   int
	sum      int // the SharedAdd counter
	overlaps int
}

func (s porShapeState) String() string {
	return fmt.Sprintf("%s shared=%d sum=%d", strings.Join(s.logs, "|"), s.shared, s.sum)
}

// run runs the shape once with ch, attach called before it runs.
func (sh porShape) run(ch sim.Chooser, attach func(*cpu.Machine)) porShapeState {
	m := cpu.NewMachine(cpu.Config{CPUs: sh.CPUs}, ch)
	defer m.Close()
	st := porShapeState{logs: make([]string, sh.CPUs)}
	const sys, compute = 100 * sim.Nanosecond, 700 * sim.Nanosecond
	done := "por-shape:done"
	if sh.Hidden {
		done = "por-shape:done-hidden"
	}
	for i := 0; i < sh.CPUs; i++ {
		c := m.CPUs[i]
		guard := porShapeObj(fmt.Sprintf("rb%d", i))
		pt := porShapeObj(fmt.Sprintf("pt%d", i))
		log := porShapeObj(fmt.Sprintf("log%d", i))
		inGuard, inResume := false, false
		th := m.NewThread(fmt.Sprintf("uname%d", i), func(th *cpu.Thread) {
			for k := 0; k < sh.K; k++ {
				th.Step("por-shape:enter")
				th.Spend(sys)
				th.Step("por-shape:resume")
				c := th.CPU()
				if sh.Guard {
					c.Access(guard, "rb->aux_in_pause_resume", cpu.PlainWrite, "perf_event_aux_pause")
					inGuard = true
				}
				th.Step("por-shape:callback")
				c.Access(pt, "pt->resume_allowed", cpu.PlainWrite, "pt_event_start")
				c.Access(log, "log", cpu.PlainWrite, "pt_event_start")
				inResume = true
				st.logs[i] += "R"
				if sh.Shared {
					c.Access(porShapeObj("shared"), "count", cpu.PlainRMW, "pt_event_start")
					st.shared++
				}
				if sh.SharedAdd || sh.SumRead {
					c.Access(porShapeObj("shared"), "sum", cpu.AtomicAdd, "pt_event_start")
					st.sum++
				}
				th.Step(done)
				c.Access(pt, "pt->resume_allowed", cpu.PlainWrite, "pt_event_start")
				c.Access(log, "log", cpu.PlainWrite, "pt_event_start")
				inResume = false
				st.logs[i] += "D"
				if sh.Guard {
					c.Access(guard, "rb->aux_in_pause_resume", cpu.PlainWrite, "perf_event_aux_pause")
					inGuard = false
				}
				th.Spend(compute)
			}
			for {
				th.Idle()
			}
		})
		c.Start(th)
		pmi := func(c *cpu.CPU) {
			if sh.SumRead {
				c.Access(porShapeObj("shared"), "sum", cpu.MarkedRead, "perf_event_aux_pause")
				st.logs[i] += strconv.Itoa(st.sum % 2)
			}
			if sh.Guard {
				c.Access(guard, "rb->aux_in_pause_resume", cpu.PlainRead, "perf_event_aux_pause")
				if inGuard {
					c.Access(log, "log", cpu.PlainWrite, "perf_event_aux_pause")
					st.logs[i] += "X"
					return
				}
			}
			c.Access(pt, "pt->resume_allowed", cpu.PlainWrite, "pt_event_stop")
			c.Access(log, "log", cpu.PlainWrite, "pt_event_stop")
			if inResume {
				st.logs[i] += "O"
				st.overlaps++
				return
			}
			st.logs[i] += "P"
		}
		for _, k := range sh.NMIs {
			// Due as syscall k's entry ends: the step points that follow may take it.
			tm := c.NewTimer(true, cpu.Interrupt{Name: "por-shape-pmi", Fn: pmi, Skid: sh.Skid})
			tm.Arm(sim.Time(sim.Duration(k)*(sys+compute) + sys - sh.Skid/2))
		}
	}
	if attach != nil {
		attach(m)
	}
	if err := m.Run(sim.Never); err != nil {
		panic(err)
	}
	return st
}

// fullWalk runs every schedule of run's decision tree with at most budget
// non-zero decisions (the bounded strategy's tree; budget < 0: no bound)
// and returns how many ran, and whether the walk finished.
func fullWalk(maxRuns, budget int, run func(ch sim.Chooser)) (int, bool) {
	var stack []treeNode
	runs := 0
	for runs < maxRuns {
		runs++
		p := &treeChooser{stack: &stack}
		run(p)
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			before := 0
			for _, nd := range stack[:len(stack)-1] {
				if nd.taken != 0 {
					before++
				}
			}
			if top.taken+1 < top.n && (budget < 0 || before < budget) {
				top.taken++
				break
			}
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			return runs, true
		}
	}
	return runs, false
}

type treeNode struct{ n, taken int }

// treeChooser replays the path and extends it with option 0.
type treeChooser struct {
	stack *[]treeNode
	i     int
}

func (t *treeChooser) Choose(n int, what string) int {
	s := *t.stack
	if t.i < len(s) {
		t.i++
		return s[t.i-1].taken
	}
	*t.stack = append(s, treeNode{n, 0})
	t.i++
	return 0
}

// shapeStates collects the distinct final states of the shape under the
// full walk (full) or dpor, and how many schedules ran.
func shapeStates(sh porShape, dpor bool, maxRuns int) (states []string, runs, blocked int, exhausted bool, err error) {
	seen := map[string]bool{}
	keep := func(st porShapeState) {
		if s := st.String(); !seen[s] {
			seen[s] = true
			states = append(states, s)
		}
	}
	if dpor {
		var s *porSearch
		s, exhausted, err = porWalk(maxRuns, func(ch sim.Chooser, attach func(*cpu.Machine)) { keep(sh.run(ch, attach)) })
		runs, blocked = s.Runs-s.Blocked, s.Blocked
	} else {
		runs, exhausted = fullWalk(maxRuns, -1, func(ch sim.Chooser) { keep(sh.run(ch, nil)) })
	}
	slices.Sort(states)
	return states, runs, blocked, exhausted, err
}
