package runner

// perfOpNames are the perf file system calls a task's program (or a forced
// action "at LABEL on cpuN: OP") carries out, and the forced interrupts:
// what `simrun names actions` lists besides the "at TIME VERB" actions.
var perfOpNames = []NameEntry{
	{"open NAME -e EVENT [cpuN] [pid TASK|self|-1] [group NAME] [flags fd_output,fd_no_group,fd_cloexec] [FIELD=VALUE|FLAG...]",
		"(task statement; also at LABEL on cpuN: open ...) perf_event_open(): EVENT as perf record -e takes it; FIELDs are perf_event_attr's " +
			"(sample_type=IP|TID|READ, read_format=GROUP|ID, period=N, sig_data=N, bp_type=W, bp_addr=N, bp_len=N, ...) and bare flags " +
			"(disabled, inherit, pinned, sigtrap, remove_on_exec, ...); pid defaults to self, or -1 with a CPU; NAME is bound to the fd returned"},
	{"close NAME", "(task statement; also at LABEL on cpuN: close NAME) close(): perf_release() -> perf_event_release_kernel() on the last reference (a mapping holds one)"},
	{"ioctl NAME REQUEST [ARG] [group]", "(task statement) perf_ioctl(): REQUEST is ENABLE, DISABLE, RESET, REFRESH N, PERIOD N, SET_OUTPUT NAME|-1, " +
		"SET_FILTER, ID, PAUSE_OUTPUT 0|1, MODIFY_ATTRIBUTES, SET_BPF, QUERY_BPF (PERF_EVENT_IOC_ prefix optional) or a number; group: PERF_IOC_FLAG_GROUP"},
	{"ioctl NAME SET_FILTER FILTER...", "(task statement) PERF_EVENT_IOC_SET_FILTER: the rest of the line is a tracepoint's ftrace filter (prev_pid == 5 && prev_comm ~ \"ba*\"), " +
		"parsed against its format's fields as ftrace_profile_set_filter() does (EINVAL, EPERM, ENOENT, ESRCH for a bad one, EEXIST for a second); perf_tp_event() drops what it rejects (tp.filtered); " +
		"on an AUX event with address filters (intel_pt) the kernel's address filter string (filter 0x1770/0x10@/usr/local/bin/app, stop ADDR[/SIZE][@FILE], start ...): " +
		"perf_event_set_addr_filter() (EINVAL, ERANGE for a bad one; EOPNOTSUPP where the PMU cannot do it), replacing the event's filters"},
	{"ioctl NAME MODIFY_ATTRIBUTES [-e] EVENT [FIELD=VALUE...]", "(task statement) PERF_EVENT_IOC_MODIFY_ATTRIBUTES with the attr EVENT and FIELDs build: a breakpoint's " +
		"bp_addr, bp_type, bp_len, disabled and sig_data may change (perf_event_modify_breakpoint()); anything else EINVAL, another PMU EOPNOTSUPP"},
	{"fcntl NAME F_SETFL O_ASYNC|0 | F_SETOWN [-]TASK|self|[-]PID | F_SETOWN_EX F_OWNER_TID|F_OWNER_PID|F_OWNER_PGRP TASK|self|PID | F_SETSIG SIG | F_GETFL | F_GETOWN | F_GETSIG", "(task statement) fcntl() on the perf fd: O_ASYNC puts the file on the event's fasync list (perf_fasync()); " +
		"each overflow or ring wakeup then sends the F_SETOWN owner (a process; -TASK or -PID: each process of that process group; F_SETOWN_EX: a thread, a process or a group) SIGIO (si_code SI_KERNEL) or the F_SETSIG signal (si_code POLL_IN, POLL_HUP at an IOC_REFRESH limit, POLL_ERR; si_fd) from perf_event_wakeup() -> kill_fasync() -> send_sigio_to_task(); " +
		"an F_SETSIG real-time signal over the owner's RLIMIT_SIGPENDING falls back to SIGIO; the owner takes each as its sigaction says (SIG_DFL of SIGIO ends the process)"},
	{"mmap NAME PAGES [ro]", "(task statement) mmap() of the perf fd: the user page and PAGES data pages (a power of two); ro: read-only, an overwrite ring"},
	{"munmap NAME", "(task statement) munmap() of NAME's latest mapping (perf_mmap_close()); nothing mapped: returns 0 (fd.munmap-empty)"},
	{"read NAME", "(task statement) read() of the count, or of the group with read_format GROUP (observables read.value, read.nr, read.group-torn, read.decreased)"},
	{"access ADDR [r|w|x] [LEN]", "(task statement) a user access to [ADDR, ADDR+LEN) (default w, 1 byte): a breakpoint event (-e mem:ADDR:w, or type=5 bp_type=W bp_addr=ADDR bp_len=N) " +
		"installed on the CPU whose range it hits raises the #DB exception: hw_breakpoint_handler() -> perf_bp_event(); attr.sigtrap sends SIGTRAP at the return to user"},
	{"ipi cpuN at LABEL [occurrence N]", "(forced interleaving) the N-th time cpuN reaches LABEL, its pending call_function_single IPI " +
		"(event_function_call, perf_event_read, perf_install_in_context, ...) is taken there, or at the first step point after it where irqs are on; " +
		"until then the IPIs sent to cpuN are held back (not taken), so one sent earlier arrives exactly there (released if cpuN goes idle first)"},
	{"irq_work cpuN at LABEL [occurrence N]", "(forced interleaving) likewise cpuN's pending irq_work (perf_pending_irq: wakeups, pending_disable), held back until LABEL"},
	{"cpu-offline cpuN at LABEL [occurrence N]", "(forced interleaving) the N-th time LABEL is reached on any CPU, a task on cpu0 writes 0 to cpuN's online file " +
		"(_cpu_down() under cpu_hotplug_lock: tasks pushed off, perf_event_exit_cpu() removes the CPU context's events); cpu-online cpuN likewise writes 1; " +
		"the actions at TIME cpu-offline / cpu-online do the same at a time"},
	{"at LABEL [occurrence N] on cpuN: OP", "(forced action) the N-th time LABEL is reached on any CPU, a thread of the file's process waiting on cpuN " +
		"wakes (preempting what runs there) and carries out OP: open, close, ioctl, mmap, munmap or read as in a task's program"},
}
