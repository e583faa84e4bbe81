package perftool

import "fmt"

// InvCSSnapshotNoDup is the name of the cs_etm snapshot invariant.
const InvCSSnapshotNoDup = "cs-snapshot-no-dup-no-reorder"

// checkCSSnapshots judges every snapshot the session decoded: no trace frame
// written into perf.data twice (in one snapshot, or again by a later one),
// none out of order within its AUX buffer's chunk, none torn.
func checkCSSnapshots(ss *Session) []string {
	var out []string
	for i, r := range ss.CSEtmSnapshots() {
		if r.Dups != 0 || r.OutOrder != 0 || r.Garbage != 0 {
			out = append(out, fmt.Sprintf("snapshot %d: %d frames seen before, %d out of order, %d torn slots (%v)",
				i+1, r.Dups, r.OutOrder, r.Garbage, r))
		}
	}
	return out
}

func init() {
	RegisterSessionInvariant(SessionInvariant{
		Name: InvCSSnapshotNoDup,
		Says: "no cs_etm trace byte appears in perf.data's snapshots twice or out of order",
		Why: "a snapshot copies each AUX buffer's bytes since the last read, oldest first (__auxtrace_mmap__read: (head - old) modulo the buffer); " +
			"tool cs-etm-find-snapshot=pre-2f01c200d440 breaks it: once a buffer wrapped, cs_etm_find_snapshot() took the whole buffer on every " +
			"later snapshot, so a second SIGUSR2 writes trace the first one already wrote (2f01c200d440: \"it's wrongly to copy the whole AUX ring buffer\")",
		Package: "perftool",
		Check:   checkCSSnapshots,
	})
}
