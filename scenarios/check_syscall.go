package scenarios

import (
	"fmt"
	"strings"
)

// syscallArgs checks a syscall statement's arguments against the arity the
// registry gives (none, meaning all zero, or exactly as many as the call
// takes), resolves its names, and records its "as" variable.
func (c *checker) syscallArgs(op *Syscall) {
	sr, ok := c.reg.(SyscallRegistry)
	if ok {
		if names, known := sr.SyscallArgNames(op.Name); known && len(op.Args) > 0 && len(op.Args) != len(names) {
			pos := op.Pos
			if len(op.Args) > len(names) {
				pos = op.Args[len(names)].Pos
			}
			c.errorf(pos, "%s takes %s, found %d", op.Name, argsPhrase(names), len(op.Args))
		}
	}
	for i := range op.Args {
		c.sysArg(&op.Args[i])
	}
	if op.Bind != "" {
		if ok {
			if _, isConst := sr.SyscallConst(op.Bind); isConst {
				c.errorf(op.BindPos, "%s is a constant; bind the result to another name", op.Bind)
				return
			}
		}
		c.vars[op.Bind] = true
	}
}

func argsPhrase(names []string) string {
	switch len(names) {
	case 0:
		return "no arguments"
	case 1:
		return "1 argument (" + names[0] + ")"
	}
	return fmt.Sprintf("%d arguments (%s)", len(names), strings.Join(names, ", "))
}

// sysArg checks that each name of an argument is a constant or a variable
// bound earlier in the task.
func (c *checker) sysArg(a *SysArg) {
	sr, _ := c.reg.(SyscallRegistry)
	for _, t := range a.Terms {
		if t.Name == "" {
			continue
		}
		if sr != nil {
			if _, ok := sr.SyscallConst(t.Name); ok {
				continue
			}
		}
		if c.vars[t.Name] {
			if len(a.Terms) > 1 {
				c.errorf(t.Pos, "variable %s cannot be combined with |", t.Name)
			}
			continue
		}
		if c.reg == nil {
			continue
		}
		c.errorf(t.Pos, "unknown constant or variable %s (a variable is bound by an earlier syscall ... as %s; simrun names syscalls lists the constants)", quote(t.Name), t.Name)
	}
}
