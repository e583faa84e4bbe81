package scenarios

import "strings"

// CgroupLine is "cgroup PATH [TASK...]": a cgroup v2 directory that exists
// when the machine starts (PATH below /sys/fs/cgroup, "a" or "a/b"; its
// parent declared on an earlier line), with the named tasks in it from
// their start.
type CgroupLine struct {
	Pos   Pos
	Path  *Ident
	Tasks []*Ident
}

// cgroup parses a cgroup line.
func (p *parser) cgroup(ll *logicalLine, ws []token) {
	if len(ws) < 2 || !isCgroupPath(ws[1].text) {
		p.errorf(at(ll, ws, 1), "expected a cgroup path like app or app/worker after cgroup, found %s", found(ws, 1))
		return
	}
	cl := &CgroupLine{Pos: ws[0].pos, Path: &Ident{Pos: ws[1].pos, Name: strings.Trim(ws[1].text, "/")}}
	for _, w := range ws[2:] {
		if !isName(w.text) {
			p.errorf(w.pos, "expected a task name, found %s", quote(w.text))
			return
		}
		cl.Tasks = append(cl.Tasks, &Ident{Pos: w.pos, Name: w.text})
	}
	p.f.Cgroups = append(p.f.Cgroups, cl)
}

// isCgroupPath: names separated by single slashes, not the root.
func isCgroupPath(s string) bool {
	s = strings.Trim(s, "/")
	if s == "" {
		return false
	}
	for _, c := range strings.Split(s, "/") {
		if !isName(c) {
			return false
		}
	}
	return true
}

// cgroups checks the cgroup lines: a path once, its parent on an earlier
// line, each task known and in one cgroup.
func (c *checker) cgroups() {
	seen := map[string]*CgroupLine{}
	placed := map[string]*CgroupLine{}
	for _, cl := range c.f.Cgroups {
		path := cl.Path.Name
		if first := seen[path]; first != nil {
			c.errorf(cl.Path.Pos, "duplicate cgroup %s (the first is on line %d)", path, first.Pos.Line)
			continue
		}
		if i := strings.LastIndex(path, "/"); i >= 0 && seen[path[:i]] == nil {
			c.errorf(cl.Path.Pos, "cgroup %s: its parent %s is not declared on an earlier cgroup line", path, path[:i])
		}
		seen[path] = cl
		for _, t := range cl.Tasks {
			if c.tasks[t.Name] == nil {
				c.errorf(t.Pos, "%s", c.taskList(t.Name))
				continue
			}
			if first := placed[t.Name]; first != nil {
				c.errorf(t.Pos, "task %s is already in cgroup %s (line %d): a task is in one cgroup", t.Name, first.Path.Name, first.Pos.Line)
				continue
			}
			placed[t.Name] = cl
		}
	}
}
