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
func newOpenError(e *Evsel, target *Target, tool Tool, pid, cpu, group int, err error, paranoid int) error {
	var en uapi.Errno
	if !errors.As(err, &en) {
		return fmt.Errorf("perf record: sys_perf_event_open(%s, pid %d, cpu %d, group_fd %d): %w", e.Name, pid, cpu, group, err)
	}
	return &OpenError{Evsel: e.Name, PID: pid, CPU: cpu, Group: group, Errno: en, Msg: openStrerror(e, target, tool, en, paranoid),
		syscallDescribed: fmt.Sprintf("sys_perf_event_open(%s, pid %d, cpu %d, group_fd %d)", e.Name, pid, cpu, group)}
}

// openStrerror is perf's explanation of a failed open: by errno, what the
// attr asked that the errno says the PMU or the kernel refused, else the
// errno as it is. paranoid is perf_event_paranoid, which perf reads for
// EACCES's text.
// tools/perf/util/evsel.c: evsel__open_strerror()
func openStrerror(e *Evsel, target *Target, tool Tool, err uapi.Errno, paranoid int) string {
	a := &e.Attr
	switch err {
	case uapi.EPERM:
		// "printed += scnprintf(msg, size, ...)": the EPERM line is written
		// over the start of the text, ending it with its NUL, so this line
		// is all perf prints (the same in perf 6.1 and today's)
		return fmt.Sprintf("No permission to enable %s event.\n\n", e.Name)
	case uapi.EACCES:
		// no SELinux on the simulated machine: fs/selinux/enforce is absent
		return "Access to performance monitoring and observability operations is limited.\n" +
			"Consider adjusting /proc/sys/kernel/perf_event_paranoid setting to open\n" +
			"access to performance monitoring and observability operations for processes\n" +
			"without CAP_PERFMON, CAP_SYS_PTRACE or CAP_SYS_ADMIN Linux capability.\n" +
			"More information can be found at 'Perf events and tool security' document:\n" +
			"https://www.kernel.org/doc/html/latest/admin-guide/perf-security.html\n" +
			fmt.Sprintf("perf_event_paranoid setting is %d:\n", paranoid) +
			"  -1: Allow use of (almost) all events by all users\n" +
			"      Ignore mlock limit after perf_event_mlock_kb without CAP_IPC_LOCK\n" +
			">= 0: Disallow raw and ftrace function tracepoint access\n" +
			">= 1: Disallow CPU event access\n" +
			">= 2: Disallow kernel profiling\n" +
			"To make the adjusted perf_event_paranoid setting permanent preserve it\n" +
			"in /etc/sysctl.conf (e.g. kernel.perf_event_paranoid = <setting>)"
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
