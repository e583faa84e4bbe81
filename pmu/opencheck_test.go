package pmu

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/uapi"
)

// okAttr is what an unprivileged `perf record -e cpu-clock:u` passes: it
// survives every check under the default sysctls.
func okAttr() Attr {
	return Attr{
		Type: uapi.PERF_TYPE_SOFTWARE, Size: uapi.AttrSize, Config: uapi.PERF_COUNT_SW_CPU_CLOCK,
		SamplePeriod: 4000, Freq: true,
		SampleType: uapi.PERF_SAMPLE_IP | uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME | uapi.PERF_SAMPLE_PERIOD,
		ReadFormat: uapi.PERF_FORMAT_ID | uapi.PERF_FORMAT_LOST,
		Disabled:   true, Inherit: true, ExcludeKernel: true, ExcludeHV: true, EnableOnExec: true,
		SampleIDAll: true,
	}
}

type openCase struct {
	name  string // the check, as kernel/events/core.c writes it
	attr  func(*Attr)
	pid   int
	cpu   int
	flags uint64
	sys   func(*Sysctl)
	want  error
}

func runOpenCases(t *testing.T, cases []openCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			a := okAttr()
			if tt.attr != nil {
				tt.attr(&a)
			}
			sys := DefaultSysctl(4)
			if tt.sys != nil {
				tt.sys(&sys)
			}
			if got := CheckOpen(&a, tt.pid, tt.cpu, -1, tt.flags, sys); got != tt.want {
				t.Errorf("CheckOpen = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCheckOpenFlags(t *testing.T) {
	runOpenCases(t, []openCase{
		{name: "flags & ~PERF_FLAG_ALL: unknown flag", flags: 1 << 4, want: uapi.EINVAL},
		{name: "FD_CLOEXEC is a known flag", flags: uapi.PERF_FLAG_FD_CLOEXEC, want: nil},
		{name: "FD_NO_GROUP|FD_OUTPUT are known", flags: uapi.PERF_FLAG_FD_NO_GROUP | uapi.PERF_FLAG_FD_OUTPUT, want: nil},
		{name: "unknown flag checked before the attr", flags: 1 << 10,
			attr: func(a *Attr) { a.Reserved1 = 1 }, want: uapi.EINVAL},
		{name: "PID_CGROUP && pid == -1", pid: -1, cpu: 0, flags: uapi.PERF_FLAG_PID_CGROUP,
			sys: func(s *Sysctl) { s.PerfmonCapable = true }, want: uapi.EINVAL},
		{name: "PID_CGROUP && cpu == -1", pid: 5, cpu: -1, flags: uapi.PERF_FLAG_PID_CGROUP, want: uapi.EINVAL},
		{name: "PID_CGROUP with cgroup fd and cpu", pid: 5, cpu: 1, flags: uapi.PERF_FLAG_PID_CGROUP, want: nil},
	})
}

func TestCheckOpenCopyAttr(t *testing.T) {
	runOpenCases(t, []openCase{
		{name: "__reserved_1", attr: func(a *Attr) { a.Reserved1 = 1 << 23 }, want: uapi.EINVAL},
		{name: "__reserved_2", attr: func(a *Attr) { a.Reserved2 = 1 }, want: uapi.EINVAL},
		{name: "__reserved_3 (aux_action bit 3)", attr: func(a *Attr) { a.SetAuxAction(8) }, want: uapi.EINVAL},
		{name: "sample_type & ~(PERF_SAMPLE_MAX-1)", attr: func(a *Attr) { a.SampleType |= uapi.PERF_SAMPLE_MAX }, want: uapi.EINVAL},
		{name: "read_format & ~(PERF_FORMAT_MAX-1)", attr: func(a *Attr) { a.ReadFormat |= uapi.PERF_FORMAT_MAX }, want: uapi.EINVAL},
		{name: "branch: mask & ~(PERF_SAMPLE_BRANCH_MAX-1)", attr: func(a *Attr) {
			a.SampleType |= uapi.PERF_SAMPLE_BRANCH_STACK
			a.BranchSampleType = uapi.PERF_SAMPLE_BRANCH_ANY | uapi.PERF_SAMPLE_BRANCH_MAX
		}, want: uapi.EINVAL},
		{name: "branch: at least one branch bit must be set", attr: func(a *Attr) {
			a.SampleType |= uapi.PERF_SAMPLE_BRANCH_STACK
			a.BranchSampleType = uapi.PERF_SAMPLE_BRANCH_USER
		}, want: uapi.EINVAL},
		{name: "branch: kernel priv level propagated from !exclude_kernel needs perf_allow_kernel", attr: func(a *Attr) {
			a.SampleType |= uapi.PERF_SAMPLE_BRANCH_STACK
			a.BranchSampleType = uapi.PERF_SAMPLE_BRANCH_ANY
			a.ExcludeKernel = false
		}, want: uapi.EACCES},
		{name: "branch: user-only propagation is allowed", attr: func(a *Attr) {
			a.SampleType |= uapi.PERF_SAMPLE_BRANCH_STACK
			a.BranchSampleType = uapi.PERF_SAMPLE_BRANCH_ANY
		}, want: nil},
		{name: "branch: explicit BRANCH_KERNEL needs perf_allow_kernel", attr: func(a *Attr) {
			a.SampleType |= uapi.PERF_SAMPLE_BRANCH_STACK
			a.BranchSampleType = uapi.PERF_SAMPLE_BRANCH_ANY | uapi.PERF_SAMPLE_BRANCH_KERNEL
		}, want: uapi.EACCES},
		{name: "REGS_USER: perf_reg_validate(0)", attr: func(a *Attr) { a.SampleType |= uapi.PERF_SAMPLE_REGS_USER }, want: uapi.EINVAL},
		{name: "REGS_USER: x86_64 REG_NOSUPPORT (DS)", attr: func(a *Attr) {
			a.SampleType |= uapi.PERF_SAMPLE_REGS_USER
			a.SampleRegsUser = 1 << 12
		}, want: uapi.EINVAL},
		{name: "REGS_USER: x86_64 PERF_REG_X86_RESERVED (bit 24)", attr: func(a *Attr) {
			a.SampleType |= uapi.PERF_SAMPLE_REGS_USER
			a.SampleRegsUser = 1 << 24
		}, want: uapi.EINVAL},
		{name: "REGS_USER: arm64 bit 33 (>= PERF_REG_ARM64_MAX)", attr: func(a *Attr) {
			a.SampleType |= uapi.PERF_SAMPLE_REGS_USER
			a.SampleRegsUser = 1 << 33
		}, sys: func(s *Sysctl) { s.Arch = ArchARM64 }, want: uapi.EINVAL},
		{name: "REGS_USER: AX..IP fine", attr: func(a *Attr) {
			a.SampleType |= uapi.PERF_SAMPLE_REGS_USER
			a.SampleRegsUser = 0x1ff
		}, want: nil},
		{name: "STACK_USER: !arch_perf_have_user_stack_dump -> ENOSYS", attr: func(a *Attr) {
			a.SampleType |= uapi.PERF_SAMPLE_STACK_USER
			a.SampleStackUser = 8192
		}, sys: func(s *Sysctl) { s.NoUserStackDump = true }, want: uapi.ENOSYS},
		{name: "STACK_USER: sample_stack_user >= USHRT_MAX", attr: func(a *Attr) {
			a.SampleType |= uapi.PERF_SAMPLE_STACK_USER
			a.SampleStackUser = 0xffff
		}, want: uapi.EINVAL},
		{name: "STACK_USER: !IS_ALIGNED(sample_stack_user, 8)", attr: func(a *Attr) {
			a.SampleType |= uapi.PERF_SAMPLE_STACK_USER
			a.SampleStackUser = 8188
		}, want: uapi.EINVAL},
		{name: "STACK_USER: 65528 is aligned and below USHRT_MAX", attr: func(a *Attr) {
			a.SampleType |= uapi.PERF_SAMPLE_STACK_USER
			a.SampleStackUser = 65528
		}, want: nil},
		{name: "REGS_INTR: perf_reg_validate error is returned at the end", attr: func(a *Attr) {
			a.SampleType |= uapi.PERF_SAMPLE_REGS_INTR
		}, want: uapi.EINVAL},
		{name: "!CONFIG_CGROUP_PERF && SAMPLE_CGROUP", attr: func(a *Attr) { a.SampleType |= uapi.PERF_SAMPLE_CGROUP },
			sys: func(s *Sysctl) { s.NoCgroupPerf = true }, want: uapi.EINVAL},
		{name: "SAMPLE_CGROUP with CONFIG_CGROUP_PERF", attr: func(a *Attr) { a.SampleType |= uapi.PERF_SAMPLE_CGROUP }, want: nil},
		{name: "WEIGHT && WEIGHT_STRUCT", attr: func(a *Attr) { a.SampleType |= uapi.PERF_SAMPLE_WEIGHT_TYPE }, want: uapi.EINVAL},
		{name: "!inherit && inherit_thread", attr: func(a *Attr) { a.Inherit, a.InheritThread = false, true }, want: uapi.EINVAL},
		{name: "remove_on_exec && enable_on_exec", attr: func(a *Attr) { a.RemoveOnExec = true }, want: uapi.EINVAL},
		{name: "sigtrap && !remove_on_exec", attr: func(a *Attr) { a.Sigtrap = true }, want: uapi.EINVAL},
		{name: "sigtrap && remove_on_exec, task given", attr: func(a *Attr) {
			a.Sigtrap, a.RemoveOnExec, a.EnableOnExec = true, true, false
		}, want: nil},
		{name: "model guard: precise_ip does not fit 2 bits", attr: func(a *Attr) { a.PreciseIP = 4 }, want: uapi.EINVAL},
	})
}

func TestCheckOpenPrivilegeAndPeriod(t *testing.T) {
	root := func(s *Sysctl) { s.PerfmonCapable = true }
	runOpenCases(t, []openCase{
		{name: "!exclude_kernel: perf_allow_kernel, paranoid 2", attr: func(a *Attr) { a.ExcludeKernel = false }, want: uapi.EACCES},
		{name: "!exclude_kernel: paranoid 1 allows", attr: func(a *Attr) { a.ExcludeKernel = false },
			sys: func(s *Sysctl) { s.Paranoid = 1 }, want: nil},
		{name: "!exclude_kernel: perfmon_capable allows", attr: func(a *Attr) { a.ExcludeKernel = false }, sys: root, want: nil},
		{name: "namespaces && !perfmon_capable", attr: func(a *Attr) { a.Namespaces = true },
			sys: func(s *Sysctl) { s.Paranoid = -1 }, want: uapi.EACCES},
		{name: "freq: sample_freq > sysctl_perf_event_sample_rate", attr: func(a *Attr) { a.SetSampleFreq(100001) }, want: uapi.EINVAL},
		{name: "freq: sample_freq == max rate", attr: func(a *Attr) { a.SetSampleFreq(100000) }, want: nil},
		{name: "freq: the limit is the sysctl", attr: func(a *Attr) { a.SetSampleFreq(4000) },
			sys: func(s *Sysctl) { s.MaxSampleRate = 1000 }, want: uapi.EINVAL},
		{name: "!freq: sample_period & (1ULL << 63)", attr: func(a *Attr) { a.Freq, a.SamplePeriod = false, 1<<63 }, want: uapi.EINVAL},
		{name: "!freq: huge period below bit 63", attr: func(a *Attr) { a.Freq, a.SamplePeriod = false, 1<<63-1 }, want: nil},
		{name: "PHYS_ADDR: perf_allow_kernel", attr: func(a *Attr) { a.SampleType |= uapi.PERF_SAMPLE_PHYS_ADDR }, want: uapi.EACCES},
		{name: "REGS_INTR: security_locked_down(LOCKDOWN_PERF)", attr: func(a *Attr) {
			a.SampleType |= uapi.PERF_SAMPLE_REGS_INTR
			a.SampleRegsIntr = 0xff
		}, sys: func(s *Sysctl) { s.LockdownPerf = true }, want: uapi.EPERM},
		{name: "copy_attr errors come before privilege", attr: func(a *Attr) { a.ExcludeKernel, a.Reserved2 = false, 1 }, want: uapi.EINVAL},
	})
}

func TestCheckOpenAlloc(t *testing.T) {
	runOpenCases(t, []openCase{
		{name: "pid == -1 && cpu == -1: (unsigned)cpu >= nr_cpu_ids without task", pid: -1, cpu: -1, want: uapi.EINVAL},
		{name: "cpu >= nr_cpu_ids with a task (EINVAL, not ENODEV)", pid: 0, cpu: 4, want: uapi.EINVAL},
		{name: "cpu < -1", pid: 0, cpu: -2, want: uapi.EINVAL},
		{name: "cpu-wide event on a valid cpu", pid: -1, cpu: 3, want: nil},
		{name: "task event on any cpu", pid: 0, cpu: -1, want: nil},
		{name: "sigtrap && !task (cpu-wide)", pid: -1, cpu: 0, attr: func(a *Attr) {
			a.Sigtrap, a.RemoveOnExec, a.EnableOnExec = true, true, false
		}, want: uapi.EINVAL},
		{name: "sigtrap && !task (PID_CGROUP: pid is a cgroup fd)", pid: 5, cpu: 0, flags: uapi.PERF_FLAG_PID_CGROUP, attr: func(a *Attr) {
			a.Sigtrap, a.RemoveOnExec, a.EnableOnExec = true, true, false
		}, want: uapi.EINVAL},
		{name: "has_inherit_and_sample_read && !SAMPLE_TID", attr: func(a *Attr) {
			a.SampleType = uapi.PERF_SAMPLE_IP | uapi.PERF_SAMPLE_READ
		}, want: uapi.EINVAL},
		{name: "inherit + SAMPLE_READ + SAMPLE_TID is allowed", attr: func(a *Attr) {
			a.SampleType |= uapi.PERF_SAMPLE_READ
		}, want: nil},
		{name: "SAMPLE_READ without inherit", attr: func(a *Attr) {
			a.SampleType, a.Inherit = uapi.PERF_SAMPLE_IP|uapi.PERF_SAMPLE_READ, false
		}, want: nil},
	})
}

func TestCheckOpenFixups(t *testing.T) {
	sys := DefaultSysctl(2)
	a := okAttr()
	a.SampleType |= uapi.PERF_SAMPLE_BRANCH_STACK
	a.BranchSampleType = uapi.PERF_SAMPLE_BRANCH_ANY_CALL
	if err := CheckOpen(&a, 0, -1, -1, 0, sys); err != nil {
		t.Fatal(err)
	}
	b := okAttr()
	b.BranchSampleType = uapi.PERF_SAMPLE_BRANCH_ANY // no BRANCH_STACK: perf_event_alloc clears it
	if err := CheckOpen(&b, 0, -1, -1, 0, sys); err != nil {
		t.Fatal(err)
	}
	got := []uint64{a.BranchSampleType, uint64(a.SampleMaxStack), b.BranchSampleType}
	// exclude_kernel, !exclude_user, exclude_hv: only USER is propagated;
	// sample_max_stack = sysctl_perf_event_max_stack.
	want := []uint64{uapi.PERF_SAMPLE_BRANCH_ANY_CALL | uapi.PERF_SAMPLE_BRANCH_USER, 127, 0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fixups (-want +got):\n%s", diff)
	}
}

func TestCopyAttr(t *testing.T) {
	sys := DefaultSysctl(2)
	a := okAttr()
	a.Size = uapi.PERF_ATTR_SIZE_VER5
	got, err := CopyAttr(a.Marshal()[:uapi.PERF_ATTR_SIZE_VER5], sys)
	if err != nil {
		t.Fatal(err)
	}
	want := okAttr()
	want.Size, want.SampleMaxStack = uapi.PERF_ATTR_SIZE_VER5, 127
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CopyAttr (-want +got):\n%s", diff)
	}
	a.Reserved1 = 1
	if _, err := CopyAttr(a.Marshal(), sys); err != uapi.EINVAL {
		t.Errorf("CopyAttr with __reserved_1 = %v, want EINVAL", err)
	}
}

func TestCPUContext(t *testing.T) {
	tests := []struct {
		name    string
		hasTask bool
		sys     Sysctl
		want    error
	}{
		{"perf_allow_cpu: paranoid 2, cpu-wide", false, DefaultSysctl(2), uapi.EACCES},
		{"perf_allow_cpu: paranoid 0, cpu-wide", false, Sysctl{Paranoid: 0}, nil},
		{"perf_allow_cpu: perfmon_capable", false, Sysctl{Paranoid: 2, PerfmonCapable: true}, nil},
		{"task context: no perf_allow_cpu", true, DefaultSysctl(2), nil},
	}
	for _, tt := range tests {
		if got := CheckCPUContext(tt.hasTask, tt.sys); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}
