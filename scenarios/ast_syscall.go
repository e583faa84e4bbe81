package scenarios

import (
	"strconv"
	"strings"
)

// SysArg is one argument of a syscall statement (or a touch's address): a
// "string" (passed by its address in the task's memory), or terms joined by
// | (flags): each a number (-1, 4096, 0x20) or a NAME, which is a constant
// the registry knows (PR_SET_NAME, MAP_PRIVATE, ...) or a variable an
// earlier "as NAME" of the same task bound.
type SysArg struct {
	Pos   Pos
	Str   string
	IsStr bool
	Terms []ArgTerm
}

// ArgTerm is a number (Name "") or a name.
type ArgTerm struct {
	Pos   Pos
	Name  string
	Value int64
}

// Touch accesses Pages pages from the address At, each first access of a
// page a page fault: "touch buf 4", "touch buf 4 write".
type Touch struct {
	Pos   Pos
	At    SysArg
	Pages int64
	Write bool
}

func (o *Touch) OpPos() Pos { return o.Pos }

// SyscallRegistry is what a Registry may also tell about the system calls:
// how many arguments each takes and their names, and the value of a named
// constant. The checker uses it when the registry implements it.
type SyscallRegistry interface {
	SyscallArgNames(name string) ([]string, bool)
	SyscallConst(name string) (int64, bool)
}

// String is the argument as it can be written back.
func (a SysArg) String() string {
	if a.IsStr {
		return `"` + a.Str + `"`
	}
	var parts []string
	for _, t := range a.Terms {
		if t.Name != "" {
			parts = append(parts, t.Name)
		} else {
			parts = append(parts, strconv.FormatInt(t.Value, 10))
		}
	}
	return strings.Join(parts, "|")
}
