package pmu

import "perfsim/uapi"

// CopyAttr is perf_copy_attr() whole: UnmarshalAttr (the size rules) followed by
// CheckCopyAttr (the semantic checks and attr fix-ups).
//
// kernel/events/core.c: perf_copy_attr()
func CopyAttr(uattr []byte, sys Sysctl) (Attr, error) {
	a, err := UnmarshalAttr(uattr)
	if err != nil {
		return Attr{}, err
	}
	if err := CheckCopyAttr(&a, sys); err != nil {
		return Attr{}, err
	}
	return a, nil
}

// CheckCopyAttr is the semantic half of perf_copy_attr(), in its order. It
// fills what the kernel fills in its copy: branch_sample_type privilege levels
// when none were given, and sample_max_stack = kernel.perf_event_max_stack
// when zero. Note the kernel's quirk, kept here: a bad sample_regs_intr is
// reported only if none of the later checks fails first.
//
// kernel/events/core.c: perf_copy_attr() (after copy_struct_from_user())
func CheckCopyAttr(attr *Attr, sys Sysctl) error {
	// Model guard, not a kernel check: precise_ip is a 2-bit field, so values
	// above 3 cannot reach the kernel at all.
	if attr.PreciseIP > 3 {
		return uapi.EINVAL
	}
	// if (attr->__reserved_1 || attr->__reserved_2 || attr->__reserved_3) return -EINVAL;
	if attr.Reserved1 != 0 || attr.Reserved2 != 0 || attr.Reserved3 != 0 {
		return uapi.EINVAL
	}
	// if (attr->sample_type & ~(PERF_SAMPLE_MAX-1)) return -EINVAL;
	if attr.SampleType&^(uapi.PERF_SAMPLE_MAX-1) != 0 {
		return uapi.EINVAL
	}
	// if (attr->read_format & ~(PERF_FORMAT_MAX-1)) return -EINVAL;
	if attr.ReadFormat&^(uapi.PERF_FORMAT_MAX-1) != 0 {
		return uapi.EINVAL
	}
	if attr.SampleType&uapi.PERF_SAMPLE_BRANCH_STACK != 0 {
		mask := attr.BranchSampleType
		// "only using defined bits"
		if mask&^(uapi.PERF_SAMPLE_BRANCH_MAX-1) != 0 {
			return uapi.EINVAL
		}
		// "at least one branch bit must be set"
		if mask&^uapi.PERF_SAMPLE_BRANCH_PLM_ALL == 0 {
			return uapi.EINVAL
		}
		// "propagate priv level, when not set for branch"
		if mask&uapi.PERF_SAMPLE_BRANCH_PLM_ALL == 0 {
			if !attr.ExcludeKernel {
				mask |= uapi.PERF_SAMPLE_BRANCH_KERNEL
			}
			if !attr.ExcludeUser {
				mask |= uapi.PERF_SAMPLE_BRANCH_USER
			}
			if !attr.ExcludeHV {
				mask |= uapi.PERF_SAMPLE_BRANCH_HV
			}
			attr.BranchSampleType = mask
		}
		// "privileged levels capture (kernel, hv): check permissions"
		if mask&uapi.PERF_SAMPLE_BRANCH_PERM_PLM != 0 {
			if err := perfAllowKernel(sys); err != nil {
				return err
			}
		}
	}
	if attr.SampleType&uapi.PERF_SAMPLE_REGS_USER != 0 {
		if err := perfRegValidate(attr.SampleRegsUser, sys.Arch); err != nil {
			return err
		}
	}
	if attr.SampleType&uapi.PERF_SAMPLE_STACK_USER != 0 {
		if sys.NoUserStackDump {
			return uapi.ENOSYS
		}
		// "we can only use __u16 as maximum due to the __u16 sample size limit"
		if attr.SampleStackUser >= 0xffff {
			return uapi.EINVAL
		} else if attr.SampleStackUser%8 != 0 {
			return uapi.EINVAL
		}
	}
	// if (!attr->sample_max_stack) attr->sample_max_stack = sysctl_perf_event_max_stack;
	if attr.SampleMaxStack == 0 {
		attr.SampleMaxStack = uint16(sys.MaxStack)
	}
	var ret error
	// if (attr->sample_type & PERF_SAMPLE_REGS_INTR) ret = perf_reg_validate(...);  (no return!)
	if attr.SampleType&uapi.PERF_SAMPLE_REGS_INTR != 0 {
		ret = perfRegValidate(attr.SampleRegsIntr, sys.Arch)
	}
	// #ifndef CONFIG_CGROUP_PERF: PERF_SAMPLE_CGROUP -> -EINVAL
	if sys.NoCgroupPerf && attr.SampleType&uapi.PERF_SAMPLE_CGROUP != 0 {
		return uapi.EINVAL
	}
	// WEIGHT and WEIGHT_STRUCT are exclusive
	if attr.SampleType&uapi.PERF_SAMPLE_WEIGHT != 0 && attr.SampleType&uapi.PERF_SAMPLE_WEIGHT_STRUCT != 0 {
		return uapi.EINVAL
	}
	// if (!attr->inherit && attr->inherit_thread) return -EINVAL;
	if !attr.Inherit && attr.InheritThread {
		return uapi.EINVAL
	}
	// if (attr->remove_on_exec && attr->enable_on_exec) return -EINVAL;
	if attr.RemoveOnExec && attr.EnableOnExec {
		return uapi.EINVAL
	}
	// if (attr->sigtrap && !attr->remove_on_exec) return -EINVAL;
	if attr.Sigtrap && !attr.RemoveOnExec {
		return uapi.EINVAL
	}
	return ret
}

// perfRegValidate models perf_reg_validate() of the two simulated arches:
//   - x86_64 (arch/x86/kernel/perf_regs.c): mask == 0, DS/ES/FS/GS (bits
//     12-15, REG_NOSUPPORT on 64-bit) or the reserved bits 24-31 between R15
//     and XMM0 (PERF_REG_X86_RESERVED) -> EINVAL. XMM bits 32-63 pass here and
//     are refused later without PERF_PMU_CAP_EXTENDED_REGS.
//   - arm64 (arch/arm64/kernel/perf_regs.c, no SVE): mask == 0 or any bit at
//     or above PERF_REG_ARM64_MAX (33) -> EINVAL.
func perfRegValidate(mask uint64, arch Arch) error {
	var bad uint64
	switch arch {
	case ArchARM64:
		bad = ^uint64(1<<33 - 1)
	default:
		bad = 0xf<<12 | 0xff<<24
	}
	if mask == 0 || mask&bad != 0 {
		return uapi.EINVAL
	}
	return nil
}

// x86ExtendedRegs is PERF_REG_EXTENDED_MASK on x86 (the XMM registers).
const x86ExtendedRegs = ^uint64(1<<32 - 1)
