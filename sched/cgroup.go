package sched

import (
	"fmt"
	"strings"

	"perfsim/sim"
	"perfsim/uapi"
)

// CgroupFS is where cgroup v2 is mounted: a cgroup's directory is
// CgroupFS + "/" + its path.
const CgroupFS = "/sys/fs/cgroup"

// Cgroup is a cgroup of the unified (v2) hierarchy: a directory under
// /sys/fs/cgroup whose tasks are its members. Every controller is on the
// default hierarchy (perf_event is implicit_on_dfl), so a task's perf cgroup
// is its cgroup.
// include/linux/cgroup-defs.h: struct cgroup
type Cgroup struct {
	Name   string  // the last component of its path ("" for the root)
	Path   string  // its path below the mount: "a/b" ("" for the root)
	ID     uint64  // cgroup_id(): the kernfs node's inode number (1 for the root)
	Parent *Cgroup // nil for the root
	Level  int     // depth: the root is 0

	children []*Cgroup
	nrTasks  int  // tasks whose css_set is this cgroup's
	Removed  bool // rmdir'ed: the css is offline (css_tryget_online fails)

	// Priv holds the controllers' per-cgroup state (perf's struct
	// perf_cgroup), set by a CgroupHook's Online.
	Priv any
}

// IsDescendant is cgroup_is_descendant(cg, ancestor): cg is ancestor or
// below it.
// include/linux/cgroup.h: cgroup_is_descendant()
func (cg *Cgroup) IsDescendant(ancestor *Cgroup) bool {
	for x := cg; x != nil; x = x.Parent {
		if x == ancestor {
			return true
		}
	}
	return false
}

// Children are the cgroup's child directories that exist (not rmdir'ed),
// in the order they were made. A readdir of cgroupfs lists them in kernfs's
// order (kernfs_name_hash(), then the name), which the model does not
// reproduce; perf only builds an id -> path map from them.
func (cg *Cgroup) Children() []*Cgroup {
	var out []*Cgroup
	for _, c := range cg.children {
		if !c.Removed {
			out = append(out, c)
		}
	}
	return out
}

// Dir is the cgroup's directory in the file system.
func (cg *Cgroup) Dir() string {
	if cg.Path == "" {
		return CgroupFS
	}
	return CgroupFS + "/" + cg.Path
}

func (cg *Cgroup) String() string {
	if cg.Path == "" {
		return "/"
	}
	return "/" + cg.Path
}

// CgroupHook is a controller's callbacks (struct cgroup_subsys): Online
// runs when a cgroup is created (css_alloc + css_online), Offline when it
// is removed, Attach after tasks moved (ss->attach(), in the mover's
// context, cgroup_mutex held).
type CgroupHook interface {
	CgroupOnline(cg *Cgroup)
	CgroupOffline(cg *Cgroup)
	CgroupAttach(t *Task, moved []*Task)
}

// cgroupState is the hierarchy and its controllers.
type cgroupState struct {
	root  *Cgroup
	byDir map[string]*Cgroup
	hooks []CgroupHook
	moves uint64
}

func (s *Sched) cg() *cgroupState {
	if s.cgroups == nil {
		root := &Cgroup{ID: 1}
		s.cgroups = &cgroupState{root: root, byDir: map[string]*Cgroup{root.Dir(): root}}
	}
	return s.cgroups
}

// CgroupRoot returns the root cgroup (every task starts in it).
func (s *Sched) CgroupRoot() *Cgroup { return s.cg().root }

// AddCgroupHook registers a controller (cgroup_init_subsys()); it sees the
// cgroups that exist already come online.
func (s *Sched) AddCgroupHook(h CgroupHook) {
	st := s.cg()
	st.hooks = append(st.hooks, h)
	var walk func(cg *Cgroup)
	walk = func(cg *Cgroup) {
		h.CgroupOnline(cg)
		for _, c := range cg.children {
			walk(c)
		}
	}
	walk(st.root)
}

// CgroupByDir returns the live cgroup whose directory is dir, or nil.
func (s *Sched) CgroupByDir(dir string) *Cgroup {
	cg := s.cg().byDir[strings.TrimSuffix(dir, "/")]
	if cg == nil || cg.Removed {
		return nil
	}
	return cg
}

// CgroupMkdir creates cgroup name below parent (nil: the root): mkdir in
// cgroupfs. Its id is its directory's inode number. EEXIST if it exists.
// kernel/cgroup/cgroup.c: cgroup_mkdir() -> cgroup_create(), css_create()
func (s *Sched) CgroupMkdir(name string, parent *Cgroup) (*Cgroup, error) {
	st := s.cg()
	if parent == nil {
		parent = st.root
	}
	if name == "" || strings.Contains(name, "/") {
		return nil, uapi.EINVAL
	}
	path := name
	if parent.Path != "" {
		path = parent.Path + "/" + name
	}
	cg := &Cgroup{Name: name, Path: path, Parent: parent, Level: parent.Level + 1}
	if old := st.byDir[cg.Dir()]; old != nil && !old.Removed {
		return nil, uapi.EEXIST
	}
	cg.ID = s.FS.Lookup(cg.Dir()).Ino
	parent.children = append(parent.children, cg)
	st.byDir[cg.Dir()] = cg
	for _, h := range st.hooks {
		h.CgroupOnline(cg)
	}
	return cg, nil
}

// CgroupRmdir removes an empty cgroup: EBUSY while it has tasks or live
// children. Its css goes offline; controllers free their state when the
// last reference goes.
// kernel/cgroup/cgroup.c: cgroup_rmdir() -> cgroup_destroy_locked()
func (s *Sched) CgroupRmdir(cg *Cgroup) error {
	if cg == nil || cg.Parent == nil || cg.Removed {
		return uapi.ENOENT
	}
	if cg.nrTasks > 0 {
		return uapi.EBUSY // cgroup_is_populated()
	}
	for _, c := range cg.children {
		if !c.Removed {
			return uapi.EBUSY // css_has_online_children()
		}
	}
	cg.Removed = true
	for _, h := range s.cg().hooks {
		h.CgroupOffline(cg)
	}
	return nil
}

// Cgroup returns the task's cgroup (task_dfl_cgroup()).
func (t *Task) Cgroup() *Cgroup {
	if t.cgrp == nil {
		return t.s.cg().root
	}
	return t.cgrp
}

// CgroupOf is Cgroup for a task or, for nil (an idle task), the root.
func (s *Sched) CgroupOf(t *Task) *Cgroup {
	if t == nil {
		return s.cg().root
	}
	return t.Cgroup()
}

// CgroupMoves counts the tasks cgroup_attach_task() moved.
func (s *Sched) CgroupMoves() uint64 { return s.cg().moves }

// cgroupFork puts a child in its parent's cgroup.
// kernel/cgroup/cgroup.c: cgroup_post_fork()
func (s *Sched) cgroupFork(parent, child *Task) {
	child.cgrp = parent.cgrp
	child.Cgroup().nrTasks++
}

// cgroupExit takes an exiting task out of its cgroup's population.
// kernel/cgroup/cgroup.c: cgroup_exit()
func (s *Sched) cgroupExit(t *Task) {
	if cg := t.Cgroup(); cg.nrTasks > 0 {
		cg.nrTasks--
	}
}

// CgroupSetInitial places a task the machine starts with in cg before it
// first runs (as a launcher writing its pid to cgroup.procs before exec).
func (s *Sched) CgroupSetInitial(p *Task, cg *Cgroup) {
	s.cgroupExit(p)
	p.cgrp = cg
	cg.nrTasks++
}

// CgroupAttachTask moves p into cg, from t's kernel context (a write of p's
// pid to cg's cgroup.procs): the css_set changes (what task_css() reads
// from now on), then each controller's attach callback runs: perf's
// perf_cgroup_attach() cross-calls p's CPU.
// kernel/cgroup/cgroup.c: cgroup_attach_task() -> cgroup_migrate() -> cgroup_migrate_execute()
func (s *Sched) CgroupAttachTask(t, p *Task, cg *Cgroup) error {
	if cg == nil || cg.Removed {
		return uapi.ENOENT
	}
	if p.State == Dead {
		return uapi.ESRCH
	}
	if p.Cgroup() == cg {
		return nil
	}
	old := p.Cgroup()
	s.cgroupExit(p)
	p.cgrp = cg // css_set_move_task(): rcu_assign_pointer(task->cgroups, cset)
	cg.nrTasks++
	s.cg().moves++
	if c := t.CPU(); c != nil {
		s.note(c, sim.KNote, "cgroup_attach_task", fmt.Sprintf("%s %s -> %s", p, old, cg), 0)
	}
	t.Step("cgroup_migrate_execute:moved")
	for _, h := range s.cg().hooks {
		h.CgroupAttach(t, []*Task{p})
	}
	return nil
}
