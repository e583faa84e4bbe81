package uapi

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSyscallTable(t *testing.T) {
	type row struct {
		Name      string
		Nr        int
		TraceName string
	}
	var got []row
	for _, n := range []string{"read", "close", "mmap", "uname", "newuname", "prctl", "execve", "exit_group", "umount2", "sendfile", "uselib", "listns"} {
		s, ok := LookupSyscall(n)
		if !ok {
			t.Fatalf("%s: not in the table", n)
		}
		got = append(got, row{n, s.Nr, s.TraceName()})
	}
	want := []row{
		{"read", 0, "read"}, {"close", 3, "close"}, {"mmap", 9, "mmap"}, {"uname", 63, "newuname"},
		{"newuname", 63, "newuname"}, {"prctl", 157, "prctl"}, {"execve", 59, "execve"},
		{"exit_group", 231, "exit_group"}, {"umount2", 166, "umount"}, {"sendfile", 40, "sendfile64"},
		{"uselib", 134, ""}, {"listns", 470, "listns"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// 0..336 and 424..470 less nothing: every number of the 64-bit ABI once.
	all := Syscalls()
	if len(all) != 337+47 {
		t.Errorf("%d 64-bit entries, want %d", len(all), 337+47)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Nr <= all[i-1].Nr {
			t.Fatalf("not in number order at %v", all[i])
		}
	}
	if _, ok := LookupSyscall("compat_sys_execve"); ok || SyscallNr("nosuchcall") != -1 {
		t.Error("an unknown name was found")
	}
}
