package uapi

import (
	_ "embed"
	"strconv"
	"strings"
)

// syscallTable is arch/x86/entry/syscalls/syscall_64.tbl of Linux v6.19.9
// (today's table: 0..470, the x32 range 512..547), copied unchanged.
//
//go:embed syscall_64.tbl
var syscallTable string

// SyscallTableKernel is the kernel syscall_64.tbl was copied from.
const SyscallTableKernel = "v6.19.9"

// Syscall is one x86_64 system call of syscall_64.tbl: its number, its name
// (what strace and glibc call it) and its entry point. The syscalls:*
// tracepoints are named after the entry point without "sys_"
// (SYSCALL_DEFINE's name: uname is sys_newuname, so
// syscalls:sys_enter_newuname).
type Syscall struct {
	Nr    int
	Name  string // "uname"
	Entry string // "sys_newuname"; "" for an unimplemented number (uselib, tuxcall, ...)
}

// TraceName is the name the syscalls:sys_enter_/sys_exit_ tracepoints use:
// the entry point without "sys_" ("newuname"), or "" without one.
func (s *Syscall) TraceName() string {
	if s.Entry == "sys_ni_syscall" {
		return ""
	}
	return strings.TrimPrefix(s.Entry, "sys_")
}

// syscalls64 are the 64-bit ABI entries (abi "common" or "64"), by number;
// the x32 entries are left out.
var syscalls64, syscallByName = parseSyscallTable(syscallTable)

// parseSyscallTable reads "<number> <abi> <name> [<entry point> ...]" lines.
// arch/x86/entry/syscalls/Makefile: syscalltbl.sh
func parseSyscallTable(tbl string) ([]Syscall, map[string]*Syscall) {
	var out []Syscall
	for _, l := range strings.Split(tbl, "\n") {
		f := strings.Fields(l)
		if len(f) < 3 || strings.HasPrefix(f[0], "#") || f[1] == "x32" {
			continue
		}
		nr, err := strconv.Atoi(f[0])
		if err != nil {
			continue
		}
		sc := Syscall{Nr: nr, Name: f[2]}
		if len(f) > 3 {
			sc.Entry = f[3]
		}
		out = append(out, sc)
	}
	by := make(map[string]*Syscall, 2*len(out))
	for i := range out {
		by[out[i].Name] = &out[i]
	}
	for i := range out { // the entry's name where it differs (newuname, newstat, umount, ...)
		if n := out[i].TraceName(); n != "" && by[n] == nil {
			by[n] = &out[i]
		}
	}
	return out, by
}

// Syscalls returns the x86_64 system calls in number order.
func Syscalls() []Syscall { return syscalls64 }

// LookupSyscall finds a system call by its table name ("uname") or its
// entry point's name ("newuname").
func LookupSyscall(name string) (*Syscall, bool) {
	s, ok := syscallByName[name]
	return s, ok
}

// SyscallNr is the number of a system call (LookupSyscall's names), or -1.
func SyscallNr(name string) int {
	if s, ok := syscallByName[name]; ok {
		return s.Nr
	}
	return -1
}
