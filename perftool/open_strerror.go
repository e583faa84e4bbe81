package perftool

import (
	"errors"
	"fmt"

	"perfsim/uapi"
)

// OpenError is a perf_event_open() that failed in record__open(): perf
// prints "Error:" and what evsel__open_strerror() makes of the errno
// (Msg), and exits; the perf.data it created stays empty (the header is
// written at the end).
type OpenError struct {
	Evsel            string
	PID, CPU, Group  int
	Errno            uapi.Errno
	Msg              string // evsel__open_strerror()'s text
	syscallDescribed string
}

func (e *OpenError) Error() string {
	return fmt.Sprintf("%s (%s: %s)", e.Msg, e.syscallDescribed, e.Errno.Name())
}

// Unwrap lets errors.Is find the errno.
func (e *OpenError) Unwrap() error { return e.Errno }

// newOpenError is the failed open of evsel e with err.
func newOpenError(e *Evsel, target *Target, tool Tool, pid, cpu, group int, err error) error {
	var en uapi.Errno
	if !errors.As(err, &en) {
		return fmt.Errorf("perf record: sys_perf_event_open(%s, pid %d, cpu %d, group_fd %d): %w", e.Name, pid, cpu, group, err)
	}
	return &OpenError{Evsel: e.Name, PID: pid, CPU: cpu, Group: group, Errno: en, Msg: openStrerror(e, target, tool, en),
		syscallDescribed: fmt.Sprintf("sys_perf_event_open(%s, pid %d, cpu %d, group_fd %d)", e.Name, pid, cpu, group)}
}

// openStrerror is perf's explanation of a failed open: by errno, what the
// attr asked that the errno says the PMU or the kernel refused, else the
// errno as it is. (EPERM and EACCES, perf_event_paranoid's refusals, are
// not the model's: it runs perf as root.)
// tools/perf/util/evsel.c: evsel__open_strerror()
func openStrerror(e *Evsel, target *Target, tool Tool, err uapi.Errno) string {
	a := &e.Attr
	switch err {
	case uapi.ENOENT:
		return fmt.Sprintf("The %s event is not supported.", e.Name)
	case uapi.EMFILE:
		return "Too many events are opened.\n" +
			"Probably the maximum number of open file descriptors has been reached.\n" +
			"Hint: Try again after reducing the number of events.\n" +
			"Hint: Try increasing the limit with 'ulimit -n <limit>'"
	case uapi.ENODEV:
		if target.CPUList != nil {
			return "No such device - did you specify an out-of-range profile CPU?"
		}
	case uapi.EOPNOTSUPP:
		switch {
		case a.SampleType&uapi.PERF_SAMPLE_BRANCH_STACK != 0:
			return e.Name + ": PMU Hardware or event type doesn't support branch stack sampling."
		case a.AuxOutput:
			return e.Name + ": PMU Hardware doesn't support 'aux_output' feature"
		case tool != ToolPerf61 && (a.AuxPause || a.AuxResume || a.AuxStartPaused):
			return e.Name + ": PMU Hardware doesn't support 'aux_action' feature"
		case a.SamplePeriod != 0:
			return e.Name + ": PMU Hardware doesn't support sampling/overflow-interrupts. Try 'perf stat'"
		case a.PreciseIP != 0:
			return "'precise' request may not be supported. Try removing 'p' modifier."
		case a.Type == uapi.PERF_TYPE_HARDWARE:
			return "No hardware sampling interrupt available.\n"
		}
	case uapi.EINVAL:
		if !target.HasCPU() {
			return fmt.Sprintf("Invalid event (%s) in per-thread mode, enable system wide with '-a'.", e.Name)
		}
	}
	// perf 6.1 names /bin/dmesg; today's quotes the command, since "perf
	// evsel: display dmesg command of showing a hardcoded path" (Masum Reza,
	// 2024-09-22, for distributions with no /bin/dmesg): evsel__open_strerror()
	// in torvalds/linux tools/perf/util/evsel.c ends
	// "\"dmesg | grep -i perf\" may provide additional information.\n"
	dmesg := `"dmesg | grep -i perf" may provide additional information.`
	if tool == ToolPerf61 {
		dmesg = "/bin/dmesg | grep -i perf may provide additional information."
	}
	return fmt.Sprintf("The sys_perf_event_open() syscall returned with %d (%s) for event (%s).\n%s\n", int(err), err.Error(), e.Name, dmesg)
}
