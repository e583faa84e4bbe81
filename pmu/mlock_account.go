package pmu

import (
	"fmt"

	"perfsim/sim"
)

// The mlock accounting oracle: perf_mmap() charges a ring's pages to the
// user (user->locked_vm up to perf_event_mlock_kb per online CPU, the rest
// to the mapping mm's pinned_vm against RLIMIT_MEMLOCK), and the buffer's
// last perf_mmap_close() gives the charge back. When every task has exited
// no perf mapping is left, so nothing perf charged to the user may be left
// either: a charge never given back stays with the user_struct as long as
// the user has a process, and shrinks what every later mmap() of that user
// may lock (an unprivileged user's perf record then fails with EPERM).
// pinned_vm is the mm's and goes with it, so a charge left there is not
// judged at the end; but a close that takes a ring's charge back from an
// mm other than the one charged (knob mmap-pinned-mm) is judged when it
// happens: that mm's pinned_vm drops by pages it never had (below zero the
// process may pin more than RLIMIT_MEMLOCK).

// AccountInvariants is the oracle's invariant.
var AccountInvariants = []struct{ Name, Says, Why string }{
	{"mlock-accounting",
		"when every task has exited, the pages perf mappings charged to user->locked_vm have all been given back; and no perf_mmap_close() takes a ring's pinned_vm charge back from an mm it was not charged to",
		"perf_mmap_account() charges what the buffer's last perf_mmap_close() uncharges; a charge left over is leaked for as long as the user has a " +
			"process and counts against every later perf mmap() of that user (0c8a4e4139ad: an extra mapping of a mapped ring; f74b9f4ba63f's " +
			"failed mapping; b024d7b56c77's split AUX mapping); an mm's pinned_vm below zero lets its process pin more than RLIMIT_MEMLOCK " +
			"(the close took another mm's charge from it: knob mmap-pinned-mm)"},
}

// AccountViolation is one report of the oracle.
type AccountViolation struct {
	Invariant string
	T         sim.Time
	CPU       int // -1: judged at the end
	Message   string
}

// AccountCheck is the oracle's reports: those made as the run went (a
// pinned_vm charge taken from the wrong mm) and, at the end of a scenario whose tasks all
// exited (quiet), the user's charge left over.
// kernel/events/core.c: perf_mmap_account(), perf_mmap_close()
func (k *Kernel) AccountCheck(quiet bool) []AccountViolation {
	out := append([]AccountViolation(nil), k.accountViolations...)
	if !quiet || k.mlockedPages == 0 {
		return out
	}
	why := ""
	if n := k.mm.extraCharged; n > 0 {
		why = fmt.Sprintf("; %d page(s) were charged by extra mappings of an already mapped ring (perf_mmap_rb()'s shared path: perf_mmap_account(vma, user_extra, 0)), "+
			"which no perf_mmap_close() uncharges (only the buffer's last, once, for its first mapping)", n)
	}
	return append(out, AccountViolation{Invariant: "mlock-accounting", T: k.now(), CPU: -1,
		Message: fmt.Sprintf("every task exited, no perf mapping is left, and user->locked_vm keeps %d page(s) perf charged: a charge never given back%s",
			k.mlockedPages, why)})
}
