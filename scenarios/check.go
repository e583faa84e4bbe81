package scenarios

import (
	"fmt"
	"strings"
)

// Check reports the semantic errors of f: duplicate and unknown names, CPUs beyond
// the machine, records whose workload is not a task, and, against reg, unknown
// knobs and knob values, PMUs and their attributes, action verbs and argument
// shapes, step points, syscalls, observables and invariants, and ill-typed
// outcomes. reg may be nil, which skips the registry checks. Each error is an
// *Error; they are sorted by position.
func Check(f *File, reg Registry) []error {
	c := &checker{f: f, reg: reg, tasks: map[string]*Task{}, sessions: map[string]*Record{}}
	c.machine()
	c.knobs(KernelKnobs, f.Kernel)
	c.knobs(ToolKnobs, f.Tool)
	for _, t := range f.Tasks {
		c.task(t)
	}
	c.cgroups()
	c.programs()
	c.programCycles()
	c.records()
	for _, a := range f.Actions {
		c.action(a)
	}
	for _, fc := range f.Forces {
		c.force(fc)
	}
	for _, fl := range f.Fails {
		c.fail(fl)
	}
	for _, o := range f.Outcomes {
		c.outcome(o)
	}
	sortErrors(c.errs)
	out := make([]error, len(c.errs))
	for i, e := range c.errs {
		out[i] = e
	}
	return out
}

type checker struct {
	f        *File
	reg      Registry
	errs     []*Error
	tasks    map[string]*Task
	sessions map[string]*Record
	vars     map[string]bool // the variables the task being checked has bound so far
}

func (c *checker) errorf(pos Pos, format string, args ...any) {
	c.errs = append(c.errs, c.f.Errorf(pos, format, args...))
}

func (c *checker) cpuInRange(pos Pos, cpu int) {
	if n := c.f.NumCPUs(); cpu >= n {
		c.errorf(pos, "cpu%d does not exist: the machine has %s", cpu, cpusPhrase(n))
	}
}

// cpuSetInRange reports the highest CPU of set if it does not exist.
func (c *checker) cpuSetInRange(set *CPUSet) {
	if len(set.CPUs) > 0 {
		c.cpuInRange(set.Pos, set.CPUs[len(set.CPUs)-1])
	}
}

func cpusPhrase(n int) string {
	if n == 1 {
		return "1 CPU, cpu0 (set it with cpus N)"
	}
	return fmt.Sprintf("%d CPUs, cpu0 to cpu%d", n, n-1)
}

func (c *checker) machine() {
	seen := map[string]*PMU{}
	for _, p := range c.f.PMUs {
		if first, ok := seen[p.Name]; ok {
			c.errorf(p.Pos, "duplicate pmu %s (the first is on line %d)", p.Name, first.Pos.Line)
			continue
		}
		seen[p.Name] = p
		if c.reg == nil {
			continue
		}
		attrs, ok := c.reg.PMU(p.Name)
		if !ok {
			c.errorf(p.Pos, "%s", c.unknown(PMUs, p.Name))
			continue
		}
		for _, a := range p.Attrs {
			allowed, ok := attrs[a.Name]
			if !ok {
				keys := sortedKeys(attrs)
				c.errorf(a.Pos, "unknown attribute %s of pmu %s; known attributes: %s", quote(a.Name), p.Name, strings.Join(keys, ", "))
				continue
			}
			if a.Value == "" && len(allowed) > 0 {
				c.errorf(a.Pos, "pmu %s: %s needs a value: %s=VALUE, with VALUE one of: %s", p.Name, a.Name, a.Name, describeValues(allowed))
				continue
			}
			for _, v := range strings.Split(a.Value, ",") {
				if !valueOK(allowed, v) {
					c.errorf(a.ValuePos, "pmu %s: %s cannot be %s; allowed: %s", p.Name, a.Name, quote(v), describeValues(allowed))
					break
				}
			}
		}
	}
}

func (c *checker) knobs(kind Kind, list []*Setting) {
	seen := map[string]*Setting{}
	for _, s := range list {
		if first, ok := seen[s.Name]; ok {
			c.errorf(s.Pos, "%s %s is set twice (first on line %d)", kind, s.Name, first.Pos.Line)
			continue
		}
		seen[s.Name] = s
		c.knobValue(kind, s)
	}
}

func (c *checker) knobValue(kind Kind, s *Setting) {
	if c.reg == nil {
		return
	}
	allowed, ok := c.reg.Knob(kind, s.Name)
	if !ok {
		c.errorf(s.Pos, "%s", c.unknown(kind, s.Name))
		return
	}
	if !valueOK(allowed, s.Value) {
		c.errorf(s.ValuePos, "%s %s cannot be %s; allowed: %s", kind, s.Name, quote(s.Value), describeValues(allowed))
	}
}

func (c *checker) task(t *Task) {
	if first, ok := c.tasks[t.Name]; ok {
		c.errorf(t.Pos, "duplicate task %s (the first is on line %d)", t.Name, first.Pos.Line)
		return
	}
	c.tasks[t.Name] = t
	if t.Affinity != nil {
		c.cpuSetInRange(t.Affinity)
	}
	c.vars = map[string]bool{}
	c.ops(t.Body)
	c.flow(t.Body)
}

func (c *checker) ops(ops []Op) {
	for _, op := range ops {
		switch op := op.(type) {
		case *Repeat:
			c.ops(op.Body)
		case *Fork, *ExitGroup, *Wait, *Pipe, *Futex, *Yield, *Sigaction, *Setrlimit, *Sigprocmask:
			c.taskLifeOp(op)
		case *Migrate:
			c.cpuInRange(op.Pos, op.CPU)
		case *Pin:
			c.cpuSetInRange(&op.CPUs)
		case *Syscall:
			if c.reg != nil && !c.reg.Has(Syscalls, op.Name) {
				c.errorf(op.Pos, "%s", c.unknown(Syscalls, op.Name))
				continue
			}
			c.syscallArgs(op)
		case *Touch:
			c.sysArg(&op.At)
		}
	}
}

func (c *checker) records() {
	for _, r := range c.f.Records {
		if r.Name != nil {
			if first, ok := c.sessions[r.Name.Name]; ok {
				c.errorf(r.Name.Pos, "duplicate session name %s (the first is on line %d)", r.Name.Name, first.Pos.Line)
			} else {
				c.sessions[r.Name.Name] = r
			}
			if _, ok := c.tasks[r.Name.Name]; ok {
				c.errorf(r.Name.Pos, "session %s has the name of a task; give it another name", r.Name.Name)
			}
		}
		c.recordTargets(r) // record_target.go
		if w, ok := r.Workload(); ok {
			if _, ok := c.tasks[w.Text]; !ok {
				c.errorf(w.Pos, "the workload after -- must be a task of this file; %s", c.taskList(w.Text))
			}
		}
	}
}

func (c *checker) taskList(name string) string {
	if len(c.f.Tasks) == 0 {
		return fmt.Sprintf("there is no task %s (declare it with task %s)", quote(name), name)
	}
	names := sortedKeys(c.tasks)
	if hint := didYouMean(name, names); hint != "" && len(names) > 5 {
		return fmt.Sprintf("unknown task %s%s", quote(name), hint)
	}
	return fmt.Sprintf("unknown task %s; tasks: %s", quote(name), strings.Join(names, ", "))
}

func (c *checker) sessionList(name string) string {
	if len(c.sessions) == 0 {
		return fmt.Sprintf("unknown session %s (name a session with record NAME: ...)", quote(name))
	}
	names := sortedKeys(c.sessions)
	if hint := didYouMean(name, names); hint != "" && len(names) > 5 {
		return fmt.Sprintf("unknown session %s%s", quote(name), hint)
	}
	return fmt.Sprintf("unknown session %s; sessions: %s", quote(name), strings.Join(names, ", "))
}

func (c *checker) action(a *Action) {
	if c.reg == nil {
		return
	}
	spec, ok := c.reg.Action(a.Verb.Name)
	if !ok {
		c.errorf(a.Verb.Pos, "%s", c.unknown(Verbs, a.Verb.Name))
		return
	}
	if len(a.Args) < spec.MinArgs {
		kinds := make([]string, len(spec.Args[:spec.MinArgs]))
		for i, k := range spec.Args[:spec.MinArgs] {
			kinds[i] = k.String()
		}
		c.errorf(a.Verb.Pos, "%s needs %d argument(s): %s", a.Verb.Name, spec.MinArgs, strings.Join(kinds, ", "))
		return
	}
	for i, arg := range a.Args {
		if i >= len(spec.Args) {
			c.errorf(arg.Pos, "unexpected argument %s: %s takes at most %d", quote(arg.Name), a.Verb.Name, len(spec.Args))
			return
		}
		c.arg(a.Verb.Name, spec.Args[i], arg)
	}
}

func (c *checker) arg(verb string, kind ArgKind, arg *Ident) {
	s := arg.Name
	isCPU := func() bool {
		cpu, ok := ParseCPUNumber(s)
		if ok && strings.HasPrefix(s, "cpu") {
			c.cpuInRange(arg.Pos, cpu)
		}
		return ok && strings.HasPrefix(s, "cpu")
	}
	var ok bool
	switch kind {
	case ArgSession:
		if _, ok = c.sessions[s]; !ok {
			c.errorf(arg.Pos, "%s: %s", verb, c.sessionList(s))
		}
		return
	case ArgTask:
		if _, ok = c.tasks[s]; !ok {
			c.errorf(arg.Pos, "%s: %s", verb, c.taskList(s))
		}
		return
	case ArgCPU:
		ok = isCPU()
	case ArgTarget:
		_, isSession := c.sessions[s]
		_, isTask := c.tasks[s]
		ok = isSession || isTask || isCPU()
	case ArgInt:
		_, err := parseUint(s)
		ok = err == nil
	case ArgSize:
		_, err := ParseSize(s)
		ok = err == nil
	case ArgDuration:
		_, err := ParseDuration(s)
		ok = err == nil
	case ArgWord:
		ok = true
	}
	if !ok {
		c.errorf(arg.Pos, "%s: expected %s, found %s", verb, kind, quote(s))
	}
}

func (c *checker) force(fc *Force) {
	if fc.CPU >= 0 {
		c.cpuInRange(fc.CPUPos, fc.CPU)
	}
	if fc.Task != nil {
		if _, ok := c.tasks[fc.Task.Name]; !ok {
			c.errorf(fc.Task.Pos, "%s: %s", fc.Kind, c.taskList(fc.Task.Name))
		}
	}
	if c.reg != nil && fc.Label != nil && !c.reg.Has(StepPoints, fc.Label.Name) {
		c.errorf(fc.Label.Pos, "%s", c.unknown(StepPoints, fc.Label.Name))
	}
}
