package runner

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSigtrapBlockedAndIgnored: a page-faults event with attr.sigtrap
// across ten faults, by SIGTRAP's disposition, blocked across the faults
// (and unblocked after the read) or not, on today's kernel and before
// 78ed93d72ded. Today (send_sig_perf()) a blocked SIGTRAP is never
// ignored: it stays pending, is not queued again, and is taken once at
// the unblock with TRAP_PERF_FLAG_ASYNC (or dropped there at SIG_IGN, or
// fatal at SIG_DFL); SIG_IGN drops the others. Before (force_sig_perf() ->
// force_sig_info()) a blocked or ignored SIGTRAP is unblocked and reset to
// SIG_DFL: the first fault ends the process, before its read.
// (realperf/testdata/sigtrap compares the today column with the machine.)
func TestSigtrapBlockedAndIgnored(t *testing.T) {
	type obs struct{ Sigtrap, Async, Fatal, FatalSig, Read int64 }
	lived := func(sigtrap, async int64) obs { return obs{sigtrap, async, 0, 0, 10} }
	killedFirst := obs{0, 0, 1, 5, 0}      // at the first fault's return to user
	killedAtUnblock := obs{0, 0, 1, 5, 10} // after the read, at sigprocmask(SIG_UNBLOCK)
	for _, tc := range []struct {
		disp    string
		blocked bool
		knob    string
		want    obs
	}{
		{"handler", false, "today", lived(10, 0)},
		{"handler", true, "today", lived(1, 1)},
		{"SIG_IGN", false, "today", lived(0, 0)},
		{"SIG_IGN", true, "today", lived(0, 0)},
		{"SIG_DFL", false, "today", killedFirst},
		{"SIG_DFL", true, "today", killedAtUnblock},
		{"handler", false, "pre-78ed93d72ded", lived(10, 0)},
		{"handler", true, "pre-78ed93d72ded", killedFirst},
		{"SIG_IGN", false, "pre-78ed93d72ded", killedFirst},
		{"SIG_IGN", true, "pre-78ed93d72ded", killedFirst},
		{"SIG_DFL", true, "pre-78ed93d72ded", killedFirst},
	} {
		t.Run(fmt.Sprintf("%s/blocked=%v/%s", tc.disp, tc.blocked, tc.knob), func(t *testing.T) {
			block, unblock := "", ""
			if tc.blocked {
				block, unblock = "  sigprocmask SIG_BLOCK SIGTRAP\n", "  sigprocmask SIG_UNBLOCK SIGTRAP\n"
			}
			src := "scenario s\ncpus 1\nkernel sigtrap-send=" + tc.knob + "\ntask app cpu0\n" +
				"  sigaction SIGTRAP " + tc.disp + "\n" + block +
				"  open ev -e page-faults period=1 sigtrap remove_on_exec sig_data=7 disabled\n" +
				"  syscall mmap 0 40960 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as p\n" +
				"  ioctl ev ENABLE\n  touch p 10 write\n  ioctl ev DISABLE\n  read ev\n" + unblock + "  exit\n"
			got, _ := runSrc(t, src, "signals.sigtrap", "signals.sigtrap.async", "signals.fatal", "signals.fatal-sig", "read.value")
			o := obs{got["signals.sigtrap"], got["signals.sigtrap.async"], got["signals.fatal"], got["signals.fatal-sig"], got["read.value"]}
			if d := cmp.Diff(tc.want, o); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
