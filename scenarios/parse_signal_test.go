package scenarios

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sigaction and setrlimit: what they parse to, and their errors at
// file:line:col.
func TestParseSigactionSetrlimit(t *testing.T) {
	f, err := Parse("s.sim", []byte("task p\n  sigaction SIGIO handler\n  sigaction SIGRTMIN+8 SIG_IGN\n  sigaction 29 SIG_DFL\n  setrlimit RLIMIT_SIGPENDING 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	d := &dumper{}
	for _, op := range f.Tasks[0].Body {
		d.taskLifeOp(0, op)
	}
	got = strings.Split(strings.TrimSuffix(d.b.String(), "\n"), "\n")
	want := []string{"sigaction 29 handler @2:3", "sigaction 40 SIG_IGN @3:3", "sigaction 29 SIG_DFL @4:3", "setrlimit RLIMIT_SIGPENDING 3 @5:3"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, tc := range []struct{ src, want string }{
		{"task p\n  sigaction\n", "s.sim:2:12: expected a signal like SIGIO or 29 after sigaction"},
		{"task p\n  sigaction SIGKILL SIG_IGN\n", "s.sim:2:13: sigaction SIGKILL: the action of SIGKILL and SIGSTOP cannot be changed (rt_sigaction() fails with EINVAL)"},
		{"task p\n  sigaction 65 handler\n", `s.sim:2:13: unknown signal "65"; expected a number from 1 to 64, SIGRTMIN+N or one of: SIGABRT, SIGALRM, SIGBUS, SIGCHLD, SIGCONT, SIGFPE, SIGHUP, SIGILL, SIGINT, SIGIO, SIGPIPE, SIGPOLL, SIGQUIT, SIGRTMAX, SIGRTMIN, SIGSEGV, SIGSYS, SIGTERM, SIGTRAP, SIGTSTP, SIGTTIN, SIGTTOU, SIGURG, SIGUSR1, SIGUSR2, SIGWINCH, SIGXCPU, SIGXFSZ`},
		{"task p\n  sigaction SIGIO\n", "s.sim:2:18: expected handler, SIG_IGN or SIG_DFL after sigaction SIGIO"},
		{"task p\n  sigaction SIGIO SIG_IGNORE\n", `s.sim:2:19: unknown action "SIG_IGNORE"; did you mean "SIG_IGN"?; expected handler (an empty handler), SIG_IGN or SIG_DFL`},
		{"task p\n  setrlimit RLIMIT_NOFILE 3\n", `s.sim:2:13: expected a resource (RLIMIT_SIGPENDING) after setrlimit, found "RLIMIT_NOFILE"`},
		{"task p\n  setrlimit RLIMIT_SIGPENDING -1\n", `s.sim:2:31: expected a limit from 0 after setrlimit RLIMIT_SIGPENDING, found "-1"`},
	} {
		_, err := Parse("s.sim", []byte(tc.src))
		el, ok := err.(ErrorList)
		if !ok || len(el) == 0 {
			t.Errorf("%q: err %v, want %s", tc.src, err, tc.want)
			continue
		}
		if got := firstLine(el[0].Error()); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

// sigprocmask: what it parses to, and its errors at file:line:col.
func TestParseSigprocmask(t *testing.T) {
	f, err := Parse("s.sim", []byte("task p\n  sigprocmask SIG_BLOCK SIGTRAP,SIGIO\n  sigprocmask SIG_UNBLOCK SIGRTMIN+1\n  sigprocmask SIG_SETMASK none\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := &dumper{}
	for _, op := range f.Tasks[0].Body {
		d.taskLifeOp(0, op)
	}
	got := strings.Split(strings.TrimSuffix(d.b.String(), "\n"), "\n")
	want := []string{"sigprocmask SIG_BLOCK [5 29] @2:3", "sigprocmask SIG_UNBLOCK [33] @3:3", "sigprocmask SIG_SETMASK [] @4:3"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, tc := range []struct{ src, want string }{
		{"task p\n  sigprocmask\n", "s.sim:2:14: expected SIG_BLOCK, SIG_UNBLOCK or SIG_SETMASK after sigprocmask, found end of line"},
		{"task p\n  sigprocmask SIG_BLOK SIGTRAP\n", `s.sim:2:15: expected SIG_BLOCK, SIG_UNBLOCK or SIG_SETMASK after sigprocmask, found "SIG_BLOK"; did you mean "SIG_BLOCK"?`},
		{"task p\n  sigprocmask SIG_BLOCK\n", "s.sim:2:24: expected signals like SIGTRAP or SIGTRAP,SIGIO (or none) after sigprocmask SIG_BLOCK"},
		{"task p\n  sigprocmask SIG_BLOCK SIGTRAP,65\n", `s.sim:2:25: unknown signal "65" in sigprocmask's set; expected names like SIGTRAP, SIGRTMIN+N or numbers from 1 to 64, separated by commas, or none`},
		{"task p\n  sigprocmask SIG_BLOCK SIGTRAP SIGIO\n", "s.sim:2:33: "},
	} {
		_, err := Parse("s.sim", []byte(tc.src))
		el, ok := err.(ErrorList)
		if !ok || len(el) == 0 {
			t.Errorf("%q: err %v, want %s", tc.src, err, tc.want)
			continue
		}
		if got := firstLine(el[0].Error()); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}
