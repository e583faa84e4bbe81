package runner

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"perfsim/perftool"
	"perfsim/scenarios"
	"perfsim/sched"
	"perfsim/uapi"
)

func tableSyscallNames() []string {
	var out []string
	for _, sc := range uapi.Syscalls() {
		out = append(out, sc.Name)
		if tn := sc.TraceName(); tn != "" && tn != sc.Name {
			if _, ok := uapi.LookupSyscall(tn); ok {
				out = append(out, tn)
			}
		}
	}
	sort.Strings(out)
	return out
}

// syscallArgNames are a syscall's argument names as its
// syscalls:sys_enter_NAME format file gives them (after __syscall_nr).
func syscallArgNames(name string) ([]string, bool) {
	sc, ok := uapi.LookupSyscall(name)
	if !ok || sc.TraceName() == "" {
		return nil, false
	}
	tp, ok := perftool.LookupTracepoint("syscalls", "sys_enter_"+sc.TraceName())
	if !ok {
		return nil, false
	}
	var out []string
	for _, f := range tp.Fields[1:] {
		out = append(out, perftool.FieldName(f.Decl))
	}
	return out, true
}

// SyscallArgNames implements scenarios.SyscallRegistry.
func (r *SimRegistry) SyscallArgNames(name string) ([]string, bool) { return syscallArgNames(name) }

// SyscallConst implements scenarios.SyscallRegistry: uapi.SyscallConsts.
func (r *SimRegistry) SyscallConst(name string) (int64, bool) {
	v, ok := uapi.SyscallConsts[name]
	return v, ok
}

// sysArg is the scheduler's form of a checked argument: constants resolved
// and |-joined terms or'ed, a variable left to the run; an int argument
// (regValue).
func sysArg(a scenarios.SysArg) sched.SysArg { return sysArgOf(a, false) }

// sysArgOf is sysArg of an argument whose C type is wide (off_t, loff_t,
// size_t, a pointer: wideArg) or not.
func sysArgOf(a scenarios.SysArg, wide bool) sched.SysArg {
	if a.IsStr {
		return sched.SysArg{Str: a.Str, IsStr: true}
	}
	var v uint64
	for _, t := range a.Terms {
		switch c, ok := uapi.SyscallConsts[t.Name]; {
		case t.Name == "" && wide:
			v |= uint64(t.Value)
		case t.Name == "":
			v |= regValue(t.Value)
		case ok:
			v |= regValue(c)
		default:
			return sched.SysArg{Var: t.Name}
		}
	}
	return sched.SysArg{Val: v}
}

// regValue is the register a program's number arrives in: a negative value
// that fits an int (-1, AT_FDCWD) is an int, which glibc's wrappers load with
// a 32-bit move, so the upper half is zero (close(-1) traces "fd:
// 0xffffffff", as the real one does); a larger one is a long.
// sysdeps/unix/sysv/linux/x86_64/sysdep.h (glibc): TYPEFY(), ARGIFY()
func regValue(v int64) uint64 {
	if v < 0 && v >= math.MinInt32 {
		return uint64(uint32(int32(v)))
	}
	return uint64(v)
}

// sysArgs are the arguments of syscall name: each as wide as its C type.
func sysArgs(name string, as []scenarios.SysArg) []sched.SysArg {
	var out []sched.SysArg
	wide := wideArgs(name)
	for i, a := range as {
		out = append(out, sysArgOf(a, i < len(wide) && wide[i]))
	}
	return out
}

// wideArgs says, for each argument of syscall name, whether its type is
// 64 bits wide in the wrapper too (off_t, loff_t, size_t, ssize_t, long, a
// pointer), so that a negative number is sign-extended to 64 bits: lseek(fd,
// -5, SEEK_CUR) passes 0xfffffffffffffffb, where close(-1)'s int is
// 0xffffffff. The types are the syscall's sys_enter fields' (its
// SYSCALL_DEFINE); an unsigned long the wrapper declares int (mmap's fd,
// prot, flags) keeps regValue's int rule.
// include/linux/syscalls.h: SYSCALL_DEFINEx(); glibc: the wrappers' prototypes
func wideArgs(name string) []bool {
	sc, ok := uapi.LookupSyscall(name)
	if !ok || sc.TraceName() == "" {
		return nil
	}
	tp, ok := perftool.LookupTracepoint("syscalls", "sys_enter_"+sc.TraceName())
	if !ok {
		return nil
	}
	var out []bool
	for _, f := range tp.Fields[1:] {
		ty := strings.TrimSpace(strings.TrimSuffix(f.Decl, perftool.FieldName(f.Decl)))
		switch {
		case strings.HasSuffix(ty, "*"), ty == "off_t", ty == "loff_t", ty == "size_t", ty == "ssize_t", ty == "long":
			out = append(out, true)
		default:
			out = append(out, false)
		}
	}
	return out
}

// describeSyscalls is what simrun names syscalls prints: each syscall with
// its number and arguments, then the constants.
func describeSyscalls() []NameEntry {
	var out []NameEntry
	for _, n := range knownSyscalls {
		sc, _ := uapi.LookupSyscall(n)
		d := fmt.Sprintf("nr %d", sc.Nr)
		if args, ok := syscallArgNames(n); ok {
			d += " (" + strings.Join(args, ", ") + ")"
			if sc.TraceName() != n {
				d += "; tracepoints syscalls:sys_enter_" + sc.TraceName() + ", sys_exit_" + sc.TraceName()
			}
		} else {
			d += ": no syscalls:* tracepoint here (raw_syscalls:* only)"
		}
		out = append(out, NameEntry{n, d})
	}
	for c, v := range uapi.SyscallConsts {
		out = append(out, NameEntry{c, fmt.Sprintf("constant %d (%#x)", v, v)})
	}
	return out
}

// describeEvents is what simrun names events prints: the legacy hardware
// and software event names, each software one with where it is counted.
func describeEvents() []NameEntry {
	var out []NameEntry
	for _, e := range perftool.LegacyEventNames() {
		kind := "hardware"
		if e.Type == uapi.PERF_TYPE_SOFTWARE {
			kind = "software"
		}
		d := fmt.Sprintf("%s event, config %d", kind, e.Config)
		if e.Help != "" {
			d += ": " + e.Help
		}
		out = append(out, NameEntry{e.Name, d})
	}
	return out
}
