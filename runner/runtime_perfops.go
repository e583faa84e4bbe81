package runner

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"perfsim/cpu"
	"perfsim/perftool"
	"perfsim/pmu"
	"perfsim/scenarios"
	"perfsim/sched"
	"perfsim/uapi"
)

// The perf file system calls of a task's program (scenarios.PerfOp): open,
// close, ioctl, mmap, munmap and read on a perf fd. The file's tasks are the
// threads of one process: they share one file table and one mm, so any task
// may close, map or read the fd another opened. The name an open binds is
// the fd the kernel returned; an unbound name stands for an fd that is not
// open (the kernel answers EBADF). A failed call counts its errno in the
// observable errno.NAME (errno.EBADF, ...) and is noted in the trace.

// fdState is the scenario process's perf fds.
type fdState struct {
	fds    map[string]int            // name -> fd
	maps   map[string][]*pmu.Mapping // name -> its mappings, oldest first
	errs   map[string]int64          // errno name -> calls that returned it
	counts map[string]int64          // fd.opened, fd.closed, ...
	last   []uint64                  // the u64 words of the last read()
	prev   map[string]uint64         // name -> the count its last read() returned
}

// perfOpObservables are the observables of the perf fd calls.
var perfOpObservables = map[string]string{
	"fd.opened":             "perf_event_open() calls of the tasks' programs that returned an fd",
	"fd.closed":             "close() calls on a perf fd that returned 0",
	"fd.errors":             "perf fd calls (open, close, ioctl, mmap, munmap, read) that returned an error",
	"fd.reads":              "read() calls on a perf fd that returned data",
	"read.group-torn":       "read() calls of a group (PERF_FORMAT_GROUP) whose nr does not match the entries returned: a group not read at one instant, or a read_size left stale by a group change",
	"read.decreased":        "read() calls that returned a smaller count than the previous read() of the same fd (a counter never goes back)",
	"read.value":            "the first count of the last read(): the event's count, or the group leader's (PERF_FORMAT_GROUP)",
	"read.nr":               "the nr of the last read() of a group (PERF_FORMAT_GROUP), 1 otherwise",
	"ioctl.id":              "the id PERF_EVENT_IOC_ID returned last",
	"fd.mmaps":              "mmap() calls on a perf fd that returned a mapping",
	"fd.munmaps":            "munmap() calls that unmapped a perf mapping",
	"fd.munmap-empty":       "munmap() calls that found nothing mapped (and returned 0, as munmap() of an unmapped range does)",
	"signals.delivered":     "signals the tasks took (get_signal() dequeued them and the handler ran)",
	"signals.sigtrap":       "SIGTRAPs with si_code TRAP_PERF the tasks took (attr.sigtrap events)",
	"signals.sigtrap.data":  "si_perf_data (attr.sig_data) of the last SIGTRAP/TRAP_PERF taken",
	"signals.sigtrap.async": "SIGTRAPs with si_code TRAP_PERF taken with TRAP_PERF_FLAG_ASYNC in si_perf_flags (sent while the task blocked SIGTRAP, taken when it unblocked it)",
	"signals.sigio":         "SIGIOs the tasks took (kill_fasync() of an O_ASYNC perf fd with F_SETSIG 0 or SIGIO)",
	"signals.si-kernel":     "signals taken with si_code SI_KERNEL (kill_fasync() without F_SETSIG: SEND_SIG_PRIV)",
	"signals.poll-in":       "kill_fasync() signals taken with si_code POLL_IN (an F_SETSIG owner: an overflow or a ring wakeup)",
	"signals.poll-hup":      "kill_fasync() signals taken with si_code POLL_HUP (an IOC_REFRESH event_limit ran out)",
	"signals.poll-err":      "kill_fasync() signals taken with si_code POLL_ERR (a pinned event that could not go on)",
	"signals.fd":            "si_fd of the last kill_fasync() signal taken with F_SETSIG",
	"signals.rt":            "real-time signals (SIGRTMIN and above) the tasks took",
	"signals.fatal":         "processes a signal's default action ended (complete_signal()'s group kill, or get_signal() -> do_group_exit())",
	"signals.fatal-sig":     "the signal whose default action ended the last such process (SIGIO 29, SIGUSR1 10, SIGTRAP 5)",
	"signals.overflow":      "signals that found the user's RLIMIT_SIGPENDING queue full (a real-time one is not sent; a standard one loses its siginfo)",
}

// errnoObservables lists errno.NAME for every errno the kernel model returns.
func errnoObservables() map[string]string {
	out := map[string]string{}
	for e := uapi.Errno(1); e < 140; e++ {
		if n := e.Name(); n != "" && !strings.HasPrefix(n, "Errno") && !strings.Contains(n, "(") {
			out["errno."+n] = "perf fd calls of the tasks' programs that returned " + n
		}
	}
	return out
}

// errnoNames is errnoObservables(), made once: Observables looks up every
// errno.NAME of every run in it (made afresh each time, its 140 names'
// strings were most of the time a walk of 4,200 schedules spent observing).
var errnoNames = errnoObservables()

func (r *Run) fdState() *fdState {
	if r.fds == nil {
		r.fds = &fdState{prev: map[string]uint64{}, fds: map[string]int{}, maps: map[string][]*pmu.Mapping{}, errs: map[string]int64{}, counts: map[string]int64{}}
	}
	return r.fds
}

// observePerfOps returns the value of one of perfOpObservables or errno.NAME.
func (r *Run) observePerfOps(name string) (int64, bool) {
	fs := r.fdState()
	if n, ok := strings.CutPrefix(name, "errno."); ok {
		if _, ok := errnoNames[name]; ok {
			return fs.errs[n], true
		}
		return 0, false
	}
	switch name {
	case "signals.delivered", "signals.sigtrap", "signals.sigtrap.data", "signals.sigtrap.async":
		var n, data int64
		for _, d := range r.S.Delivered {
			switch {
			case name == "signals.delivered":
				n++
			case d.Signal.Sig != sched.SIGTRAP || d.Signal.Code != sched.TRAP_PERF:
			case name != "signals.sigtrap.async" || d.Signal.PerfFlags&sched.TRAP_PERF_FLAG_ASYNC != 0:
				n++
				data = int64(d.Signal.PerfData)
			}
		}
		if name == "signals.sigtrap.data" {
			return data, true
		}
		return n, true
	case "signals.fatal":
		return int64(len(r.S.Killed)), true
	case "signals.fatal-sig":
		if n := len(r.S.Killed); n > 0 {
			return int64(r.S.Killed[n-1].Signal.Sig), true
		}
		return 0, true
	case "signals.overflow":
		return int64(r.S.SigqueueOverflows), true
	case "signals.rt":
		var n int64
		for _, d := range r.S.Delivered {
			if d.Signal.Sig >= sched.SIGRTMIN {
				n++
			}
		}
		return n, true
	case "signals.sigio", "signals.si-kernel", "signals.poll-in", "signals.poll-hup", "signals.poll-err", "signals.fd":
		var n, fd int64
		for _, d := range r.S.Delivered {
			s := d.Signal
			fasync := s.Fasync
			switch {
			case name == "signals.sigio" && fasync && s.Sig == sched.SIGIO,
				name == "signals.si-kernel" && fasync && s.Code == sched.SI_KERNEL,
				name == "signals.poll-in" && fasync && s.Code == sched.POLL_IN,
				name == "signals.poll-hup" && fasync && s.Code == sched.POLL_HUP,
				name == "signals.poll-err" && fasync && s.Code == sched.POLL_ERR:
				n++
			}
			if fasync && s.Code != sched.SI_KERNEL && s.Code != 0 {
				fd = int64(s.Fd)
			}
		}
		if name == "signals.fd" {
			return fd, true
		}
		return n, true
	case "read.value":
		if len(fs.last) == 0 {
			return 0, true
		}
		if len(fs.last) > 1 && fs.counts["read.group"] == 1 {
			// nr, [time_enabled], [time_running], value...: the leader's value
			return int64(fs.last[fs.counts["read.leader-at"]]), true
		}
		return int64(fs.last[0]), true
	case "read.nr", "ioctl.id":
		return fs.counts[name], true
	}
	if _, ok := perfOpObservables[name]; ok {
		return fs.counts[name], true
	}
	return 0, false
}

// kernelOf returns the pmu kernel of the run's perf backend, or nil.
func (r *Run) kernelOf() *pmu.Kernel {
	if p, ok := r.Perf.(*pmuRun); ok {
		return p.k
	}
	return nil
}

// perfOpCall builds the program step for op; it checks what Build can
// (the event term, the attr fields) and reports it at op's position.
func (r *Run) perfOpCall(op *scenarios.PerfOp) (func(t *sched.Task), error) {
	var attr pmu.Attr
	if op.Verb == "open" || op.Event != nil { // open, ioctl MODIFY_ATTRIBUTES
		a, err := r.openAttr(op)
		if err != nil {
			return nil, err
		}
		attr = a
	}
	if op.Verb == "fcntl" && (op.Request.Name == "F_SETOWN" || op.Request.Name == "F_SETOWN_EX") {
		who := op.Arg
		if op.Owner != nil {
			who = op.Owner
		}
		if who != nil && who.Name != "self" {
			name := strings.TrimPrefix(who.Name, "-")
			if _, err := strconv.ParseInt(name, 0, 64); err != nil && !r.fileHasTask(name) {
				return nil, r.File.Errorf(who.Pos, "fcntl %s %s: no task %q in this file", op.FD.Name, op.Request.Name, name)
			}
		}
	}
	return func(t *sched.Task) { r.doPerfOp(t, op, attr) }, nil
}

// checkAddrFilter notes, at the filter's position, an address filter the
// kernel will refuse (the ioctl then returns that errno at run time): the
// event is the one the file opens under op's name, on a PMU with address
// filters (intel_pt, cs_etm).
func (r *Run) checkAddrFilter(op *scenarios.PerfOp) {
	k := r.kernelOf()
	open := r.openOpOf(op.FD.Name)
	if k == nil || open == nil {
		return
	}
	a, err := r.openAttr(open)
	if err != nil {
		return
	}
	cpuWide := open.PID != nil && open.PID.Name == "-1" || open.PID == nil && open.CPU >= 0
	if ok, err := k.CheckAddrFilter(a.Type, op.Filter, !cpuWide); ok && err != nil {
		r.messages = append(r.messages, r.File.Errorf(op.FilterPos, "ioctl %s SET_FILTER %q: the kernel refuses this address filter: %v", op.FD.Name, op.Filter, err).Error())
	}
}

// openOpOf finds the open statement that names fd name (the first).
func (r *Run) openOpOf(name string) *scenarios.PerfOp {
	var found *scenarios.PerfOp
	r.eachPerfOp(func(op *scenarios.PerfOp) {
		if found == nil && op.Verb == "open" && op.FD.Name == name {
			found = op
		}
	})
	return found
}

// checkAddrFilters runs checkAddrFilter on each SET_FILTER of the file, in
// file order, once the PMUs are up.
func (r *Run) checkAddrFilters() {
	r.eachPerfOp(func(op *scenarios.PerfOp) {
		if op.Verb == "ioctl" && op.Request != nil && op.Request.Name == "SET_FILTER" {
			r.checkAddrFilter(op)
		}
	})
}

// eachPerfOp calls fn on each perf fd call of the tasks' programs (forks'
// included) and of the forced actions, in file order.
func (r *Run) eachPerfOp(fn func(*scenarios.PerfOp)) {
	var walk func(ops []scenarios.Op)
	walk = func(ops []scenarios.Op) {
		for _, op := range ops {
			switch op := op.(type) {
			case *scenarios.PerfOp:
				fn(op)
			case *scenarios.Repeat:
				walk(op.Body)
			case *scenarios.Fork:
				walk(r.File.ProgramBody(op))
			}
		}
	}
	for _, t := range r.File.Tasks {
		walk(t.Body)
	}
	for _, f := range r.File.Forces {
		if f.Op != nil {
			fn(f.Op)
		}
	}
}

// openAttr builds the perf_event_attr of an open: the -e term parsed by
// perf's event parser, then the fields.
func (r *Run) openAttr(op *scenarios.PerfOp) (pmu.Attr, error) {
	var a pmu.Attr
	if op.Event != nil {
		opts := perftool.DefaultOptions()
		opts.NrCPUs = r.File.NumCPUs()
		opts.Sysctl = pmu.DefaultSysctl(opts.NrCPUs)
		var err error
		a, err = perftool.ParseEventAttr(op.Event.Name, opts)
		if err != nil {
			return a, r.File.Errorf(op.Event.Pos, "%v", err)
		}
	} else {
		a.Size = uapi.AttrSize
		hasType := false
		for _, f := range op.Fields {
			hasType = hasType || f.Name == "type"
		}
		if !hasType {
			return a, r.File.Errorf(op.Pos, "open %s needs an event: -e EVENT (as perf record -e takes it) or type=N config=N", op.FD.Name)
		}
	}
	for _, f := range op.Fields {
		if err := setAttrField(&a, f.Name, f.Value); err != nil {
			return a, r.File.Errorf(f.Pos, "%s %s: %s: %v", op.Verb, op.FD.Name, f.Name, err)
		}
	}
	return a, nil
}

var sampleBits = map[string]uint64{
	"IP": uapi.PERF_SAMPLE_IP, "TID": uapi.PERF_SAMPLE_TID, "TIME": uapi.PERF_SAMPLE_TIME, "ADDR": uapi.PERF_SAMPLE_ADDR,
	"READ": uapi.PERF_SAMPLE_READ, "CALLCHAIN": uapi.PERF_SAMPLE_CALLCHAIN, "ID": uapi.PERF_SAMPLE_ID, "CPU": uapi.PERF_SAMPLE_CPU,
	"PERIOD": uapi.PERF_SAMPLE_PERIOD, "STREAM_ID": uapi.PERF_SAMPLE_STREAM_ID, "RAW": uapi.PERF_SAMPLE_RAW,
	"IDENTIFIER": uapi.PERF_SAMPLE_IDENTIFIER,
}

var readBits = map[string]uint64{
	"TOTAL_TIME_ENABLED": uapi.PERF_FORMAT_TOTAL_TIME_ENABLED, "TOTAL_TIME_RUNNING": uapi.PERF_FORMAT_TOTAL_TIME_RUNNING,
	"ID": uapi.PERF_FORMAT_ID, "GROUP": uapi.PERF_FORMAT_GROUP, "LOST": uapi.PERF_FORMAT_LOST,
}

// bpTypes are HW_BREAKPOINT_* (include/uapi/linux/hw_breakpoint.h).
var bpTypes = map[string]uint32{"EMPTY": 0, "R": 1, "W": 2, "RW": 3, "X": 4}

func bits(v string, names map[string]uint64, prefix string) (uint64, error) {
	if n, err := strconv.ParseUint(v, 0, 64); err == nil {
		return n, nil
	}
	var out uint64
	for _, w := range strings.Split(v, "|") {
		b, ok := names[strings.TrimPrefix(w, prefix)]
		if !ok {
			var known []string
			for k := range names {
				known = append(known, k)
			}
			return 0, fmt.Errorf("unknown bit %q (a number or names joined by |: %s)", w, strings.Join(sortedStrings(known), ", "))
		}
		out |= b
	}
	return out, nil
}

// attrFlagFields are the attr bits a bare word (or =0/=1) sets.
var attrFlagFields = map[string]func(a *pmu.Attr) *bool{
	"disabled": func(a *pmu.Attr) *bool { return &a.Disabled }, "inherit": func(a *pmu.Attr) *bool { return &a.Inherit },
	"pinned": func(a *pmu.Attr) *bool { return &a.Pinned }, "exclusive": func(a *pmu.Attr) *bool { return &a.Exclusive },
	"exclude_user": func(a *pmu.Attr) *bool { return &a.ExcludeUser }, "exclude_kernel": func(a *pmu.Attr) *bool { return &a.ExcludeKernel },
	"exclude_hv": func(a *pmu.Attr) *bool { return &a.ExcludeHV }, "exclude_idle": func(a *pmu.Attr) *bool { return &a.ExcludeIdle },
	"enable_on_exec": func(a *pmu.Attr) *bool { return &a.EnableOnExec }, "sample_id_all": func(a *pmu.Attr) *bool { return &a.SampleIDAll },
	"context_switch": func(a *pmu.Attr) *bool { return &a.ContextSwitch }, "write_backward": func(a *pmu.Attr) *bool { return &a.WriteBackward },
	"sigtrap": func(a *pmu.Attr) *bool { return &a.Sigtrap }, "remove_on_exec": func(a *pmu.Attr) *bool { return &a.RemoveOnExec },
	"inherit_thread": func(a *pmu.Attr) *bool { return &a.InheritThread }, "watermark": func(a *pmu.Attr) *bool { return &a.Watermark },
	"freq": func(a *pmu.Attr) *bool { return &a.Freq }, "task": func(a *pmu.Attr) *bool { return &a.Task },
	"comm": func(a *pmu.Attr) *bool { return &a.Comm }, "mmap": func(a *pmu.Attr) *bool { return &a.Mmap },
}

// setAttrField sets one perf_event_attr field by its C name.
func setAttrField(a *pmu.Attr, name, v string) error {
	if f, ok := attrFlagFields[name]; ok {
		switch v {
		case "", "1":
			*f(a) = true
		case "0":
			*f(a) = false
		default:
			return fmt.Errorf("expected 0 or 1 (or the bare word), found %q", v)
		}
		return nil
	}
	if v == "" {
		return fmt.Errorf("needs a value (%s=...)", name)
	}
	num := func() (uint64, error) {
		n, err := strconv.ParseUint(v, 0, 64)
		if err != nil {
			return 0, fmt.Errorf("expected a number, found %q", v)
		}
		return n, nil
	}
	var err error
	var n uint64
	switch name {
	case "sample_type":
		a.SampleType, err = bits(v, sampleBits, "PERF_SAMPLE_")
	case "read_format":
		a.ReadFormat, err = bits(v, readBits, "PERF_FORMAT_")
	case "bp_type":
		t, ok := bpTypes[strings.TrimPrefix(v, "HW_BREAKPOINT_")]
		if !ok {
			n, err = num()
			t = uint32(n)
		}
		a.BPType = t
	case "type", "config", "config1", "bp_addr", "config2", "bp_len", "period", "sample_period", "sample_freq",
		"wakeup_events", "wakeup_watermark", "sig_data", "precise_ip", "aux_watermark":
		n, err = num()
		switch name {
		case "type":
			a.Type = uint32(n)
		case "config":
			a.Config = n
		case "config1", "bp_addr":
			a.Config1 = n
		case "config2", "bp_len":
			a.Config2 = n
		case "period", "sample_period":
			a.SamplePeriod = n
		case "sample_freq":
			a.SamplePeriod, a.Freq = n, true
		case "wakeup_events", "wakeup_watermark":
			a.WakeupEvents = uint32(n)
		case "sig_data":
			a.SigData = n
		case "precise_ip":
			a.PreciseIP = uint8(n)
		case "aux_watermark":
			a.AuxWatermark = uint32(n)
		}
	default:
		return fmt.Errorf("unknown perf_event_attr field; known: sample_type, read_format, period, sample_freq, wakeup_events, type, config, config1, config2, bp_type, bp_addr, bp_len, sig_data, precise_ip, aux_watermark, and the flags %s",
			strings.Join(sortedStrings(keys(attrFlagFields)), ", "))
	}
	return err
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func sortedStrings(l []string) []string {
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && l[j] < l[j-1]; j-- {
			l[j], l[j-1] = l[j-1], l[j]
		}
	}
	return l
}

// ioctlRequests maps a request name to PERF_EVENT_IOC_*.
var ioctlRequests = map[string]uint64{
	"ENABLE": uapi.PERF_EVENT_IOC_ENABLE, "DISABLE": uapi.PERF_EVENT_IOC_DISABLE, "REFRESH": uapi.PERF_EVENT_IOC_REFRESH,
	"RESET": uapi.PERF_EVENT_IOC_RESET, "PERIOD": uapi.PERF_EVENT_IOC_PERIOD, "SET_OUTPUT": uapi.PERF_EVENT_IOC_SET_OUTPUT,
	"SET_FILTER": uapi.PERF_EVENT_IOC_SET_FILTER, "ID": uapi.PERF_EVENT_IOC_ID, "SET_BPF": uapi.PERF_EVENT_IOC_SET_BPF,
	"PAUSE_OUTPUT": uapi.PERF_EVENT_IOC_PAUSE_OUTPUT, "QUERY_BPF": uapi.PERF_EVENT_IOC_QUERY_BPF,
	"MODIFY_ATTRIBUTES": uapi.PERF_EVENT_IOC_MODIFY_ATTRIBUTES,
}

// fdOf returns the fd a name is bound to, or -1 (not open: EBADF).
func (fs *fdState) fdOf(name string) int {
	if fd, ok := fs.fds[name]; ok {
		return fd
	}
	return -1
}

// doPerfOp carries out op in t's context.
func (r *Run) doPerfOp(t *sched.Task, op *scenarios.PerfOp, attr pmu.Attr) {
	k := r.kernelOf()
	fs := r.fdState()
	if k == nil {
		return
	}
	name := op.FD.Name
	var err error
	result := ""
	switch op.Verb {
	case "open":
		pid, cpuID, group := 0, op.CPU, -1
		if op.CPU >= 0 {
			pid = -1
		}
		if op.PID != nil {
			switch op.PID.Name {
			case "self":
				pid = 0
			case "-1":
				pid = -1
			default:
				pid = -2 // a task that does not exist: ESRCH
				if tt := r.Tasks[op.PID.Name]; tt != nil {
					r.accessTask(t, tt, "p->pid")
					pid = tt.PID
				}
			}
		}
		if op.Group != nil {
			r.accessVar(t, op.Group.Name, "fd", cpu.MarkedRead)
			group = fs.fdOf(op.Group.Name)
			if group == -1 {
				group = 1 << 20 // a name not bound: not an open fd (EBADF)
			}
		}
		var flags uint64
		for _, f := range op.Flags {
			flags |= map[string]uint64{"fd_no_group": uapi.PERF_FLAG_FD_NO_GROUP, "fd_output": uapi.PERF_FLAG_FD_OUTPUT,
				"pid_cgroup": uapi.PERF_FLAG_PID_CGROUP, "fd_cloexec": uapi.PERF_FLAG_FD_CLOEXEC}[f.Name]
		}
		if flags&uapi.PERF_FLAG_PID_CGROUP != 0 && op.PID != nil && r.Tasks[op.PID.Name] == nil && op.PID.Name != "-1" && op.PID.Name != "self" {
			r.markUnaudited(t, "open of a cgroup directory") // the fd table written with no syscall (footprint_perfops.go)
			pid = cgroupFD(t, r.S, op.PID.Name)              // pid names a cgroup: its directory's fd (runtime_cgroup.go)
		}
		a := attr
		var fd int
		fd, err = k.PerfEventOpen(t, &a, pid, cpuID, group, flags)
		if err == nil {
			r.accessVar(t, name, "fd", cpu.PlainWrite)
			r.countOp(t, "fd.opened", false)
			fs.fds[name] = fd
			fs.counts["fd.opened"]++
			result = "fd " + strconv.Itoa(fd)
		}
	case "close":
		r.accessVar(t, name, "fd", cpu.MarkedRead)
		err = k.Close(t, fs.fdOf(name))
		if err == nil {
			// The names are the scenario process's fds: a forked child
			// closing its copy (dup_fd()) leaves the process's open.
			owner := r.firstTask()
			r.accessTask(t, owner, "p->files")
			r.accessTask(t, t, "p->files")
			if owner == nil || owner.Files == t.Files {
				r.accessVar(t, name, "fd", cpu.PlainWrite)
				delete(fs.fds, name)
			}
			r.countOp(t, "fd.closed", false)
			fs.counts["fd.closed"]++
		}
	case "ioctl":
		req, ok := ioctlRequests[op.Request.Name]
		if !ok {
			n, _ := strconv.ParseUint(op.Request.Name, 0, 64)
			req = n
		}
		var arg uint64
		if op.Arg != nil {
			if op.Request.Name == "SET_OUTPUT" {
				r.accessVar(t, op.Arg.Name, "fd", cpu.MarkedRead)
				if op.Arg.Name == "-1" {
					arg = uint64(^uint64(0))
				} else if fd := fs.fdOf(op.Arg.Name); fd >= 0 {
					arg = uint64(fd)
				} else {
					arg = 1 << 20 // not an open fd: EBADF
				}
			} else if v, err := strconv.ParseInt(op.Arg.Name, 0, 64); err == nil {
				arg = uint64(v)
			}
		}
		if op.AllOfGroup {
			arg |= uapi.PERF_IOC_FLAG_GROUP
		}
		var ret uint64
		r.accessVar(t, name, "fd", cpu.MarkedRead)
		switch {
		case op.Request.Name == "SET_FILTER":
			err = k.SetFilter(t, fs.fdOf(name), op.Filter)
		case op.Request.Name == "MODIFY_ATTRIBUTES" && op.Event != nil:
			a := attr
			err = k.ModifyAttributes(t, fs.fdOf(name), &a)
		default:
			ret, err = k.Ioctl(t, fs.fdOf(name), req, arg)
		}
		if err == nil && op.Request.Name == "ID" {
			r.countOp(t, "ioctl.id", true)
			fs.counts["ioctl.id"] = int64(ret)
			result = "id " + strconv.FormatUint(ret, 10)
		}
	case "fcntl":
		r.accessVar(t, name, "fd", cpu.MarkedRead)
		var ret int64
		if op.Owner != nil { // F_SETOWN_EX
			err = k.FcntlSetownEx(t, fs.fdOf(name), int(scenarios.FcntlOwnerTypes[op.Arg.Name]), r.ownerArg(t, op.Owner.Name))
			break
		}
		ret, err = k.Fcntl(t, fs.fdOf(name), fcntlCmds[op.Request.Name], r.fcntlArg(t, op))
		if err == nil && op.Arg == nil {
			result = op.Request.Name + " " + strconv.FormatInt(ret, 10)
		}
	case "mmap":
		prot := pmu.ProtRead | pmu.ProtWrite
		if op.ReadOnly {
			prot = pmu.ProtRead
		}
		var m *pmu.Mapping
		r.accessVar(t, name, "fd", cpu.MarkedRead)
		if op.Aux {
			m, err = mmapAux(t, k, fs.fdOf(name), fs.maps[name], uint64(op.Pages)*pmu.PageSize, prot)
		} else {
			m, err = k.Mmap(t, fs.fdOf(name), 0, uint64(1+op.Pages)*pmu.PageSize, prot)
		}
		if err == nil {
			r.accessVar(t, name, "mappings", cpu.PlainWrite)
			r.countOp(t, "fd.mmaps", false)
			fs.maps[name] = append(fs.maps[name], m)
			fs.counts["fd.mmaps"]++
		}
	case "munmap":
		// The newest mapping of the fd in the task's own mm: a forked
		// child's munmap() cannot reach its parent's VMAs, nor the
		// parent's the child's (threads share one mm, and every mapping).
		ms := fs.maps[name]
		i := len(ms) - 1
		for i >= 0 && !k.MappedIn(t, ms[i]) {
			i--
		}
		if i < 0 {
			r.accessVar(t, name, "mappings", cpu.PlainRead)
			r.countOp(t, "fd.munmap-empty", false)
			fs.counts["fd.munmap-empty"]++
			result = "nothing mapped"
			break
		}
		m := ms[i]
		r.accessVar(t, name, "mappings", cpu.PlainWrite)
		fs.maps[name] = append(ms[:i:i], ms[i+1:]...)
		err = k.Munmap(t, m)
		if err == nil {
			r.countOp(t, "fd.munmaps", false)
			fs.counts["fd.munmaps"]++
		}
	case "read":
		var b []byte
		r.accessVar(t, name, "fd", cpu.MarkedRead)
		b, err = k.Read(t, fs.fdOf(name))
		if err == nil {
			r.countOp(t, "fd.reads", false)
			r.countOp(t, "read.last", true) // fs.last and read.group, read.nr, read.leader-at
			fs.counts["fd.reads"]++
			fs.last = fs.last[:0]
			for i := 0; i+8 <= len(b); i += 8 {
				fs.last = append(fs.last, binary.LittleEndian.Uint64(b[i:]))
			}
			fs.counts["read.group"], fs.counts["read.nr"], fs.counts["read.leader-at"] = 0, 1, 0
			r.markUnaudited(t, "the event's read_format (pmu.Kernel.EventOf)") // the fd table and the event, read with no syscall (footprint_perfops.go)
			if e := k.EventOf(t, fs.fdOf(name)); e != nil && e.Attr.ReadFormat&uapi.PERF_FORMAT_GROUP != 0 && len(fs.last) > 0 {
				rf := e.Attr.ReadFormat
				at := int64(1)
				if rf&uapi.PERF_FORMAT_TOTAL_TIME_ENABLED != 0 {
					at++
				}
				if rf&uapi.PERF_FORMAT_TOTAL_TIME_RUNNING != 0 {
					at++
				}
				fs.counts["read.group"], fs.counts["read.nr"], fs.counts["read.leader-at"] = 1, int64(fs.last[0]), at
				per := int64(1)
				if rf&uapi.PERF_FORMAT_ID != 0 {
					per++
				}
				if rf&uapi.PERF_FORMAT_LOST != 0 {
					per++
				}
				if int64(len(fs.last)) != at+int64(fs.last[0])*per {
					r.countOp(t, "read.group-torn", false)
					fs.counts["read.group-torn"]++
				}
			}
			if fs.counts["read.group"] == 0 && len(fs.last) > 0 {
				r.accessVar(t, name, "last count", cpu.PlainWrite)
				if p, ok := fs.prev[name]; ok && fs.last[0] < p {
					r.countOp(t, "read.decreased", false)
					fs.counts["read.decreased"]++
				}
				fs.prev[name] = fs.last[0]
			}
			result = fmt.Sprintf("%d bytes", len(b))
		}
	}
	c := t.CPUID()
	if err != nil {
		var en uapi.Errno
		if errors.As(err, &en) {
			r.countOp(t, "errno."+en.Name(), false)
			fs.errs[en.Name()]++
		}
		r.countOp(t, "fd.errors", false)
		fs.counts["fd.errors"]++
		r.note(c, "perf-op", fmt.Sprintf("%s: %s: %v", t.Comm, op, err))
		return
	}
	if result != "" {
		result = ": " + result
	}
	r.note(c, "perf-op", fmt.Sprintf("%s: %s%s", t.Comm, op, result))
}

// checkFDNames refuses a perf fd call naming an fd (its own, a group
// leader's, SET_OUTPUT's target) that no open statement of the file binds:
// it could only ever fail with EBADF, which is a typo, not a scenario.
func (r *Run) checkFDNames(op *scenarios.PerfOp, opened map[string]bool) *scenarios.Error {
	refs := []*scenarios.Ident{op.Group}
	if op.Verb != "open" {
		refs = append(refs, op.FD)
	}
	if op.Verb == "ioctl" && op.Request != nil && op.Request.Name == "SET_OUTPUT" {
		refs = append(refs, op.Arg)
	}
	for _, id := range refs {
		if id == nil || opened[id.Name] || id.Name == "-1" {
			continue
		}
		if _, err := strconv.ParseInt(id.Name, 0, 64); err == nil {
			continue // an fd number, as a program may pass one
		}
		names := slices.Sorted(maps.Keys(opened))
		known := "none"
		if len(names) > 0 {
			known = strings.Join(names, ", ")
		}
		return r.File.Errorf(id.Pos, "%s: no open statement in this file names %s (every call on it would fail with EBADF); the fds it opens: %s", op.Verb, id.Name, known)
	}
	return nil
}

// perfOpCalls checks every perf fd call of the file (the tasks' programs and
// the forced actions) and builds its program step.
func (r *Run) perfOpCalls() (map[scenarios.Op]func(*sched.Task), error) {
	out := map[scenarios.Op]func(*sched.Task){}
	var errs scenarios.ErrorList
	opened := map[string]bool{}
	r.eachPerfOp(func(op *scenarios.PerfOp) {
		if op.Verb == "open" {
			opened[op.FD.Name] = true
		}
	})
	add := func(op *scenarios.PerfOp) {
		fn, err := r.perfOpCall(op)
		if err != nil {
			var se *scenarios.Error
			if errors.As(err, &se) {
				errs = append(errs, se)
				return
			}
		}
		if err := r.checkFDNames(op, opened); err != nil {
			errs = append(errs, err)
			return
		}
		out[op] = fn
	}
	var walk func(ops []scenarios.Op)
	walk = func(ops []scenarios.Op) {
		for _, op := range ops {
			switch op := op.(type) {
			case *scenarios.PerfOp:
				add(op)
			case *scenarios.Access:
				kind := map[string]uint32{"r": pmu.HW_BREAKPOINT_R, "w": pmu.HW_BREAKPOINT_W, "x": pmu.HW_BREAKPOINT_X}[op.Kind]
				out[op] = func(t *sched.Task) {
					if k := r.kernelOf(); k != nil {
						k.TouchUser(t, op.Addr, op.Len, kind)
					}
				}
			case *scenarios.Repeat:
				walk(op.Body)
			case *scenarios.Fork:
				walk(r.File.ProgramBody(op)) // a forked child's own perf calls, on its copy of the fds
			}
		}
	}
	for _, t := range r.File.Tasks {
		walk(t.Body)
	}
	for _, f := range r.File.Forces {
		if f.Op != nil {
			add(f.Op)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	r.perfOps = out
	return out, nil
}

// actor is the thread that carries out a forced action: it waits on cpuN
// until the force fires.
type actor struct {
	t        *sched.Task
	q        sched.WaitQueue
	fired    bool
	canceled bool // the file's tasks all exited before the force fired
}

// actorReaper ends the waiting threads of forces that never fired once the
// file's own tasks have all exited: they would otherwise keep the run alive.
type actorReaper struct{ fs *forceState }

// TaskExit implements sched.TaskExitHook.
func (ar actorReaper) TaskExit(t *sched.Task) {
	fs := ar.fs
	if !ar.othersDead(t, nil) {
		return
	}
	for _, f := range fs.forces {
		if a := fs.actors[f]; a != nil && !a.fired {
			a.fired, a.canceled = true, true
			fs.r.S.WakeUpAll(&a.q)
		}
	}
}

// AccessTaskExit implements sched.AnnotatedExitHook: the reaper reads the
// file's other tasks' states (written by their exits); once they are all
// dead it ends the actors still waiting (the runner's device: their
// fired flag and the wake of their threads), which nobody annotated:
// marked.
func (ar actorReaper) AccessTaskExit(t *sched.Task) bool { return !ar.othersDead(t, t.CPU()) }

// othersDead reports whether every task of the file but t has exited or is
// exiting, annotating on c (when not nil) each state it reads, up to the
// first one still alive. One in do_exit() counts as gone: its own exit
// hook has run (the reaper's check at it saw t alive) or will run (and see
// t exiting), so two tasks exiting at once do not both leave the actors
// waiting for a wake nobody sends.
func (ar actorReaper) othersDead(t *sched.Task, c *cpu.CPU) bool {
	for _, ft := range ar.fs.r.File.Tasks {
		if x := ar.fs.r.Tasks[ft.Name]; x != t {
			if c != nil {
				c.AccessMarkedOnly(x, "p->__state", cpu.MarkedRead, "actorReaper")  // the task's state: TASK_DEAD once it exited (do_task_dead())
				c.AccessMarkedOnly(x, "task->flags", cpu.MarkedRead, "actorReaper") // PF_EXITING, set by exit_signals() in do_exit()
			}
			if x.State != sched.Dead && !x.Exiting() {
				return false
			}
		}
	}
	return true
}

// spawnActors starts one waiting thread per forced action, pinned to its
// CPU, sharing the file table and mm of the file's tasks.
func (fs *forceState) spawnActors() error {
	r := fs.r
	for i, f := range fs.forces {
		if f.Kind != scenarios.ForceAction {
			continue
		}
		if fs.actors == nil {
			fs.actors = map[*scenarios.Force]*actor{}
		}
		a := &actor{}
		fn := r.perfOps[f.Op]
		prog := []sched.Op{
			sched.Call(func(t *sched.Task) {
				// pause(): sleep until the force wakes us
				r.S.Syscall(t, "pause", func(t *sched.Task) {
					for !a.fired {
						r.S.Wait(t, &a.q)
					}
				})
			}),
			sched.Call(func(t *sched.Task) {
				if !a.canceled {
					fn(t)
				}
			}),
		}
		a.t = r.S.Spawn(fmt.Sprintf("force%d", i), sched.MaskOf(f.CPU), prog...)
		a.t.StandIn = true // its exit costs nothing (sched.Task.StandIn)
		fs.actors[f] = a
		if len(fs.actors) == 1 {
			r.S.ExitHooks = append(r.S.ExitHooks, actorReaper{fs})
		}
		if k := r.kernelOf(); k != nil {
			if owner := r.firstTask(); owner != nil {
				k.ShareFiles(a.t, owner)
				k.ShareMM(a.t, owner)
			}
		}
	}
	return nil
}

// fireAction wakes the force's thread.
func (fs *forceState) fireAction(f *scenarios.Force) {
	a := fs.actors[f]
	if a == nil || a.fired {
		return
	}
	a.fired = true
	fs.r.S.WakeUpAll(&a.q)
	// The woken thread runs now: the task running on its CPU is preempted
	// (resched_curr(), a reschedule IPI from another CPU), as a wakeup
	// preemption would.
	if cur := sched.TaskOf(fs.r.M.CPUs[f.CPU].Curr()); cur != nil && cur != a.t {
		fs.r.S.ForcePreempt(cur)
	}
}

// firstTask is the file's first task: the owner of the process's file table.
func (r *Run) firstTask() *sched.Task {
	if len(r.File.Tasks) == 0 {
		return nil
	}
	return r.Tasks[r.File.Tasks[0].Name]
}

// shareProcess makes the file's tasks threads of one process: one file
// table and one mm (CLONE_FILES | CLONE_VM).
func (r *Run) shareProcess(k *pmu.Kernel) {
	owner := r.firstTask()
	for _, ft := range r.File.Tasks[min(1, len(r.File.Tasks)):] {
		t := r.Tasks[ft.Name]
		k.ShareFiles(t, owner)
		k.ShareMM(t, owner)
	}
}

// fcntlCmds maps the fcntl commands of "fcntl NAME CMD" to their numbers.
var fcntlCmds = map[string]int{"F_GETFL": pmu.F_GETFL, "F_SETFL": pmu.F_SETFL, "F_SETOWN": pmu.F_SETOWN,
	"F_GETOWN": pmu.F_GETOWN, "F_SETSIG": pmu.F_SETSIG, "F_GETSIG": pmu.F_GETSIG}

// fcntlArg is the argument of an fcntl op: O_ASYNC, a task's pid (self: the
// caller's), a signal number.
func (r *Run) fcntlArg(t *sched.Task, op *scenarios.PerfOp) int64 {
	if op.Arg == nil {
		return 0
	}
	a := op.Arg.Name
	switch {
	case a == "O_ASYNC":
		return pmu.O_ASYNC
	case op.Request.Name == "F_SETSIG":
		if v, ok := scenarios.FcntlSignals[a]; ok {
			return v
		}
	case op.Request.Name == "F_SETOWN" && strings.HasPrefix(a, "-"):
		return -r.ownerArg(t, a[1:]) // -pgid: a process group
	}
	return r.ownerArg(t, a)
}

// ownerArg is the pid an owner names: a number, self (the caller's
// process) or a task of the file (its pid).
func (r *Run) ownerArg(t *sched.Task, a string) int64 {
	if v, err := strconv.ParseInt(a, 0, 64); err == nil {
		return v
	}
	if a == "self" {
		return int64(t.PID)
	}
	if tt := r.Tasks[a]; tt != nil {
		r.accessTask(t, tt, "p->pid") // footprint_perfops.go
		return int64(tt.PID)
	}
	return 1 << 30 // a task not started or gone: no such pid (ESRCH)
}

// fileHasTask reports whether the file declares a task (or forks a thread)
// of that name.
func (r *Run) fileHasTask(name string) bool {
	for _, td := range r.File.Tasks {
		if td.Name == name {
			return true
		}
	}
	return r.Tasks[name] != nil
}

// mmapAux is a program's mmap of fd's AUX area of size bytes, as perf's
// auxtrace_mmap__mmap() makes it: user_page->aux_offset set to the end of
// the data pages and aux_size to size, through the task's own mapping of
// the ring (the newest in its mm), then mmap() at that offset. A task that
// has not mapped the ring has no user page to write: it maps at the page
// after the user page, which perf_mmap() refuses (EINVAL: no buffer, or an
// aux_offset inside the data pages).
// tools/perf/util/auxtrace.c: auxtrace_mmap__mmap()
func mmapAux(t *sched.Task, k *pmu.Kernel, fd int, maps []*pmu.Mapping, size uint64, prot pmu.Prot) (*pmu.Mapping, error) {
	offset := uint64(pmu.PageSize)
	for i := len(maps) - 1; i >= 0; i-- {
		if d := maps[i]; !d.Aux && k.MappedIn(t, d) {
			offset = d.Length
			d.RB.SetUserAux(offset, size, "auxtrace_mmap__mmap")
			break
		}
	}
	return k.Mmap(t, fd, offset/pmu.PageSize, size, prot)
}
