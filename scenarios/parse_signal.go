package scenarios

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Signal dispositions and limits in a task's program:
//
//	sigaction SIG handler|SIG_IGN|SIG_DFL   (rt_sigaction(): an empty handler, ignore, the default)
//	setrlimit RLIMIT_SIGPENDING N           (prlimit64(0, RLIMIT_SIGPENDING, {N, N}))
//	sigprocmask SIG_BLOCK|SIG_UNBLOCK|SIG_SETMASK SIG[,SIG...]|none
//	                                        (rt_sigprocmask(): the thread's blocked mask)
//
// A task starts with every signal at SIG_DFL: SIGIO, SIGUSR1 or SIGTRAP
// then ends the process when it arrives.

// Sigaction is "sigaction SIG ACTION".
type Sigaction struct {
	Pos    Pos
	Sig    int64  // the signal number
	Action string // handler, SIG_IGN or SIG_DFL
}

// Setrlimit is "setrlimit RESOURCE N".
type Setrlimit struct {
	Pos      Pos
	Resource string // RLIMIT_SIGPENDING
	Value    int64
}

// Sigprocmask is "sigprocmask HOW SIGS".
type Sigprocmask struct {
	Pos  Pos
	How  string  // SIG_BLOCK, SIG_UNBLOCK or SIG_SETMASK
	Sigs []int64 // the set's signals (none: empty)
}

func (o *Sigaction) OpPos() Pos   { return o.Pos }
func (o *Sigprocmask) OpPos() Pos { return o.Pos }
func (o *Setrlimit) OpPos() Pos   { return o.Pos }

// SignalNumbers are the signal names sigaction takes (x86-64; SIGRTMIN is
// the kernel's 32, SIGRTMAX 64).
var SignalNumbers = map[string]int64{
	"SIGHUP": 1, "SIGINT": 2, "SIGQUIT": 3, "SIGILL": 4, "SIGTRAP": 5, "SIGABRT": 6, "SIGBUS": 7, "SIGFPE": 8,
	"SIGUSR1": 10, "SIGSEGV": 11, "SIGUSR2": 12, "SIGPIPE": 13, "SIGALRM": 14, "SIGTERM": 15, "SIGCHLD": 17,
	"SIGCONT": 18, "SIGTSTP": 20, "SIGTTIN": 21, "SIGTTOU": 22, "SIGURG": 23, "SIGXCPU": 24, "SIGXFSZ": 25,
	"SIGWINCH": 28, "SIGIO": 29, "SIGPOLL": 29, "SIGSYS": 31, "SIGRTMIN": 32, "SIGRTMAX": 64,
}

// SigactionActions are the actions sigaction takes.
var SigactionActions = []string{"handler", "SIG_IGN", "SIG_DFL"}

// SigprocmaskHows are the hows sigprocmask takes.
var SigprocmaskHows = []string{"SIG_BLOCK", "SIG_UNBLOCK", "SIG_SETMASK"}

// Rlimits are the resources setrlimit takes.
var Rlimits = []string{"RLIMIT_SIGPENDING"}

// signalNumber reads a signal name, SIGRTMIN+N, or a number from 1 to 64.
func signalNumber(s string) (int64, bool) {
	if v, ok := SignalNumbers[s]; ok {
		return v, true
	}
	if n, ok := strings.CutPrefix(s, "SIGRTMIN+"); ok {
		v, err := strconv.ParseInt(n, 10, 64)
		return 32 + v, err == nil && v >= 0 && v <= 32
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil && v >= 1 && v <= 64
}

// sigaction parses "sigaction SIG ACTION". SIGKILL and SIGSTOP are refused
// as rt_sigaction() refuses them (EINVAL).
func (p *parser) sigaction(ll *logicalLine, ws []token) Op {
	if len(ws) < 2 {
		p.errorf(endPos(ll, ws), "expected a signal like SIGIO or 29 after sigaction")
		return nil
	}
	sig, ok := signalNumber(ws[1].text)
	if ws[1].text == "SIGKILL" || ws[1].text == "SIGSTOP" || ok && (sig == 9 || sig == 19) {
		p.errorf(ws[1].pos, "sigaction %s: the action of SIGKILL and SIGSTOP cannot be changed (rt_sigaction() fails with EINVAL)", ws[1].text)
		return nil
	}
	if !ok {
		var names []string
		for n := range SignalNumbers {
			names = append(names, n)
		}
		sort.Strings(names)
		p.errorf(ws[1].pos, "unknown signal %s%s; expected a number from 1 to 64, SIGRTMIN+N or one of: %s", quote(ws[1].text), didYouMean(ws[1].text, names), strings.Join(names, ", "))
		return nil
	}
	if len(ws) < 3 {
		p.errorf(endPos(ll, ws), "expected handler, SIG_IGN or SIG_DFL after sigaction %s", ws[1].text)
		return nil
	}
	act := ws[2].text
	found := false
	for _, a := range SigactionActions {
		found = found || a == act
	}
	if !found {
		p.errorf(ws[2].pos, "unknown action %s%s; expected handler (an empty handler), SIG_IGN or SIG_DFL", quote(act), didYouMean(act, SigactionActions))
		return nil
	}
	p.extra(ll, ws, 3, "the action")
	return &Sigaction{Pos: ws[0].pos, Sig: sig, Action: act}
}

// setrlimit parses "setrlimit RESOURCE N".
func (p *parser) setrlimit(ll *logicalLine, ws []token) Op {
	if len(ws) < 2 || ws[1].text != "RLIMIT_SIGPENDING" {
		p.errorf(at(ll, ws, 1), "expected a resource (%s) after setrlimit, found %s", strings.Join(Rlimits, ", "), found(ws, 1))
		return nil
	}
	if len(ws) < 3 {
		p.errorf(endPos(ll, ws), "expected a limit like 16 after setrlimit %s", ws[1].text)
		return nil
	}
	v, err := parseUint(ws[2].text)
	if err != nil || v < 0 {
		p.errorf(ws[2].pos, "expected a limit from 0 after setrlimit %s, found %s", ws[1].text, quote(ws[2].text))
		return nil
	}
	p.extra(ll, ws, 3, "the limit")
	return &Setrlimit{Pos: ws[0].pos, Resource: ws[1].text, Value: v}
}

// sigprocmask parses "sigprocmask HOW SIG[,SIG...]" (or "none", the empty
// set). SIGKILL and SIGSTOP may be named, as rt_sigprocmask() takes them
// and leaves them unblocked.
func (p *parser) sigprocmask(ll *logicalLine, ws []token) Op {
	if len(ws) < 2 || !slices.Contains(SigprocmaskHows, ws[1].text) {
		hint := ""
		if len(ws) >= 2 {
			hint = didYouMean(ws[1].text, SigprocmaskHows)
		}
		p.errorf(at(ll, ws, 1), "expected SIG_BLOCK, SIG_UNBLOCK or SIG_SETMASK after sigprocmask, found %s%s", found(ws, 1), hint)
		return nil
	}
	if len(ws) < 3 {
		p.errorf(endPos(ll, ws), "expected signals like SIGTRAP or SIGTRAP,SIGIO (or none) after sigprocmask %s", ws[1].text)
		return nil
	}
	op := &Sigprocmask{Pos: ws[0].pos, How: ws[1].text, Sigs: []int64{}}
	if ws[2].text != "none" {
		for _, name := range strings.Split(ws[2].text, ",") {
			sig, ok := signalNumber(name)
			if !ok {
				p.errorf(ws[2].pos, "unknown signal %s in sigprocmask's set; expected names like SIGTRAP, SIGRTMIN+N or numbers from 1 to 64, separated by commas, or none", quote(name))
				return nil
			}
			op.Sigs = append(op.Sigs, sig)
		}
	}
	p.extra(ll, ws, 3, "the set")
	return op
}
