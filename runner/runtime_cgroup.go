package runner

import (
	"fmt"
	"strings"

	"perfsim/scenarios"
	"perfsim/sched"
	"perfsim/uapi"
)

// cgroupVerbs are the cgroup v2 actions:
//
//	at TIME cgroup-mkdir PATH          mkdir /sys/fs/cgroup/PATH
//	at TIME cgroup-attach TASK PATH    echo TID > /sys/fs/cgroup/PATH/cgroup.threads
//	at TIME cgroup-rmdir PATH          rmdir /sys/fs/cgroup/PATH
//
// PATH is below the mount ("a" or "a/b"; "/" is the root). The action's
// timer fires on cpu0, whose handler starts a task there that makes the
// write: cgroup_attach_task() runs in that task's kernel context and its
// controllers' attach callbacks with it (perf's perf_cgroup_attach()
// cross-calls the moved task's CPU). A cgroup event is opened with
// "open NAME -e EVENT cpuN flags pid_cgroup pid PATH": the task opens the
// cgroup's directory and passes its fd as pid, as perf record -G does.
func cgroupVerbs() map[string]Verb {
	word := scenarios.ActionSpec{Args: []scenarios.ArgKind{scenarios.ArgWord}, MinArgs: 1}
	return map[string]Verb{
		"cgroup-mkdir": {Spec: word, BootCPU: true,
			Help: "create the cgroup PATH below /sys/fs/cgroup (its parent must exist): perf's controller comes online in it (perf_cgroup_css_alloc())",
			Do:   func(a *ActionCtx) { cgroupWrite(a, "mkdir", "", a.Arg(0)) }},
		"cgroup-attach": {Spec: scenarios.ActionSpec{Args: []scenarios.ArgKind{scenarios.ArgTask, scenarios.ArgWord}, MinArgs: 2}, BootCPU: true,
			Help: "move the task into cgroup PATH (a write of its tid to cgroup.threads): cgroup_attach_task(), then perf_cgroup_attach() -> task_function_call(__perf_cgroup_move) -> perf_cgroup_switch() on the task's CPU if it runs there",
			Do:   func(a *ActionCtx) { cgroupWrite(a, "attach", a.Arg(0), a.Arg(1)) }},
		"cgroup-rmdir": {Spec: word, BootCPU: true,
			Help: "remove the empty cgroup PATH (EBUSY while it has tasks): its css goes offline; perf's perf_cgroup is freed when the last event on it is",
			Do:   func(a *ActionCtx) { cgroupWrite(a, "rmdir", "", a.Arg(0)) }},
	}
}

// cgroupByPath resolves a scenario's cgroup path.
func cgroupByPath(s *sched.Sched, path string) *sched.Cgroup {
	path = strings.Trim(path, "/")
	if path == "" {
		return s.CgroupRoot()
	}
	return s.CgroupByDir(sched.CgroupFS + "/" + path)
}

// cgroupWrite starts, on cpu0, the task that makes the cgroupfs call.
func cgroupWrite(a *ActionCtx, what, task, path string) {
	r := a.Run
	st := r.S.Spawn("cgroup-"+what, sched.MaskOf(0), sched.Call(func(t *sched.Task) {
		sys := "write"
		if what != "attach" {
			sys = what
		}
		r.S.Syscall(t, sys, func(t *sched.Task) {
			var err error
			switch what {
			case "mkdir":
				p := strings.Trim(path, "/")
				parent, name := r.S.CgroupRoot(), p
				if i := strings.LastIndex(p, "/"); i >= 0 {
					parent, name = cgroupByPath(r.S, p[:i]), p[i+1:]
				}
				if parent == nil {
					err = fmt.Errorf("ENOENT: no parent cgroup")
				} else {
					_, err = r.S.CgroupMkdir(name, parent)
				}
			case "rmdir":
				err = r.S.CgroupRmdir(cgroupByPath(r.S, path))
			case "attach":
				p := r.Tasks[task]
				if p == nil {
					err = fmt.Errorf("no task %s", task)
				} else {
					err = r.S.CgroupAttachTask(t, p, cgroupByPath(r.S, path))
				}
			}
			if err != nil {
				r.note(t.CPUID(), "cgroup", fmt.Sprintf("cgroup-%s %s: %v", what, path, err))
			}
		})
	}))
	st.StandIn = true // its exit costs nothing (sched.Task.StandIn)
}

// cgroupFD opens the cgroup directory PATH in t's fd table (open(O_RDONLY)
// of /sys/fs/cgroup/PATH) for a PERF_FLAG_PID_CGROUP open; a path that
// names no live cgroup still opens (perf_cgroup_connect() refuses it).
func cgroupFD(t *sched.Task, s *sched.Sched, path string) int {
	dir := sched.CgroupFS
	if p := strings.Trim(path, "/"); p != "" {
		dir += "/" + p
	}
	fd, errno := t.Files.Install(s.FS.Lookup(dir), uapi.O_RDONLY)
	if errno != 0 {
		return -1 // EMFILE: the open fails, and perf_event_open() gets no cgroup fd (EBADF)
	}
	return fd
}

// buildCgroups makes the file's cgroup lines' cgroups, in order, and puts
// their tasks in them before anything runs (as a launcher that writes a
// pid to cgroup.procs before exec): perf sees them from its start.
func (r *Run) buildCgroups() error {
	for _, cl := range r.File.Cgroups {
		p := cl.Path.Name
		parent, name := r.S.CgroupRoot(), p
		if i := strings.LastIndex(p, "/"); i >= 0 {
			parent, name = cgroupByPath(r.S, p[:i]), p[i+1:]
		}
		cg, err := r.S.CgroupMkdir(name, parent)
		if err != nil {
			return r.File.Errorf(cl.Path.Pos, "cgroup %s: %v", p, err)
		}
		for _, t := range cl.Tasks {
			r.S.CgroupSetInitial(r.Tasks[t.Name], cg)
		}
	}
	return nil
}
