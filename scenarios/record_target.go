package scenarios

import (
	"fmt"
	"slices"
	"strings"
)

// TaskRef is one task a record line's -p/-t names: perf takes pids and
// tids, a scenario the tasks' names ("record -p server -e ...").
type TaskRef struct {
	Pos    Pos
	Name   string
	Option string // "-p" or "-t"
}

// TaskTargets returns the names given to -p/--pid and -t/--tid, each with
// the position of its first character (comma-separated lists split). Short
// options may be bundled before them ("-ip NAME") or carry the value
// attached ("-pNAME"), as perf's parse_options() reads them; scanning stops
// at "--" and at the first word that is not an option (the workload).
func (r *Record) TaskTargets() []TaskRef {
	var out []TaskRef
	add := func(w Word, off int, opt string) {
		for off <= len(w.Text) {
			end := strings.IndexByte(w.Text[off:], ',')
			if end < 0 {
				end = len(w.Text) - off
			}
			if end > 0 {
				out = append(out, TaskRef{Pos: w.PosAt(off), Name: w.Text[off : off+end], Option: opt})
			}
			off += end + 1
		}
	}
	for i := 0; i < len(r.Args); i++ {
		w := r.Args[i]
		a := w.Text
		switch {
		case a == "--" || !strings.HasPrefix(a, "-") || a == "-":
			return out
		case a == "--pid" || a == "--tid":
			if i+1 < len(r.Args) {
				i++
				add(r.Args[i], 0, a[1:3])
			}
		case strings.HasPrefix(a, "--pid=") || strings.HasPrefix(a, "--tid="):
			add(w, 6, a[1:3])
		case strings.HasPrefix(a, "--"):
			if takesValue(a[2:]) && !strings.Contains(a, "=") {
				i++
			}
		default:
			for j := 1; j < len(a); j++ {
				c := a[j]
				if c == 'p' || c == 't' {
					if j+1 < len(a) {
						add(w, j+1, "-"+string(c))
					} else if i+1 < len(r.Args) {
						i++
						add(r.Args[i], 0, "-"+string(c))
					}
					break
				}
				if strings.IndexByte(shortWithValue, c) >= 0 {
					if j+1 == len(a) {
						i++ // the value is the next word
					}
					break
				}
			}
		}
	}
	return out
}

// shortWithValue are perf record's short options that take a value (perf
// 6.1: perf record -h).
const shortWithValue = "ecFCmoGDuW"

// takesValue reports whether perf record's long option NAME takes a value in
// the next word.
func takesValue(name string) bool {
	return slices.Contains([]string{"event", "filter", "count", "freq", "cpu", "mmap-pages", "output", "call-graph",
		"cgroup", "delay", "uid", "clockid", "mmap-flush", "aux-sample", "switch-output-event", "max-size",
		"affinity", "control", "proc-map-timeout", "user-regs", "intr-regs", "synth", "compression-level",
		"num-thread-synthesize", "switch-max-files", "threads", "branch-filter", "vmlinux"}, name)
}

// recordTargets checks a record line's -p/-t names: each must be a task
// of the file, or the program of a fork or thread statement (or a program
// block), whose threads perf attaches to when it starts.
func (c *checker) recordTargets(r *Record) {
	refs := r.TaskTargets()
	if len(refs) == 0 {
		return
	}
	known := map[string]bool{}
	for name := range c.tasks {
		known[name] = true
	}
	for _, pr := range c.f.Programs {
		known[pr.Name] = true
	}
	var walk func(ops []Op)
	walk = func(ops []Op) {
		for _, op := range ops {
			switch op := op.(type) {
			case *Repeat:
				walk(op.Body)
			case *Fork:
				known[op.Name] = true
				walk(op.Body)
			}
		}
	}
	for _, t := range c.f.Tasks {
		walk(t.Body)
	}
	for _, pr := range c.f.Programs {
		walk(pr.Body)
	}
	for _, ref := range refs {
		if known[ref.Name] {
			continue
		}
		names := make([]string, 0, len(known))
		for n := range known {
			names = append(names, n)
		}
		slices.Sort(names)
		c.errorf(ref.Pos, "%s %s: perf attaches to a task of this file by its name (a task, or the program a fork or thread statement runs); %s",
			ref.Option, quote(ref.Name), knownList(names))
	}
}

func knownList(names []string) string {
	if len(names) == 0 {
		return "this file has none"
	}
	return fmt.Sprintf("known: %s", strings.Join(names, ", "))
}
