package runner

import (
	"strings"

	"perfsim/scenarios"
)

// task.TASK.var.NAME is the value the task's program bound with "as NAME"
// (a syscall's return: signed, a failed call's -errno), so an outcome can
// judge what a call returned, as a bug report says it: "always
// task.main.var.pos == 65536". It is 0 until the program binds it. Only a
// task of the file (not a thread or child it starts) and a name its own
// program binds are known to check.

// varInfix separates the task from the variable's name.
const varInfix = ".var."

// taskVars are the names each task's own program binds (including inside
// repeat blocks), by task.
func taskVars(f *scenarios.File) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, t := range f.Tasks {
		vars := map[string]bool{}
		var walk func(ops []scenarios.Op)
		walk = func(ops []scenarios.Op) {
			for _, op := range ops {
				switch o := op.(type) {
				case *scenarios.Syscall:
					if o.Bind != "" {
						vars[o.Bind] = true
					}
				case *scenarios.Repeat:
					walk(o.Body)
				}
			}
		}
		walk(t.Body)
		out[t.Name] = vars
	}
	return out
}

// cutVar splits the part of an observable after "task." into the task and
// the variable: "main.var.pos" is main and pos.
func cutVar(rest string) (task, name string, ok bool) {
	return strings.Cut(rest, varInfix)
}

// observeVar is task.TASK.var.NAME in a run: the value bound, 0 before.
func observeVar(r *Run, rest string) (int64, bool) {
	task, name, ok := cutVar(rest)
	if !ok {
		return 0, false
	}
	t := r.Tasks[task]
	if t == nil {
		return 0, false
	}
	return int64(t.Vars[name]), true
}
