package scenarios

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sysReg is testRegistry with the syscall arities and constants of
// SyscallRegistry.
type sysReg struct{ *MapRegistry }

func (sysReg) SyscallArgNames(name string) ([]string, bool) {
	switch name {
	case "close":
		return []string{"fd"}, true
	case "prctl":
		return []string{"option", "arg2", "arg3", "arg4", "arg5"}, true
	case "mmap":
		return []string{"addr", "len", "prot", "flags", "fd", "off"}, true
	}
	return nil, false
}

func (sysReg) SyscallConst(name string) (int64, bool) {
	v, ok := map[string]int64{"PR_SET_NAME": 15, "PROT_READ": 1, "MAP_PRIVATE": 2, "MAP_ANONYMOUS": 0x20}[name]
	return v, ok
}

func TestParseSyscallArgs(t *testing.T) {
	src := "task a\n  syscall prctl PR_SET_NAME \"worker\" 0 0 0\n  syscall mmap 0 0x2000 PROT_READ MAP_PRIVATE|MAP_ANONYMOUS -1 0 2us as buf\n  touch buf 2 write\n  syscall read 2ms\n"
	f, err := Parse("a.sim", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ops := f.Tasks[0].Body
	pr := ops[0].(*Syscall)
	mm := ops[1].(*Syscall)
	tc := ops[2].(*Touch)
	rd := ops[3].(*Syscall)
	type term struct {
		Name  string
		Value int64
	}
	terms := func(a SysArg) (out []term) {
		for _, t := range a.Terms {
			out = append(out, term{t.Name, t.Value})
		}
		return out
	}
	got := []any{pr.Args[1].Str, pr.Args[1].IsStr, terms(pr.Args[0]), terms(mm.Args[3]), terms(mm.Args[4]),
		mm.Bind, mm.Dur.String(), len(mm.Args), terms(tc.At), tc.Pages, tc.Write, rd.Dur.String(), len(rd.Args),
		mm.Args[3].Terms[1].Pos.Col}
	want := []any{"worker", true, []term{{"PR_SET_NAME", 0}}, []term{{"MAP_PRIVATE", 0}, {"MAP_ANONYMOUS", 0}},
		[]term{{"", -1}}, "buf", "2µs", 6, []term{{"buf", 0}}, int64(2), true, "2ms", 0, 47}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestSyscallArgErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"task a\n  syscall close 1 2\n", `c.sim:2:19: close takes 1 argument (fd), found 2`},
		{"task a\n  syscall prctl PR_SET_NAME\n", `c.sim:2:3: prctl takes 5 arguments (option, arg2, arg3, arg4, arg5), found 1`},
		{"task a\n  syscall close FD\n", `c.sim:2:17: unknown constant or variable "FD" (a variable is bound by an earlier syscall ... as FD; simrun names syscalls lists the constants)`},
		{"task a\n  touch buf 1\n  syscall mmap 0 1 PROT_READ MAP_PRIVATE -1 0 as buf\n", `c.sim:2:9: unknown constant or variable "buf" (a variable is bound by an earlier syscall ... as buf; simrun names syscalls lists the constants)`},
		{"task a\n  syscall mmap 0 1 PROT_READ MAP_PRIVATE -1 0 as PROT_READ\n", `c.sim:2:50: PROT_READ is a constant; bind the result to another name`},
		{"task a\n  syscall mmap 0 1 PROT_READ MAP_PRIVATE -1 0 as b\n  syscall close b|1\n", `c.sim:3:17: variable b cannot be combined with |`},
	}
	reg := testRegistry()
	reg.Syscalls = append(reg.Syscalls, "prctl", "mmap")
	for _, tt := range tests {
		got := checkMessages(t, tt.src, sysReg{reg})
		if d := cmp.Diff([]string{tt.want}, got); d != "" {
			t.Errorf("%q (-want +got):\n%s", tt.src, d)
		}
	}
	for _, tt := range []struct{ src, want string }{
		{"task a\n  syscall close \"x\n", `a.sim:2:17: unterminated string "x: expected a closing "`},
		{"task a\n  syscall close \"x y # z\n", `a.sim:2:17: unterminated string "x y # z: expected a closing "`},
		{"task a\n  syscall close \"x\"y\n", `a.sim:2:20: expected a blank after the closing quote of the string, found "y"`},
		{"task a\n  syscall close \"a\\q\"\n", `a.sim:2:19: unknown escape \q in a string (known: \" \\ \n \t)`},
		{"task a\n  syscall close 1+2\n", `a.sim:2:17: expected a number, a constant like PR_SET_NAME or MAP_PRIVATE|MAP_ANONYMOUS, a variable or a "string", found "1+2"`},
		{"task a\n  syscall close 1 as\n", `a.sim:2:21: expected a variable name like buf after as`},
		{"task a\n  touch b\n", `a.sim:2:10: expected a number of pages after touch b, like touch b 4`},
		{"task a\n  touch b 0\n", `a.sim:2:11: expected a number of pages from 1, found "0"`},
		{"task a\n  touch b 1 sideways\n", `a.sim:2:13: expected read or write after the number of pages, found "sideways"`},
	} {
		_, err := Parse("a.sim", []byte(tt.src))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want+"\n") {
			t.Errorf("%q: got %v\nwant %s", tt.src, err, tt.want)
		}
	}
}
