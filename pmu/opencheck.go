package pmu

import "perfsim/uapi"

// Attr-level validation done by sys_perf_event_open() before the event is tied
// to a context, in the kernel's order so that an attr with several faults gets
// the errno the kernel returns first. Source: kernel/events/core.c at
// yailabs/yai 5f6e5cf601271d629e5394c937e17e4327c2ddbb (post-v6.19).
//
// The open path, step by step, and who models each step:
//
//	 1 flags & ~PERF_FLAG_ALL -> EINVAL                       CheckOpenArgs
//	 2 perf_copy_attr()                                       CheckCopyAttr
//	 3 security_perf_event_open(OPEN) (LSM)                   not modelled
//	 4 !exclude_kernel: perf_allow_kernel() -> EACCES         CheckOpenArgs
//	 5 namespaces && !perfmon_capable() -> EACCES             CheckOpenArgs
//	 6 freq: sample_freq > max rate; else period bit 63 -> EINVAL  CheckOpenArgs
//	 7 PHYS_ADDR: perf_allow_kernel() -> EACCES               CheckOpenArgs
//	 8 REGS_INTR: security_locked_down(LOCKDOWN_PERF) -> EPERM CheckOpenArgs
//	 9 PID_CGROUP && (pid == -1 || cpu == -1) -> EINVAL        CheckOpenArgs
//	10 get_unused_fd_flags() -> EMFILE                         core (fd table)
//	11 group_fd != -1: not a perf file -> EBADF;
//	   leader state <= REVOKED -> ENODEV;
//	   FD_OUTPUT: output_event = leader; FD_NO_GROUP: no leader  core
//	12 pid != -1 && !PID_CGROUP: find_lively_task_by_vpid() -> ESRCH  core
//	13 task && leader && leader.inherit != attr.inherit -> EINVAL     core
//	14 perf_event_alloc(): cpu range, sigtrap without task,
//	   inherit+SAMPLE_READ without TID -> EINVAL              CheckAllocArgs
//	15 perf_init_event(): no PMU for type -> ENOENT; pmu->event_init()
//	   errors; x86 precise_ip > max_precise -> EOPNOTSUPP;
//	   extended regs without CAP_EXTENDED_REGS -> EOPNOTSUPP;
//	   CAP_NO_EXCLUDE with an exclude bit -> EINVAL           CheckAllocPMU (caps part)
//	16 perf_event_alloc() after init: uncore (perf_invalid_context) with task
//	   or cgroup -> EINVAL; aux_output without CAP_AUX_OUTPUT or with
//	   aux_pause/aux_resume -> EOPNOTSUPP; aux_pause && aux_resume -> EINVAL;
//	   aux_start_paused without CAP_AUX_PAUSE -> EOPNOTSUPP  CheckAllocPMU
//	   perf_cgroup_connect() (EBADF/...), exclusive_event_init() -> EBUSY  core
//	   get_callchain_buffers(): sample_max_stack > max_stack -> EOVERFLOW CheckAllocPMU
//	17 sampling on a CAP_NO_INTERRUPT PMU -> EOPNOTSUPP        CheckSamplingPMU
//	18 use_clockid: perf_event_set_clock() -> EINVAL           CheckClock
//	19 task: perf_check_permission() (ptrace / CAP_KILL for sigtrap) -> EACCES  core
//	20 find_get_context(): !task: perf_allow_cpu() -> EACCES   CheckCPUContext
//	21 ctx->task == TASK_TOMBSTONE -> ESRCH; !task and CPU offline -> ENODEV  core
//	22 leader rules, all -> EINVAL: leader is itself a sibling; different
//	   clock; different cpu; different ctx; sibling with exclusive or pinned;
//	   hw event into a group led by another hw PMU        core
//	23 FD_OUTPUT: perf_event_set_output() -> EINVAL (self, other cpu, other
//	   task for cpu==-1, other clock, write_backward mismatch, two AUX PMUs,
//	   caller already mmapped, output rb gone)            core
//	24 perf_event_validate_size() -> E2BIG                     CheckValidateSize
//	25 perf_need_aux_event() && !perf_get_aux_event() -> EINVAL CheckAuxEvent
//	26 !exclusive_event_installable() -> EBUSY                 core
//
// CheckOpen runs the steps that need nothing but the arguments (1-9, 14) in
// order; the core calls the phase functions itself when it interleaves its own
// checks (10-13 sit between 9 and 14).

// Arch selects the perf_reg_validate() flavour.
type Arch int

const (
	ArchX86_64 Arch = iota // arch/x86/kernel/perf_regs.c
	ArchARM64              // arch/arm64/kernel/perf_regs.c (no SVE)
)

// Sysctl holds the machine facts the open checks read: the kernel.perf_event_*
// sysctls, nr_cpu_ids, config options and the caller's credentials. The zero
// value is not the kernel default; use DefaultSysctl.
type Sysctl struct {
	Paranoid            int  // kernel.perf_event_paranoid (default 2)
	MaxSampleRate       int  // kernel.perf_event_max_sample_rate (default 100000)
	CPUTimeMaxPercent   int  // kernel.perf_cpu_time_max_percent (0: the default 25)
	MaxStack            int  // kernel.perf_event_max_stack (default 127)
	MaxContextsPerStack int  // kernel.perf_event_max_contexts_per_stack (default 8)
	MlockKB             int  // kernel.perf_event_mlock_kb (default 512 + PAGE_SIZE/1024)
	NrCPUIDs            int  // nr_cpu_ids
	PerfmonCapable      bool // perfmon_capable(): CAP_PERFMON or CAP_SYS_ADMIN
	LockdownPerf        bool // security_locked_down(LOCKDOWN_PERF) refuses
	NoCgroupPerf        bool // !CONFIG_CGROUP_PERF
	NoUserStackDump     bool // !arch_perf_have_user_stack_dump()
	Arch                Arch
}

// DefaultSysctl returns the kernel defaults for an unprivileged caller on an
// x86_64 machine with nrCPUs CPUs.
func DefaultSysctl(nrCPUs int) Sysctl {
	return Sysctl{
		Paranoid:            2,
		MaxSampleRate:       100000,
		MaxStack:            127,
		MaxContextsPerStack: 8,
		MlockKB:             512 + PageSize/1024,
		NrCPUIDs:            nrCPUs,
	}
}

// CheckOpen runs, in the kernel's order, every perf_event_open() check that
// needs only the syscall arguments: CheckOpenArgs (steps 1-9) then
// CheckAllocArgs (step 14). It updates attr as perf_copy_attr() does
// (branch_sample_type privilege propagation, sample_max_stack default) and
// clears branch_sample_type without a branch stack as perf_event_alloc() does.
// groupFD is not validated here (step 11 needs the fd table): it is taken to
// name no task for the "has task" question, which only pid decides.
//
// kernel/events/core.c: sys_perf_event_open() (argument checks)
func CheckOpen(attr *Attr, pid, cpu, groupFD int, flags uint64, sys Sysctl) error {
	_ = groupFD
	if err := CheckOpenArgs(attr, pid, cpu, flags, sys); err != nil {
		return err
	}
	hasTask := pid != -1 && flags&uapi.PERF_FLAG_PID_CGROUP == 0
	return CheckAllocArgs(attr, cpu, hasTask, sys)
}

// CheckOpenArgs is steps 1-9: everything sys_perf_event_open() checks before
// it allocates the fd.
//
// kernel/events/core.c: sys_perf_event_open() up to get_unused_fd_flags()
func CheckOpenArgs(attr *Attr, pid, cpu int, flags uint64, sys Sysctl) error {
	// "for future expandability...": if (flags & ~PERF_FLAG_ALL) return -EINVAL;
	if flags&^uapi.PERF_FLAG_ALL != 0 {
		return uapi.EINVAL
	}
	if err := CheckCopyAttr(attr, sys); err != nil {
		return err
	}
	// if (!attr.exclude_kernel) { err = perf_allow_kernel(); }
	if !attr.ExcludeKernel {
		if err := perfAllowKernel(sys); err != nil {
			return err
		}
	}
	// if (attr.namespaces) { if (!perfmon_capable()) return -EACCES; }
	if attr.Namespaces && !sys.PerfmonCapable {
		return uapi.EACCES
	}
	if attr.Freq {
		// if (attr.sample_freq > sysctl_perf_event_sample_rate) return -EINVAL;
		if attr.SampleFreq() > uint64(sys.MaxSampleRate) {
			return uapi.EINVAL
		}
	} else if attr.SamplePeriod&(1<<63) != 0 {
		// if (attr.sample_period & (1ULL << 63)) return -EINVAL;
		return uapi.EINVAL
	}
	// "Only privileged users can get physical addresses"
	if attr.SampleType&uapi.PERF_SAMPLE_PHYS_ADDR != 0 {
		if err := perfAllowKernel(sys); err != nil {
			return err
		}
	}
	// "REGS_INTR can leak data, lockdown must prevent this"
	if attr.SampleType&uapi.PERF_SAMPLE_REGS_INTR != 0 && sys.LockdownPerf {
		return uapi.EPERM
	}
	// if ((flags & PERF_FLAG_PID_CGROUP) && (pid == -1 || cpu == -1)) return -EINVAL;
	if flags&uapi.PERF_FLAG_PID_CGROUP != 0 && (pid == -1 || cpu == -1) {
		return uapi.EINVAL
	}
	return nil
}

// perfAllowKernel models kernel/events/core.c: perf_allow_kernel()
// (security_perf_event_open(PERF_SECURITY_KERNEL) is not modelled).
func perfAllowKernel(sys Sysctl) error {
	if sys.Paranoid > 1 && !sys.PerfmonCapable {
		return uapi.EACCES
	}
	return nil
}

// CheckCPUContext is step 20: a CPU-wide event (no task) needs
// perf_allow_cpu(). Call it after the PMU is known, as find_get_context() runs
// after perf_event_alloc().
//
// kernel/events/core.c: find_get_context() -> perf_allow_cpu()
func CheckCPUContext(hasTask bool, sys Sysctl) error {
	if !hasTask && sys.Paranoid > 0 && !sys.PerfmonCapable {
		return uapi.EACCES
	}
	return nil
}

// CheckAllocArgs is the part of perf_event_alloc() that runs before
// perf_init_event(): it needs only cpu and whether a task is targeted.
// It clears branch_sample_type when there is no branch stack, as the kernel's
// copy of the attr does.
//
// kernel/events/core.c: perf_event_alloc() (before perf_init_event())
func CheckAllocArgs(attr *Attr, cpu int, hasTask bool, sys Sysctl) error {
	// if ((unsigned)cpu >= nr_cpu_ids) { if (!task || cpu != -1) return ERR_PTR(-EINVAL); }
	if cpu < 0 || cpu >= sys.NrCPUIDs {
		if !hasTask || cpu != -1 {
			return uapi.EINVAL
		}
	}
	// if (attr->sigtrap && !task) "Requires a task: avoid signalling random tasks."
	if attr.Sigtrap && !hasTask {
		return uapi.EINVAL
	}
	// if (has_inherit_and_sample_read(attr) && !(attr->sample_type & PERF_SAMPLE_TID))
	if attr.Inherit && attr.SampleType&uapi.PERF_SAMPLE_READ != 0 && attr.SampleType&uapi.PERF_SAMPLE_TID == 0 {
		return uapi.EINVAL
	}
	// if (!has_branch_stack(event)) event->attr.branch_sample_type = 0;
	if attr.SampleType&uapi.PERF_SAMPLE_BRANCH_STACK == 0 {
		attr.BranchSampleType = 0
	}
	return nil
}
