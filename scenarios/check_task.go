package scenarios

import (
	"fmt"
	"slices"
	"strings"
)

// dumper for the statements of ast_task.go.
func (d *dumper) taskLifeOp(depth int, op Op) {
	switch op := op.(type) {
	case *Fork:
		kw := "fork"
		if op.Thread {
			kw = "thread"
		}
		if op.Block {
			d.line(depth, "%s %s @%s", kw, op.Name, op.Pos)
			d.ops(depth+1, op.Body)
			return
		}
		d.line(depth, "%s %s (program) @%s", kw, op.Name, op.Pos)
	case *ExitGroup:
		d.line(depth, "exit_group @%s", op.Pos)
	case *Wait:
		d.line(depth, "wait @%s", op.Pos)
	case *Join:
		d.line(depth, "join %s @%s", op.Name, op.Pos)
	case *Yield:
		d.line(depth, "yield @%s", op.Pos)
	case *Pipe:
		dir := "read"
		if op.Write {
			dir = "write"
		}
		d.line(depth, "pipe %s %s %d @%s", dir, op.Name, op.Bytes, op.Pos)
	case *Sigaction:
		d.line(depth, "sigaction %d %s @%s", op.Sig, op.Action, op.Pos)
	case *Sigprocmask:
		d.line(depth, "sigprocmask %s %v @%s", op.How, op.Sigs, op.Pos)
	case *Setrlimit:
		d.line(depth, "setrlimit %s %d @%s", op.Resource, op.Value, op.Pos)
	case *Futex:
		if op.Wake {
			d.line(depth, "futex wake %s %d @%s", op.Name, op.N, op.Pos)
			return
		}
		d.line(depth, "futex wait %s @%s", op.Name, op.Pos)
	}
}

// programs checks the program blocks: unique names, not a task's name, and
// their bodies like a task's.
func (c *checker) programs() {
	seen := map[string]*Program{}
	for _, pr := range c.f.Programs {
		if first, ok := seen[pr.Name]; ok {
			c.errorf(pr.Pos, "duplicate program %s (the first is on line %d)", pr.Name, first.Pos.Line)
			continue
		}
		seen[pr.Name] = pr
		if t, ok := c.tasks[pr.Name]; ok {
			c.errorf(pr.Pos, "program %s has the name of the task on line %d; give it another name", pr.Name, t.Pos.Line)
		}
		c.ops(pr.Body)
		c.flow(pr.Body)
	}
}

// programCycles refuses a program that forks or threads itself, directly
// or through other programs: its child would start the same program again,
// without end (the language has no condition to stop it), and each fork's
// statements are laid out before the run starts. The error is at the fork
// statement that closes the cycle, and names it.
func (c *checker) programCycles() {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(name string) bool
	var forks func(ops []Op) bool
	forks = func(ops []Op) bool {
		for _, op := range ops {
			switch op := op.(type) {
			case *Repeat:
				if forks(op.Body) {
					return true
				}
			case *Fork:
				if op.Block {
					if forks(op.Body) {
						return true
					}
					continue
				}
				if c.f.program(op.Name) == nil {
					continue // taskLifeOp refuses it
				}
				if state[op.Name] == open {
					kw := "fork"
					if op.Thread {
						kw = "thread"
					}
					i := slices.Index(path, op.Name)
					cycle := strings.Join(append(slices.Clone(path[i:]), op.Name), " -> ")
					c.errorf(op.Pos, "%s %s: program %s starts itself (%s), so its children would fork without end; a program may start only programs that do not start it", kw, op.Name, op.Name, cycle)
					return true
				}
				if visit(op.Name) {
					return true
				}
			}
		}
		return false
	}
	visit = func(name string) bool {
		if state[name] != unseen {
			return false
		}
		state[name] = open
		path = append(path, name)
		stop := forks(c.f.program(name).Body)
		path = path[:len(path)-1]
		state[name] = done
		return stop
	}
	for _, pr := range c.f.Programs {
		if visit(pr.Name) {
			return
		}
	}
}

// program finds program NAME.
func (f *File) program(name string) *Program {
	for _, pr := range f.Programs {
		if pr.Name == name {
			return pr
		}
	}
	return nil
}

// ProgramBody returns the body a fork or thread statement starts: its block,
// or the program it names (nil when there is neither, which Check refuses).
func (f *File) ProgramBody(op *Fork) []Op {
	if op.Block {
		return op.Body
	}
	if pr := f.program(op.Name); pr != nil {
		return pr.Body
	}
	return nil
}

// taskLifeOp checks one statement of ast_task.go.
func (c *checker) taskLifeOp(op Op) {
	if f, ok := op.(*Fork); ok {
		if f.Block {
			c.ops(f.Body)
			c.flow(f.Body)
			return
		}
		if c.f.program(f.Name) == nil {
			kw := "fork"
			if f.Thread {
				kw = "thread"
			}
			c.errorf(f.Pos, "%s %s: there is no program %s; give its program as an indented block under \"%s %s\", or declare it with \"program %s\"", kw, f.Name, f.Name, kw, f.Name, f.Name)
		}
	}
}

// flow checks a program's order: nothing after exit or exit_group (the task
// is gone; a second exit is one such statement), no exit inside a repeat of
// more than one round, and no wait without a child process forked before it
// and not yet waited for.
func (c *checker) flow(ops []Op) {
	c.flowBlock(ops, &flowState{})
}

type flowState struct {
	forks, waits int64 // process forks and waits so far (a repeat multiplies)
	// threads and joins so far, by the thread's name
	threads, joins map[string]int64
}

// add counts n more of name in *m.
func addCount(m *map[string]int64, name string, n int64) {
	if *m == nil {
		*m = map[string]int64{}
	}
	(*m)[name] += n
}

// clone copies st, its maps too.
func (st flowState) clone() flowState {
	out := st
	out.threads, out.joins = nil, nil
	for k, v := range st.threads {
		addCount(&out.threads, k, v)
	}
	for k, v := range st.joins {
		addCount(&out.joins, k, v)
	}
	return out
}

// flowBlock walks a block; it reports whether the block ends the task.
func (c *checker) flowBlock(ops []Op, st *flowState) bool {
	var exitAt Op
	for _, op := range ops {
		if exitAt != nil {
			c.errorf(op.OpPos(), "%s after %s on line %d: the task has exited there", stmtName(op), stmtName(exitAt), exitAt.OpPos().Line)
			return true
		}
		switch op := op.(type) {
		case *Exit, *ExitGroup:
			exitAt = op
		case *Fork:
			if !op.Thread {
				st.forks++
			} else {
				addCount(&st.threads, op.Name, 1)
			}
		case *Join:
			if st.joins[op.Name] >= st.threads[op.Name] {
				if st.threads[op.Name] == 0 {
					c.errorf(op.Pos, "join %s with no thread %s: no \"thread %s\" before it in this program (pthread_join() would fail with ESRCH)", op.Name, op.Name, op.Name)
				} else {
					c.errorf(op.Pos, "join %s with no thread %s left: %d created before it, already joined by %d join(s) (pthread_join() would fail with ESRCH)", op.Name, op.Name, st.threads[op.Name], st.joins[op.Name])
				}
				return false
			}
			addCount(&st.joins, op.Name, 1)
		case *Wait:
			if st.waits >= st.forks {
				if st.forks == 0 {
					c.errorf(op.Pos, "wait with no child: no fork before it in this program (wait4() would fail with ECHILD)")
				} else {
					c.errorf(op.Pos, "wait with no child left: %d fork(s) before it, already waited for by %d wait(s) (wait4() would fail with ECHILD)", st.forks, st.waits)
				}
				return false
			}
			st.waits++
		case *Repeat:
			// The first round, then the last: a body that waits more than it
			// forks runs out of children in a later round.
			first := st.clone()
			if c.flowBlock(op.Body, &first) {
				if op.Count > 1 {
					c.errorf(op.Pos, "repeat %d contains an exit: the task exits in the first round", op.Count)
				}
				exitAt = op
				*st = first
				continue
			}
			df, dw := first.forks-st.forks, first.waits-st.waits
			if op.Count > 1 && dw > df {
				last := flowState{forks: st.forks + df*(op.Count-1), waits: st.waits + dw*(op.Count-1)}
				if last.waits > last.forks {
					c.errorf(op.Pos, "repeat %d waits for %d child(ren) a round but forks %d: a later round has no child to wait for (wait4() would fail with ECHILD)", op.Count, dw, df)
					return false
				}
			}
			st.forks += df * op.Count
			st.waits += dw * op.Count
			for name, n := range first.threads {
				dt, dj := n-st.threads[name], first.joins[name]-st.joins[name]
				if op.Count > 1 && dj > dt && st.threads[name]+dt*(op.Count-1) < st.joins[name]+dj*(op.Count-1) {
					c.errorf(op.Pos, "repeat %d joins %d thread(s) %s a round but creates %d: a later round has none to join (pthread_join() would fail with ESRCH)", op.Count, dj, name, dt)
					return false
				}
				addCount(&st.threads, name, dt*op.Count)
				addCount(&st.joins, name, dj*op.Count)
			}
		}
	}
	return exitAt != nil
}

func stmtName(op Op) string {
	switch op := op.(type) {
	case *Exit:
		return "exit"
	case *ExitGroup:
		return "exit_group"
	case *Repeat:
		return fmt.Sprintf("repeat %d", op.Count)
	case *Compute:
		return "compute"
	case *Syscall:
		return "syscall " + op.Name
	case *Sleep:
		return "sleep"
	case *Fork:
		if op.Thread {
			return "thread " + op.Name
		}
		return "fork " + op.Name
	case *Wait:
		return "wait"
	case *Join:
		return "join " + op.Name
	case *Pipe:
		return "pipe"
	case *Futex:
		return "futex"
	case *Yield:
		return "yield"
	case *Stack:
		return "stack"
	case *Migrate:
		return "migrate"
	case *Pin:
		return "pin"
	}
	return "a statement"
}
