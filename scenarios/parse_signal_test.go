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
