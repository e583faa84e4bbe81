package perftool

import (
	"fmt"
	"strings"

	"perfsim/pmu"
	"perfsim/uapi"
)

var sampleTypeNames = []string{"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU",
	"PERIOD", "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT",
	"DATA_SRC", "IDENTIFIER", "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP",
	"DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT"}

var readFormatNames = []string{"TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST"}

func bitNames(v uint64, names []string) string {
	var out []string
	for i, n := range names {
		if v&(1<<i) != 0 {
			out = append(out, n)
			v &^= 1 << i
		}
	}
	if v != 0 {
		out = append(out, fmt.Sprintf("%#x", v))
	}
	return strings.Join(out, "|")
}

// FprintAttr renders an attr the way `perf record -vv` prints it (perf 6.1
// style: plain numbers; today's tool also names type and config values).
//
// tools/perf/util/perf_event_attr_fprintf.c: perf_event_attr__fprintf()
func FprintAttr(b *strings.Builder, a *pmu.Attr) {
	p := func(name, val string) { fmt.Fprintf(b, "  %-32s %s\n", name, val) }
	u := func(name string, v uint64) {
		if v != 0 {
			p(name, fmt.Sprint(v))
		}
	}
	x := func(name string, v uint64) {
		if v != 0 {
			p(name, fmt.Sprintf("%#x", v))
		}
	}
	f := func(name string, v bool) {
		if v {
			p(name, "1")
		}
	}
	b.WriteString("perf_event_attr:\n")
	u("type", uint64(a.Type))
	u("size", uint64(a.Size))
	x("config", a.Config)
	u("{ sample_period, sample_freq }", a.SamplePeriod)
	if a.SampleType != 0 {
		p("sample_type", bitNames(a.SampleType, sampleTypeNames))
	}
	if a.ReadFormat != 0 {
		p("read_format", bitNames(a.ReadFormat, readFormatNames))
	}
	f("disabled", a.Disabled)
	f("inherit", a.Inherit)
	f("pinned", a.Pinned)
	f("exclusive", a.Exclusive)
	f("exclude_user", a.ExcludeUser)
	f("exclude_kernel", a.ExcludeKernel)
	f("exclude_hv", a.ExcludeHV)
	f("exclude_idle", a.ExcludeIdle)
	f("mmap", a.Mmap)
	f("comm", a.Comm)
	f("freq", a.Freq)
	f("inherit_stat", a.InheritStat)
	f("enable_on_exec", a.EnableOnExec)
	f("task", a.Task)
	f("watermark", a.Watermark)
	u("precise_ip", uint64(a.PreciseIP))
	f("mmap_data", a.MmapData)
	f("sample_id_all", a.SampleIDAll)
	f("exclude_host", a.ExcludeHost)
	f("exclude_guest", a.ExcludeGuest)
	f("exclude_callchain_kernel", a.ExcludeCallchainKernel)
	f("exclude_callchain_user", a.ExcludeCallchainUser)
	f("mmap2", a.Mmap2)
	f("comm_exec", a.CommExec)
	f("use_clockid", a.UseClockid)
	f("context_switch", a.ContextSwitch)
	f("write_backward", a.WriteBackward)
	f("namespaces", a.Namespaces)
	f("ksymbol", a.Ksymbol)
	f("bpf_event", a.BPFEvent)
	f("aux_output", a.AuxOutput)
	f("cgroup", a.Cgroup)
	f("text_poke", a.TextPoke)
	f("build_id", a.BuildID)
	f("inherit_thread", a.InheritThread)
	f("remove_on_exec", a.RemoveOnExec)
	f("sigtrap", a.Sigtrap)
	f("defer_callchain", a.DeferCallchain)
	f("defer_output", a.DeferOutput)
	u("{ wakeup_events, wakeup_watermark }", uint64(a.WakeupEvents))
	u("bp_type", uint64(a.BPType))
	x("{ bp_addr, config1 }", a.Config1)
	x("{ bp_len, config2 }", a.Config2)
	x("branch_sample_type", a.BranchSampleType)
	x("sample_regs_user", a.SampleRegsUser)
	u("sample_stack_user", uint64(a.SampleStackUser))
	u("clockid", uint64(uint32(a.Clockid)))
	x("sample_regs_intr", a.SampleRegsIntr)
	u("aux_watermark", uint64(a.AuxWatermark))
	u("sample_max_stack", uint64(a.SampleMaxStack))
	u("aux_sample_size", uint64(a.AuxSampleSize))
	f("aux_start_paused", a.AuxStartPaused)
	f("aux_pause", a.AuxPause)
	f("aux_resume", a.AuxResume)
	u("sig_data", a.SigData)
	x("config3", a.Config3)
	b.WriteString("------------------------------------------------------------\n")
}

// Open is one perf_event_open() call perf makes for an evsel.
type Open struct {
	Evsel   int // index in Record.Evsels
	PID     int // PIDWorkload for the forked workload, -1 for CPU-wide
	CPU     int
	GroupFD int // -1, or the index of the leader's Open for this CPU/thread
	Flags   uint64
}

// PIDWorkload stands for the pid of the workload perf forks.
const PIDWorkload = -2

// PIDCgroup stands for the fd of the evsel's cgroup directory (-G), which
// the session opens when perf starts.
const PIDCgroup = -4

// PIDTarget stands for each thread of a -p/-t target before the session
// has read its thread map (Record.Threads).
const PIDTarget = -3

// Opens lists the perf_event_open() calls in the order perf makes them:
// evsel by evsel, then CPU by CPU (or the one "any CPU" for --per-thread),
// then thread by thread of a -p/-t target's thread map.
//
// tools/perf/util/evsel.c: evsel__open_cpu()
func (r *Record) Opens(nrCPUs int) []Open {
	cpus := r.cpus(nrCPUs)
	threads := r.threadPIDs()
	n, groups := 0, false
	for i := range r.Evsels {
		if e := &r.Evsels[i]; e.SystemWide {
			n += nrCPUs
		} else {
			n += len(cpus) * len(threads)
		}
		groups = groups || !r.Evsels[i].IsLeader(i)
	}
	out := make([]Open, 0, n)
	type key struct{ evsel, cpu, thread int }
	var first map[key]int // (evsel, cpu, thread) -> index in out, when a member needs its leader's
	if groups {
		first = map[key]int{}
	}
	for i := range r.Evsels {
		e := &r.Evsels[i]
		ecpus, pids := cpus, threads
		if e.SystemWide {
			ecpus, pids = allCPUs(nrCPUs), []int{-1}
		}
		for _, c := range ecpus {
			for ti, pid := range pids {
				g := -1
				if !e.IsLeader(i) {
					g = first[key{e.Leader, c, ti}]
				}
				if groups {
					first[key{i, c, ti}] = len(out)
				}
				o := Open{Evsel: i, PID: pid, CPU: c, GroupFD: g, Flags: uapi.PERF_FLAG_FD_CLOEXEC}
				if e.Cgroup != "" {
					// evsel__open_cpu(): "pid = evsel->cgrp->fd", PERF_FLAG_PID_CGROUP
					o.PID, o.Flags = PIDCgroup, o.Flags|uapi.PERF_FLAG_PID_CGROUP
				}
				out = append(out, o)
			}
		}
	}
	return out
}

// threadPIDs is the evlist's thread map as pids to open on: the forked
// workload, a -p/-t target's threads (PIDTarget until the session has read
// them), or {-1} for a CPU-wide session.
func (r *Record) threadPIDs() []int {
	switch {
	case r.Target.HasTask():
		if r.Threads == nil {
			return []int{PIDTarget}
		}
		return r.Threads
	case r.Target.HasCPU():
		return []int{-1}
	}
	return []int{PIDWorkload}
}

func allCPUs(n int) []int {
	c := make([]int, n)
	for i := range c {
		c[i] = i
	}
	return c
}

func (r *Record) cpus(nrCPUs int) []int {
	switch {
	case r.Target.PerThread:
		return []int{-1}
	case r.Target.CPUList != nil:
		return r.Target.CPUList
	}
	return allCPUs(nrCPUs)
}

// Verbose renders what `perf record -vv` prints about the events it opens
// and the buffers it maps, normalized like testdata/capture.sh does (the
// workload pid as PID, group fds as FD, no returned fds).
func (r *Record) Verbose(nrCPUs int) string {
	var b strings.Builder
	opens := r.Opens(nrCPUs)
	for i := range r.Evsels {
		FprintAttr(&b, &r.Evsels[i].Attr)
		for _, o := range opens {
			if o.Evsel == i {
				writeOpen(&b, o)
			}
		}
	}
	fmt.Fprintf(&b, "mmap size %dB\n", r.MmapBytes())
	for i := range r.SideBand {
		FprintAttr(&b, &r.SideBand[i].Attr)
		for _, o := range r.sideBandOpens(nrCPUs) {
			writeOpen(&b, o)
		}
		if r.Target.PerThread && !r.Target.HasTask() {
			// pid == -1 && cpu == -1: the kernel refuses (perf_event_alloc)
			fmt.Fprintf(&b, "sys_perf_event_open failed, error %d\n", uapi.EINVAL.Neg())
			return b.String()
		}
		fmt.Fprintf(&b, "mmap size %dB\n", (defaultMmapPagesFor(r)+1)*pmu.PageSize)
	}
	return b.String()
}

func defaultMmapPagesFor(r *Record) int { return r.sideBandPages }

// sideBandOpens are the BPF side-band dummy's opens: the side-band evlist
// gets the maps of the record's target (evlist__start_sb_thread() ->
// evlist__create_maps(evlist, target)), so one per CPU with pid -1, or one
// per CPU and thread of a -p/-t target.
// tools/perf/util/sideband_evlist.c: evlist__start_sb_thread()
func (r *Record) sideBandOpens(nrCPUs int) []Open {
	return r.sideBandOpensFor(nrCPUs, r.threadPIDs())
}

// sideBandOpensFor is sideBandOpens with the target's threads as the side
// band's own thread map read them (Session.threadMap).
func (r *Record) sideBandOpensFor(nrCPUs int, threads []int) []Open {
	pids := []int{-1}
	if r.Target.HasTask() {
		pids = threads
	}
	var out []Open
	for _, c := range r.cpus(nrCPUs) {
		for _, pid := range pids {
			out = append(out, Open{PID: pid, CPU: c, GroupFD: -1, Flags: uapi.PERF_FLAG_FD_CLOEXEC})
		}
	}
	return out
}

func writeOpen(b *strings.Builder, o Open) {
	pid := fmt.Sprint(o.PID)
	if o.PID == PIDWorkload || o.PID == PIDTarget {
		pid = "PID"
	}
	g := "-1"
	if o.GroupFD >= 0 {
		g = "FD"
	}
	fmt.Fprintf(b, "sys_perf_event_open: pid %s  cpu %d  group_fd %s  flags %#x\n", pid, o.CPU, g, o.Flags)
}
