package perftool

import (
	"errors"
	"fmt"

	"perfsim/uapi"
)

// mmapFailed is what perf record prints when mapping the rings fails (a
// ring's or an AUX area's mmap(): auxtrace_mmap__mmap() only pr_debug2()s,
// and the whole evlist__mmap_ex() fails with its errno), in perf 6.1's
// words; the errno stays underneath (errors.Is).
// tools/perf/builtin-record.c: record__mmap_evlist()
func mmapFailed(err error, mmapPages, auxPages int) error {
	var e uapi.Errno
	switch {
	case !errors.As(err, &e):
		return &perfMessage{fmt.Sprintf("failed to mmap with %v", err), err}
	case e == uapi.EPERM:
		return &perfMessage{fmt.Sprintf("Permission error mapping pages.\nConsider increasing /proc/sys/kernel/perf_event_mlock_kb,\n"+
			"or try again with a smaller value of -m/--mmap_pages.\n(current value: %d,%d)", mmapPages, auxPages), err}
	}
	return &perfMessage{fmt.Sprintf("failed to mmap with %d (%s)", int(e), e.Error()), err}
}

// perfMessage is an error perf reports in its own words, over the error
// that caused it.
type perfMessage struct {
	msg string
	err error
}

func (p *perfMessage) Error() string { return p.msg }
func (p *perfMessage) Unwrap() error { return p.err }
