package scenarios

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Dump returns a readable, stable, indented listing of f's syntax tree with the
// position (line:col) of every node. The golden tests compare it; it is also handy
// when debugging the runtime.
func Dump(f *File) string {
	d := &dumper{}
	d.line(0, "file %s", strconv.Quote(f.Name))
	if f.Scenario != nil {
		d.line(1, "scenario %s @%s", f.Scenario.Name, f.Scenario.Pos)
	}
	if f.Title != nil {
		d.line(1, "title %s @%s", strconv.Quote(f.Title.Text), f.Title.Pos)
	}
	if f.CPUs != nil {
		d.line(1, "cpus %d @%s", f.CPUs.Value, f.CPUs.Pos)
	}
	if f.User != nil {
		d.line(1, "user %s @%s", f.User.Name, f.User.Pos)
	}
	for _, p := range f.PMUs {
		d.line(1, "pmu %s @%s", p.Name, p.Pos)
		for _, a := range p.Attrs {
			d.line(2, "%s", setting(a))
		}
	}
	for _, cl := range f.Cgroups {
		head := "cgroup " + cl.Path.Name + " @" + cl.Pos.String()
		for _, t := range cl.Tasks {
			head += " " + t.Name
		}
		d.line(1, "%s", head)
	}
	for _, s := range f.Kernel {
		d.line(1, "kernel %s", setting(s))
	}
	for _, s := range f.Tool {
		d.line(1, "tool %s", setting(s))
	}
	for _, t := range f.Tasks {
		head := "task " + t.Name
		if t.Affinity != nil {
			head += " cpus " + cpuList(t.Affinity.CPUs) + " @" + t.Affinity.Pos.String()
		}
		if t.Nice != nil {
			head += fmt.Sprintf(" nice %d", t.Nice.Value)
		}
		d.line(1, "%s @%s", head, t.Pos)
		d.ops(2, t.Body)
	}
	for _, pr := range f.Programs {
		d.line(1, "program %s @%s", pr.Name, pr.Pos)
		d.ops(2, pr.Body)
	}
	for _, r := range f.Records {
		name := ""
		if r.Name != nil {
			name = fmt.Sprintf(" %s @%s", r.Name.Name, r.Name.Pos)
		}
		d.line(1, "record%s @%s", name, r.Pos)
		for _, w := range r.Args {
			d.line(2, "%s @%s", strconv.Quote(w.Text), w.Pos)
		}
	}
	for _, a := range f.Actions {
		d.line(1, "at %s %s @%s", FormatDuration(a.At), a.Verb.Name, a.Pos)
		for _, arg := range a.Args {
			d.line(2, "%s @%s", arg.Name, arg.Pos)
		}
	}
	for _, fc := range f.Forces {
		var who string
		switch fc.Kind {
		case ForceNMI:
			who = fmt.Sprintf("cpu%d", fc.CPU)
		case ForcePreempt:
			who = fc.Task.Name
		case ForceMigrate:
			who = fmt.Sprintf("%s to cpu%d", fc.Task.Name, fc.CPU)
		case ForceIPI, ForceIRQWork, ForceOffline, ForceOnline:
			who = fmt.Sprintf("cpu%d", fc.CPU)
		case ForceAction:
			who = fmt.Sprintf("cpu%d: %s", fc.CPU, fc.Op)
		}
		d.line(1, "%s %s at %s occurrence %d @%s", fc.Kind, who, fc.Label.Name, fc.Occurrence, fc.Pos)
	}
	for _, fl := range f.Fails {
		d.line(1, "%s @%s", fl, fl.Pos)
	}
	for _, o := range f.Outcomes {
		when := ""
		for _, s := range o.When {
			when += "when " + s.Name + "=" + s.Value + " "
		}
		at := "end"
		if o.At != nil {
			at = FormatDuration(*o.At)
		}
		d.line(1, "%s%s %s at %s @%s", when, o.Quant, o.Cond, at, o.Pos)
		d.expr(2, o.Cond)
	}
	return d.b.String()
}

type dumper struct{ b strings.Builder }

func (d *dumper) line(depth int, format string, args ...any) {
	d.b.WriteString(strings.Repeat("  ", depth))
	fmt.Fprintf(&d.b, format, args...)
	d.b.WriteByte('\n')
}

func setting(s *Setting) string {
	if s.Value == "" {
		return fmt.Sprintf("%s @%s", s.Name, s.Pos)
	}
	return fmt.Sprintf("%s=%s @%s value @%s", s.Name, s.Value, s.Pos, s.ValuePos)
}

// FormatDuration prints a duration in the file's units (ns, us, ms, s).
func FormatDuration(d time.Duration) string {
	n := int64(d)
	for _, u := range []struct {
		s string
		v int64
	}{{"s", 1e9}, {"ms", 1e6}, {"us", 1e3}} {
		if n != 0 && n%u.v == 0 {
			return strconv.FormatInt(n/u.v, 10) + u.s
		}
	}
	return strconv.FormatInt(n, 10) + "ns"
}

func cpuList(cpus []int) string {
	parts := make([]string, len(cpus))
	for i, c := range cpus {
		parts[i] = strconv.Itoa(c)
	}
	return strings.Join(parts, ",")
}

func (d *dumper) ops(depth int, ops []Op) {
	for _, op := range ops {
		switch op := op.(type) {
		case *Compute:
			d.line(depth, "compute %s @%s", FormatDuration(op.Dur), op.Pos)
		case *Sleep:
			d.line(depth, "sleep %s @%s", FormatDuration(op.Dur), op.Pos)
		case *Syscall:
			words := []string{op.Name}
			for _, a := range op.Args {
				words = append(words, a.String())
			}
			if op.Dur > 0 {
				words = append(words, FormatDuration(op.Dur))
			}
			if op.Bind != "" {
				words = append(words, "as", op.Bind)
			}
			d.line(depth, "syscall %s @%s", strings.Join(words, " "), op.Pos)
		case *Touch:
			mode := "read"
			if op.Write {
				mode = "write"
			}
			d.line(depth, "touch %s %d %s @%s", op.At.String(), op.Pages, mode, op.Pos)
		case *Repeat:
			d.line(depth, "repeat %d @%s", op.Count, op.Pos)
			d.ops(depth+1, op.Body)
		case *Stack:
			kind := "user"
			if op.Kernel {
				kind = "kernel"
			}
			d.line(depth, "stack %s %s @%s", kind, strings.Join(op.Frames, ";"), op.Pos)
		case *Migrate:
			d.line(depth, "migrate cpu%d @%s", op.CPU, op.Pos)
		case *Pin:
			d.line(depth, "pin cpus %s @%s", cpuList(op.CPUs.CPUs), op.Pos)
		case *Exit:
			d.line(depth, "exit @%s", op.Pos)
		case *PerfOp:
			d.line(depth, "%s @%s", op, op.Pos)
		case *Access:
			d.line(depth, "access %#x %s %d @%s", op.Addr, op.Kind, op.Len, op.Pos)
		default:
			d.taskLifeOp(depth, op)
		}
	}
}

func (d *dumper) expr(depth int, e Expr) {
	switch e := e.(type) {
	case *Lit:
		d.line(depth, "lit %d %q @%s", e.Value, e.Text, e.Pos)
	case *Name:
		d.line(depth, "name %s @%s", e.Name, e.Pos)
	case *Unary:
		d.line(depth, "unary %s @%s", e.Op, e.Pos)
		d.expr(depth+1, e.X)
	case *Binary:
		d.line(depth, "binary %s @%s", e.Op, e.Pos)
		d.expr(depth+1, e.X)
		d.expr(depth+1, e.Y)
	}
}
