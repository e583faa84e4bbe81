package perftool

import (
	"fmt"
	"strings"

	"perfsim/sched"
	"perfsim/uapi"
)

// cgroupOpt is one -G/--cgroup option: its comma-separated names and how
// many -e options came before it.
type cgroupOpt struct {
	names  []string // "" for an empty name ("-G ,b": skip the first event)
	events int      // -e options before this -G
	opt    string
}

// parseCgroupOpt is the -G callback's first check: perf refuses a -G before
// any -e ("the evlist is empty").
// tools/perf/util/cgroup.c: parse_cgroups()
func parseCgroupOpt(o *recordOpts, v, opt string) error {
	if len(o.events) == 0 {
		return errf(opt, "must define events before cgroups")
	}
	o.cgroups = append(o.cgroups, cgroupOpt{names: strings.Split(v, ","), events: len(o.events), opt: opt})
	return nil
}

// applyCgroups gives the evsels their cgroups as parse_cgroups() does,
// option by option, with the evsels the -e options before it made: the
// N-th name (counting every name of every -G, empty ones too: nr_cgroups)
// goes to the N-th evsel; an evsel beyond the list is an error (perf prints
// its usage); when the whole command line has one name, every evsel defined
// before that -G takes it ("for the case one cgroup combine to multiple
// events"). evCount[i] is the number of evsels the first i -e options made.
// tools/perf/util/cgroup.c: parse_cgroups(), add_cgroup()
func applyCgroups(r *Record, ro *recordOpts, evCount []int) error {
	nr := 0 // nr_cgroups
	for _, g := range ro.cgroups {
		n := evCount[g.events]
		for _, name := range g.names {
			if name != "" {
				if nr >= n {
					return errf(g.opt, "perf prints its usage: add_cgroup() finds no event %d for cgroup %s", nr+1, name)
				}
				r.Evsels[nr].Cgroup = name // counter->cgrp = cgrp
			}
			nr++
		}
		if nr == 1 {
			for i := 1; i < n; i++ {
				r.Evsels[i].Cgroup = r.Evsels[0].Cgroup
			}
		}
	}
	return nil
}

// checkCgroupTarget is cmd_record()'s check: a cgroup needs system-wide
// mode (-a, or no target and no workload, which perf makes -a).
// tools/perf/builtin-record.c: cmd_record()
func checkCgroupTarget(r *Record, ro *recordOpts) error {
	if len(ro.cgroups) == 0 {
		return nil
	}
	if r.Target.SystemWide || len(r.Target.Workload) == 0 && r.Target.None() {
		return nil
	}
	return errf(ro.cgroups[0].opt, "cgroup monitoring only available in system-wide mode")
}

// cgroupFD opens the cgroup's directory for perf (open_cgroup(): open(mnt
// + "/" + name, O_RDONLY) in perf's fd table), as perf does when it parses
// -G; a cgroup the machine does not have is perf's "no access to cgroup
// PATH".
// tools/perf/util/cgroup.c: open_cgroup()
func (ss *Session) cgroupFD(t *sched.Task, name string) (int, error) {
	dir := sched.CgroupFS + "/" + strings.Trim(name, "/")
	if ss.S.CgroupByDir(dir) == nil {
		return -1, fmt.Errorf("no access to cgroup %s", dir)
	}
	if ss.cgroupFDs == nil {
		ss.cgroupFDs = map[string]int{}
	}
	if fd, ok := ss.cgroupFDs[name]; ok {
		return fd, nil
	}
	fd, errno := t.Files.Install(ss.S.FS.Lookup(dir), uapi.O_RDONLY)
	if errno != 0 {
		return -1, fmt.Errorf("no access to cgroup %s", dir)
	}
	ss.cgroupFDs[name] = fd
	return fd, nil
}
