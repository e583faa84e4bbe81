package runner

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/scenarios"
)

// TestPTModeFilter: intel_pt traces only the modes its attr allows (the
// CPL filter, RTIT_CTL.USR/OS): 10us of user compute and 5us of kernel time
// in each of 4 getpid calls, at 1000 bytes/us, give about 40000 bytes of user trace
// with u, 110000 of kernel trace with k (the getpids' 20000, do_exit() up
// to perf_event_exit_task(), cost.Profile.ExitStart: 3.9us, and the
// workload's execve() after perf_event_exec() enabled the event,
// cost.Profile.ExecLoad: 86.4us), and both without a modifier, in a 256K
// AUX area that holds them all.
func TestPTModeFilter(t *testing.T) {
	type got struct{ UserKB, KernelKB int64 }
	for _, tc := range []struct {
		mod  string
		want got
	}{{"u", got{40, 0}}, {"k", got{0, 110}}, {"", got{40, 110}}} {
		src := fmt.Sprintf(`scenario pt-cpl
cpus 1
pmu intel_pt rate=1000 region=4K
task app cpu0
  repeat 4
    compute 10us
    syscall getpid 5us
record -e intel_pt//%s -m 8,64 -- app
`, tc.mod)
		f, err := scenarios.Parse("pt-cpl.sim", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if errs := scenarios.Check(f, NewRegistry(f, nil)); len(errs) > 0 {
			t.Fatal(errs)
		}
		r, err := Build(f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Execute(); err != nil {
			t.Fatal(err)
		}
		user, kernel := ptTraceBytes(t, r)
		// in thousands of bytes, rounded
		g := got{UserKB: (user + 500) / 1000, KernelKB: (kernel + 500) / 1000}
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
	f, err := scenarios.Parse("pt-cpl-a.sim", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if errs := scenarios.Check(f, NewRegistry(f, nil)); len(errs) > 0 {
		t.Fatal(errs)
	}
	r, err := Build(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Execute(); err != nil {
		t.Fatal(err)
	}
	user, kernel := ptTraceBytes(t, r)
	if got := (user + 500) / 1000; got != 20 || kernel != 0 {
		t.Errorf("intel_pt//u -a: %d bytes of user trace, %d of kernel trace, want about 20000 and none", user, kernel)
	}
}

// ptTraceBytes is the decoded trace of the run's session, in bytes, by the
// mode of its TIP.PGE.
func ptTraceBytes(t *testing.T, r *Run) (user, kernel int64) {
	t.Helper()
	p, ok := r.Perf.(*pmuRun)
	if !ok || len(p.sessions) != 1 {
		t.Fatalf("want one perf session")
	}
	bs, bad := p.sessions[0].Data.ItraceBranches()
	if bad != 0 || len(bs) == 0 {
		t.Fatalf("%d branches, %d decoding errors", len(bs), bad)
	}
	for _, b := range bs {
		if b.User {
			user += int64(b.Bytes)
		} else {
			kernel += int64(b.Bytes)
		}
	}
	return user, kernel
}

// TestCoreSightModeFilter: the ETM filters by exception level (attr
// exclude_user/exclude_kernel, etm4_parse_event_config()): 4 x (10us of user
// compute + a 5us getpid) at 1000M bytes/s give about 40000 bytes of trace
// with u, 110000 with k (with do_exit() up to perf_event_exit_task(),
// cost.Profile.ExitStart: 3.9us, and the execve() after perf_event_exec(),
// cost.Profile.ExecLoad: 86.4us), 150000 with both (16-byte frames, so
// within a frame per switch).
func TestCoreSightModeFilter(t *testing.T) {
	for _, tc := range []struct {
		mod  string
		want int64
	}{{"u", 40}, {"k", 110}, {"", 150}} {
		src := fmt.Sprintf(`scenario cs-cpl
cpus 1
pmu cs_etm sink=etr rate=1000M
task app cpu0
  repeat 4
    compute 10us
    syscall getpid 5us
record -e cs_etm//%s --per-thread -m ,64 -- app
`, tc.mod)
		f, err := scenarios.Parse("cs-cpl.sim", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if errs := scenarios.Check(f, NewRegistry(f, nil)); len(errs) > 0 {
			t.Fatal(errs)
		}
		r, err := Build(f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Execute(); err != nil {
			t.Fatal(err)
		}
		emitted, _ := r.Observe("cs.emitted")
		// rate=1000M is 1000 MiB/s: 1.048576 bytes per ns
		got := (emitted*1000000/1048576 + 500) / 1000
		if got != tc.want {
			t.Errorf("cs_etm//%s: %d bytes emitted (%d thousand at 1 byte/ns), want about %d thousand", tc.mod, emitted, got, tc.want)
		}
	}
}
