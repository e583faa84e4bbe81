package scenarios

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPTModeFilter: intel_pt traces only the modes its attr allows (the
// CPL filter, RTIT_CTL.USR/OS): 10us of user compute and 5us of kernel time
// in each of 4 getpid calls, at 1000 bytes/us, give about 40000 bytes of user trace
// with u, 20000 of kernel trace with k, and both without a modifier.
func TestPTModeFilter(t *testing.T) {
	type got struct{ UserKB, KernelKB int64 }
	for _, tc := range []struct {
		mod  string
		want got
	}{{"u", got{40, 0}}, {"k", got{0, 20}}, {"", got{40, 20}}} {
		src := fmt.Sprintf(`scenario pt-cpl
cpus 1
pmu intel_pt rate=1000 region=4K
task app cpu0
  repeat 4
    compute 10us
    syscall getpid 5us
record -e intel_pt//%s -m 8,16 -- app
`, tc.mod)
		f, err := Parse("pt-cpl.sim", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if errs := Check(f, NewRegistry(f, nil)); len(errs) > 0 {
			t.Fatal(errs)
		}
		r, err := Build(f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Execute(); err != nil {
			t.Fatal(err)
		}
		all, _ := r.Observe("perf.itrace.branches")
		user, _ := r.Observe("perf.itrace.user_branches")
		// 16-byte packets, in thousands of bytes, rounded
		g := got{UserKB: (user*16 + 500) / 1000, KernelKB: ((all-user)*16 + 500) / 1000}
		if d := cmp.Diff(tc.want, g); d != "" {
			t.Errorf("intel_pt//%s (-want +got):\n%s", tc.mod, d)
		}
	}
}

// TestPTModeFilterSystemWide: with -a the CPU's idle time after a task exits
// is kernel time for intel_pt//u (do_exit() enters the kernel), so the user
// trace is b's 10us and app's 10us, about 20000 bytes, and none of the idle
// time between them.
func TestPTModeFilterSystemWide(t *testing.T) {
	src := `scenario pt-cpl-a
cpus 1
pmu intel_pt rate=1000 region=4K
task app cpu0
  sleep 100us
  compute 10us
task b cpu0
  sleep 20us
  compute 10us
record -a -e intel_pt//u -m 8,16 -- app
`
	f, err := Parse("pt-cpl-a.sim", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if errs := Check(f, NewRegistry(f, nil)); len(errs) > 0 {
		t.Fatal(errs)
	}
	r, err := Build(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Execute(); err != nil {
		t.Fatal(err)
	}
	all, _ := r.Observe("perf.itrace.branches")
	user, _ := r.Observe("perf.itrace.user_branches")
	if got := (user*16 + 500) / 1000; got != 20 || all != user {
		t.Errorf("intel_pt//u -a: %d bytes of user trace of %d, want about 20000 and all of it", user*16, all*16)
	}
}
