package explore

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"perfsim/sim"
)

// Coverage is what the schedules of a search reached, seen through their
// decisions (a step point where nothing could happen asks nothing and is
// not seen; that costs nothing):
//
//   - Steps: each question asked (a step point label, "tie", "nmi-skid",
//     select_task_rq:TASK, ...) and in how many schedules;
//   - Pairs: at a step point of one context, what another context did
//     there: "LABEL <- nmi" (the CPU's NMI landed between that step and
//     the next), "LABEL <- irq", "LABEL <- cpu" (another CPU due at the same
//     instant ran first), "nmi-skid <- cpu" (the NMI was held by its skid);
//     Offered counts the schedules where the option was there, Pairs those
//     that took it.
//
// "covered X of Y" is the pairs taken of those offered. What is left is
// estimated two ways from the pairs taken by exactly one schedule
// (Singletons). Good-Turing for incidence data, Singletons/Schedules, is the
// number of new pairs the next schedule is expected to take: a count, more
// than 1 when most schedules take pairs of their own. The chance that the
// next schedule takes at least one new pair is the leave-one-out estimate:
// the schedules holding a pair no other schedule took, over the schedules
// (SingletonSchedules/Schedules, at most 1). NewPairSchedules (the
// schedules that took a pair no schedule before them had) shows the same
// over the whole search. Counts add up over shards (Merge).
type Coverage struct {
	Schedules        int            `json:"schedules"`
	Steps            map[string]int `json:"steps"`
	StepsKnown       int            `json:"steps_known"` // questions the scenario may ask (QuestionNames)
	Offered          map[string]int `json:"offered"`
	Pairs            map[string]int `json:"pairs"`
	NewPairSchedules int            `json:"new_pair_schedules"`
	// First is, for each pair taken, the number of the first schedule that
	// took it (the number in the unsharded search for random, sparse and
	// pct), so that NewPairSchedules of merged shards is that of one search.
	First map[string]int `json:"first"`
}

func newCoverage(known int) *Coverage {
	return &Coverage{Steps: map[string]int{}, Offered: map[string]int{}, Pairs: map[string]int{}, First: map[string]int{}, StepsKnown: known}
}

// pairName is the name of the pair of taking agent a at question what.
func pairName(what string, a sim.Agent) string {
	switch a.Kind() {
	case sim.AgentNMI:
		return what + " <- nmi"
	case sim.AgentIRQ:
		return what + " <- irq"
	}
	return what + " <- cpu"
}

// covKey is one pair of one schedule, before it is named.
type covKey struct {
	what string
	kind sim.Agent // the agent's kind; 3: an option with no agent
}

// covChooser passes every decision on and notes what it reached: for each
// question (in the order first asked), the kinds of agent offered and taken.
type covChooser struct {
	inner sim.Chooser
	idx   map[string]int32 // question -> index in qs
	qs    []covQuestion
	last  int32 // qs index of the last question: the next is often the same
}

// covQuestion is what one schedule reached of one question: bit k of
// offered and taken is agent kind k (3: an option with no agent).
type covQuestion struct {
	what           string
	offered, taken uint8
}

// covQuestionsHint sizes a schedule's question index: the last schedule's count.
var covQuestionsHint atomic.Int32

func newCovChooser(inner sim.Chooser) *covChooser {
	n := covQuestionsHint.Load()
	return &covChooser{inner: inner, idx: make(map[string]int32, n), qs: make([]covQuestion, 0, n), last: -1}
}

// question returns the index of what's entry, added on first sight.
func (c *covChooser) question(what string) int32 {
	if c.last >= 0 {
		if q := &c.qs[c.last]; unsafe.StringData(q.what) == unsafe.StringData(what) && len(q.what) == len(what) {
			return c.last
		}
	}
	i, ok := c.idx[what]
	if !ok {
		i = int32(len(c.qs))
		c.idx[what] = i
		c.qs = append(c.qs, covQuestion{what: what})
		if i >= covQuestionsHint.Load() {
			covQuestionsHint.Store(i + 1)
		}
	}
	c.last = i
	return i
}

// Choose implements sim.Chooser: a decision with no agents (select_task_rq,
// idle_balance) counts its question; its options are pairs "LABEL <- option".
func (c *covChooser) Choose(n int, what string) int {
	i := c.question(what) // counted before the inner chooser may end the run
	d := c.inner.Choose(n, what)
	q := &c.qs[i]
	q.offered |= 1 << 3
	if d != 0 {
		q.taken |= 1 << 3
	}
	return d
}

// ChooseAgents implements sim.AgentChooser.
func (c *covChooser) ChooseAgents(n int, what string, agents []sim.Agent) int {
	qi := c.question(what) // counted before the inner chooser may end the run
	d := sim.ChooseWith(c.inner, n, what, agents)
	q := &c.qs[qi]
	for i := 1; i < len(agents); i++ {
		q.offered |= 1 << agents[i].Kind()
	}
	if d != 0 {
		q.taken |= 1 << agents[d].Kind()
	}
	return d
}

func (k covKey) name() string {
	if k.kind == 3 {
		return k.what + " <- option"
	}
	return pairName(k.what, sim.Agent(k.kind))
}

// pairNames caches covKey.name: add names the same few pairs every
// schedule. The questions are the model's step labels and tasks, so it
// stays small; a sync.Map, as the searches of a process may run at once.
var pairNames sync.Map // covKey -> string

// nameOf is k.name(), built once per process.
func (cv *Coverage) nameOf(k covKey) string {
	if n, ok := pairNames.Load(k); ok {
		return n.(string)
	}
	n := k.name()
	pairNames.Store(k, n)
	return n
}

// add counts the coverage of schedule number schedule.
func (cv *Coverage) add(c *covChooser, schedule int) {
	cv.Schedules++
	isNew := false
	for i := range c.qs {
		q := &c.qs[i]
		cv.Steps[q.what]++
		for k := sim.Agent(0); k <= 3; k++ {
			if q.offered&(1<<k) == 0 {
				continue // a kind taken is always one offered
			}
			n := cv.nameOf(covKey{q.what, k})
			cv.Offered[n]++
			if q.taken&(1<<k) == 0 {
				continue
			}
			if cv.Pairs[n] == 0 {
				isNew = true
				cv.First[n] = schedule
			}
			cv.Pairs[n]++
		}
	}
	if isNew {
		cv.NewPairSchedules++
	}
}

// merge adds o's counts (another shard's) to cv; a pair's first schedule is
// the earlier of the two, and NewPairSchedules the schedules first to take
// some pair.
func (cv *Coverage) merge(o *Coverage) {
	cv.Schedules += o.Schedules
	for k, v := range o.First {
		if w, ok := cv.First[k]; !ok || v < w {
			cv.First[k] = v
		}
	}
	firsts := map[int]bool{}
	for _, v := range cv.First {
		firsts[v] = true
	}
	cv.NewPairSchedules = len(firsts)
	cv.StepsKnown = max(cv.StepsKnown, o.StepsKnown)
	for k, v := range o.Steps {
		cv.Steps[k] += v
	}
	for k, v := range o.Offered {
		cv.Offered[k] += v
	}
	for k, v := range o.Pairs {
		cv.Pairs[k] += v
	}
}

// Singletons is the number of pairs taken in exactly one schedule.
func (cv *Coverage) Singletons() int {
	n := 0
	for _, v := range cv.Pairs {
		if v == 1 {
			n++
		}
	}
	return n
}

// SingletonSchedules is the number of schedules that took a pair no other
// schedule took (a singleton's only schedule is its First).
func (cv *Coverage) SingletonSchedules() int {
	seen := map[int]bool{}
	for n, v := range cv.Pairs {
		if v == 1 {
			seen[cv.First[n]] = true
		}
	}
	return len(seen)
}

// Summary is the line explore prints: covered X of Y pairs, the steps, and
// the Good-Turing estimate of what is left.
func (cv *Coverage) Summary() string {
	if cv.Schedules == 0 {
		return "coverage: no schedule"
	}
	ss, sg := cv.SingletonSchedules(), cv.Singletons()
	return fmt.Sprintf("coverage: covered %d of %d pairs offered (an interrupt or another CPU at a step point), %d of %d questions asked; "+
		"left: a next schedule reaches a new pair with p ~ %.3g (leave-one-out: %d of %d schedules took a pair no other did), "+
		"~%.3g new pairs expected (Good-Turing: %d pairs taken by one schedule only); %d schedules reached a new pair",
		len(cv.Pairs), len(cv.Offered), len(cv.Steps), cv.StepsKnown,
		float64(ss)/float64(cv.Schedules), ss, cv.Schedules,
		float64(sg)/float64(cv.Schedules), sg, cv.NewPairSchedules)
}

// WriteDetail writes the detail (--coverage FILE): every question and pair
// with its schedule counts, pairs offered and never taken marked.
func (cv *Coverage) WriteDetail(w io.Writer) error {
	fmt.Fprintln(w, cv.Summary())
	fmt.Fprintf(w, "\n%-8s  question\n", "schedules")
	for _, k := range sortedMapKeys(cv.Steps) {
		fmt.Fprintf(w, "%8d  %s\n", cv.Steps[k], k)
	}
	fmt.Fprintf(w, "\n%8s %8s  pair\n", "taken", "offered")
	for _, k := range sortedMapKeys(cv.Offered) {
		mark := ""
		if cv.Pairs[k] == 0 {
			mark = "   <- never taken"
		}
		fmt.Fprintf(w, "%8d %8d  %s%s\n", cv.Pairs[k], cv.Offered[k], k, mark)
	}
	return nil
}

// WriteJSON writes the coverage as JSON.
func (cv *Coverage) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(cv)
}

func sortedMapKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
