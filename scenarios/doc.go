// Package scenarios reads perfsim scenario files (*.sim): it parses them into a
// syntax tree (Parse) and checks names, CPUs and types against a Registry of what
// the simulator knows (Check). Running a scenario is the runtime's job.
//
// # The language
//
// One statement per line. A '#' that starts a word begins a comment. A line that
// ends in a backslash (outside quotes and comments) continues on the next one. Blocks are indented (spaces or
// tabs, used consistently); only task, program, fork, thread, repeat and when take a block.
//
//	# aux-pause-resume-nmi.sim
//	scenario aux-pause-resume-nmi
//	title "NMI inside a task-context AUX pause/resume"
//	cpus 1
//	pmu intel_pt caps=aux-pause,itrace
//	kernel aux-pause-guard=on
//
//	task uname cpu0
//	  repeat 3
//	    syscall newuname
//	    compute 5us
//
//	record pt: -e '{intel_pt/aux-action=start-paused/k,cycles/aux-action=pause/}' -- uname
//	nmi cpu0 at perf_event_aux_pause:guard-set occurrence 2
//
//	when aux-pause-guard=off sometimes aux.pause_resume.overlaps > 0
//	always pmu-pause-resume-exclusive
//
// # The machine and knobs
//
//	scenario NAME                 the scenario's name
//	title "TEXT"                  a one-line description
//	cpus N                        the number of CPUs, cpu0 to cpuN-1 (default 1)
//	user root|unprivileged        who the tasks run as (default root); unprivileged: no
//	                              CAP_PERFMON/CAP_IPC_LOCK, so perf_event_paranoid 2 (a task's
//	                              event must exclude the kernel: :u) and RLIMIT_MEMLOCK (8 MiB of
//	                              perf_mmap() beyond perf_event_mlock_kb) bind; perf record
//	                              runs as perf 6.1 does for such a user: an event refused
//	                              for kernel profiling falls back to :u, -a is refused, a
//	                              tracepoint is perf's error (tracefs is root's)
//	pmu NAME [KEY[=VALUE]]...     a PMU and its attributes: pmu cs_etm sink=etr size=1M
//	kernel NAME=VALUE...          kernel knobs (behaviour before/after a fix)
//	tool NAME=VALUE...            perf tool knobs
//	cgroup PATH [TASK...]         a cgroup v2 directory /sys/fs/cgroup/PATH (a or a/b, its
//	                              parent on an earlier line) and the tasks in it from the start
//
// # Tasks
//
//	task NAME [cpu N | cpus LIST] [nice N]
//	  compute 5us                 run in user space for a while
//	  syscall NAME                enter the kernel; fires the syscall's tracepoints
//	  syscall NAME 2ms            ... and spend 2ms in the kernel
//	  syscall NAME ARG... [as V]  with its arguments, the result bound to V
//	  touch V N [write]           access N pages from address V: first touches fault (a file's
//	                              through its page cache: fault-around, readahead; kernel read-ahead-kb)
//	  sleep 1ms                   block (nanosleep: up to the task's timer slack late,
//	                              kernel timer-slack, 50us by default; prctl PR_SET_TIMERSLACK)
//	  repeat N                    run the indented block N times
//	  stack user main;foo;bar     the current user call stack, outermost first
//	  stack kernel f;g            the current kernel call stack
//	  migrate cpu2                move to another CPU
//	  pin cpu1 | pin cpus 0-1     set the affinity (and move if needed: sched_setaffinity()
//	                              of the running task waits in D while its CPU's stopper,
//	                              migration/N, moves it; sched_switch shows prev_state=D)
//	  exit                        end the task (also implied at the end)
//	  yield                       sched_yield()
//	  nanosleep 1ms               the same as sleep: the nanosleep syscall (sys_enter_nanosleep fires;
//	                              glibc's nanosleep() and sleep() make clock_nanosleep instead)
//	  fork NAME                   a child process (new pid and mm, the parent's comm)
//	    compute 5us               ... running this block (or program NAME)
//	  thread NAME                 a thread (same pid, new tid, same mm)
//	  wait                        wait4(-1): reap a child that exited (blocks until one does)
//	  join NAME                   pthread_join(): wait for the oldest unjoined thread NAME this
//	                              program created (its exit_mm() clears and futex-wakes its tid)
//	  exit_group                  end every thread of the process
//	  pipe write P [BYTES]        write to pipe P (by name; blocks while full)
//	  pipe read P [BYTES]         read from pipe P (blocks while empty)
//	  futex wait F                sleep until a futex wake F
//	  futex wake F [N]            wake up to N waiters of F (a wake nobody waits for is lost)
//
//	program NAME                  a program for fork and thread to start by name
//	  compute 5us
//	  open NAME -e EVENT [cpuN] [pid TASK|self|-1] [group NAME] [flags F,F] [FIELD=VALUE|FLAG...]
//	                              perf_event_open(); NAME is bound to the fd returned
//	  close NAME                  close() of the perf fd
//	  ioctl NAME REQUEST [ARG] [group]   ENABLE, DISABLE, SET_OUTPUT NAME|-1, PERIOD N, ...
//	  mmap NAME PAGES [ro]        map the ring: the user page and PAGES data pages
//	  mmap NAME aux PAGES [ro]    map the ring's AUX area (an AUX event's, like intel_pt//u):
//	                              set user_page->aux_offset and aux_size, mmap at that offset
//	  munmap NAME                 unmap NAME's latest mapping in the task's own mm (a forked
//	                              child's mappings are its own)
//	  read NAME                   read() the count (or the group, read_format=GROUP)
//	  access ADDR [r|w|x] [LEN]   a user access: breakpoint events on it fire
//
// The perf fd calls take EVENT as perf record -e does and perf_event_attr
// fields by their C names (sample_type=IP|TID|READ, read_format=GROUP|ID,
// sig_data=42, bp_addr=0x1000, ...) or as bare flags (disabled, sigtrap,
// remove_on_exec, ...). The file's tasks are threads of one process: any of
// them may use a NAME another opened (a forked child uses its copy of the fd). A failed call is not an error of the
// file: its errno is counted (errno.EBADF, ...).
//
// A CPU is written cpu2 or cpu 2; a list is 0-3,5. Without cpu or cpus a task
// may run anywhere: CFS places a task whose affinity holds more than one
// CPU (kernel sched-balance=cfs, the default: the idlest CPU when it is made
// or execs, an idle one at its wake-ups; sched-balance=off keeps it on its
// first allowed CPU). Nice is -20 to 19. A child has its parent's affinity,
// is placed from its parent's CPU and inherits perf's inherit events. check refuses a fork
// of an unknown program, a statement after exit or exit_group, and a wait
// with no child forked before it. A run whose remaining tasks all wait for
// a wake that cannot come (a pipe nobody writes, a futex nobody wakes) stops
// as a hang with its schedule: "hang at T: no task can ever run again,
// deadlock: blocked forever: a/101 (futex f) (replay token ...)", status 3.
//
// A syscall is named as in syscall_64.tbl (uname) or after its entry point
// (newuname); it takes no arguments (all zero) or exactly as many as its
// syscalls:sys_enter_NAME format file has. An argument is a number (-1 is
// an int: 0xffffffff in the register, as glibc passes it; an off_t, loff_t,
// size_t or pointer argument takes it as 64 bits, so lseek fd -5 SEEK_SET
// is EINVAL), a constant
// (PR_SET_NAME, PROT_READ|PROT_EXEC, MAP_PRIVATE|MAP_ANONYMOUS, O_RDONLY,
// AT_FDCWD: simrun names syscalls lists them), a "string" (passed by its
// address; it may hold blanks and a '#', with \" \\ \n \t as escapes), or a
// variable an earlier "as V" of the task bound:
//
//	syscall prctl PR_SET_NAME "worker" 0 0 0
//	syscall prctl PR_SET_NAME "my worker" 0 0 0
//	syscall openat AT_FDCWD "/usr/lib/libfoo.so" O_RDONLY 0 as fd
//	syscall mmap 0 16384 PROT_READ|PROT_EXEC MAP_PRIVATE fd 0 as lib
//	touch lib 4
//
// close, read, write, pread64, pwrite64, lseek (SEEK_SET, SEEK_CUR, SEEK_END, SEEK_DATA,
// SEEK_HOLE), fsync, fdatasync, open/openat/creat (O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL,
// O_APPEND, O_CLOEXEC, O_TRUNC), ftruncate, fcntl (F_GETFD/F_SETFD),
// prctl (PR_SET_NAME, PR_SET_TIMERSLACK, PR_GET_TIMERSLACK), mmap (MAP_POPULATE, MAP_LOCKED,
// MAP_NONBLOCK), mprotect, munmap, brk, mremap,
// madvise (MADV_DONTNEED, MADV_FREE, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED), fadvise64
// (POSIX_FADV_WILLNEED, POSIX_FADV_DONTNEED, POSIX_FADV_SEQUENTIAL, POSIX_FADV_RANDOM, ...) and execve
// act on the task's fd table, its address space and the page cache (a COMM, MMAP2 records, page
// faults, the disk's reads and writebacks; exec kills the other threads and closes the close-on-exec
// fds). Every path exists (of unknown size) but one an O_CREAT|O_EXCL creates (empty); a file
// has no holes and ends at ext4's s_maxbytes (16 TiB - 4 KiB: past it EFBIG, or EINVAL for
// lseek). The buffer of read, write, pread64 and pwrite64 is the task's memory: the kernel's
// copy faults its pages in (page-faults events with kernel regs, so :u does not count them)
// and stops at a page nothing maps, returning what it copied or EFAULT (a NULL buffer is
// EFAULT): map one first (syscall mmap ... as buf; syscall read fd buf 4096). A tty's write
// copies 2048 bytes at a time; /dev/null's takes the count unread; a read of a tty or a /dev
// file returns 0; a read of a perf fd (by its number) is perf_read() with that count (ENOSPC
// under read_size), a write of one EINVAL.
// Every other syscall returns 0.
//
// # Perf sessions
//
//	record [NAME:] ARGS...        perf record's options: record -e cycles -c 1000 -- uname
//	perf record ARGS...           the same, pasted from a bug report
//
// ARGS are split like a shell splits words, without expansions: '...' is literal,
// in "..." a backslash escapes " \ $ and `, elsewhere a backslash escapes the
// next character. A quote must close on its line. Pipes and redirections are
// errors. The word after -- names the task perf starts. -p NAME and -t NAME
// (comma-separated lists too) attach perf to tasks already running, as perf
// record -p PID / -t TID do: NAME is a task of the file (-p: its process,
// every thread it has when perf starts) or the program of a fork or thread
// statement. NAME (record NAME: ...) lets actions refer to the session.
//
// # Actions at virtual times
//
//	at TIME VERB [ARG...]         at 50ms snapshot cs, at 1ms pause-output rb, at 2ms read
//
// The verbs and their arguments (a session, a task, a CPU, a number...) come from
// the simulator: snapshot, pause-output, resume-output, enable, disable, read,
// munmap, ...
//
// # Forced interleavings
//
// For a hand-written reproducer, make something happen when execution reaches a
// step point (a label in the kernel model) for the N-th time (default the first):
//
//	nmi cpuN at LABEL [occurrence N]
//	preempt TASK at LABEL [occurrence N]
//	migrate TASK to cpuN at LABEL [occurrence N]
//	ipi cpuN at LABEL [occurrence N]        take cpuN's pending cross-CPU call there
//	irq_work cpuN at LABEL [occurrence N]   take cpuN's pending irq_work there
//	at LABEL [occurrence N] on cpuN: OP     a thread on cpuN carries out OP (close NAME, ...)
//	cpu-offline cpuN at LABEL [occurrence N]  the write taking cpuN offline starts (on cpu0)
//	cpu-online cpuN at LABEL [occurrence N]   likewise bringing it back
//
// The same hotplug writes at a time are the actions "at TIME cpu-offline cpuN"
// and "at TIME cpu-online cpuN".
//
// Cgroups change with the actions "at TIME cgroup-mkdir PATH", "at TIME
// cgroup-attach TASK PATH" (cgroup_attach_task(): perf switches the task's
// CPU's cgroup events) and "at TIME cgroup-rmdir PATH". A cgroup event is
// "open NAME -e EVENT cpuN flags pid_cgroup pid PATH" (the cgroup
// directory's fd as pid), or perf record -a -e EVENT -G PATH.
//
// LABEL looks like perf_event_aux_pause:guard-set.
//
// # Failed allocations
//
// The kernel's fault injection (failslab, fail_page_alloc, fail-nth), on the
// allocations the model makes:
//
//	fail SITE in NAME [occurrence N]   the N-th call of SITE by task NAME (or
//	                                   session NAME's perf) fails
//	fail SITE in NAME occurrence any   the search decides which call fails, if any
//
// SITE is an allocation of the kernel (rb_alloc, remap_pfn_range, ...;
// simrun names faults lists them with the calls that reach them and what
// their callers return, -ENOMEM but for one), or any (every site), and the
// kernel takes its error path: the syscall fails, a fork that inherits
// events fails; a fork's own allocations after perf_event_init_task()
// (dup_fd, copy_fs_struct, copy_sighand, copy_signal, dup_mm, alloc_pid)
// fail it with -ENOMEM through perf_event_free_task(). The kernel's
// fail-nth counts every
// allocation; a fail line counts only its site's calls by its task ("fail
// any in T occurrence N" is fail-nth over the model's sites). With
// occurrence any each call is a decision, fail or not (a disturbing one
// when it fails), so "explore --strategy bounded --budget 1" fails each of
// the task's allocations in turn, as syzkaller's fail-nth loop does. A line
// fails one call at most. faults.injected counts the failures made,
// faults.unfired the lines that failed none.
//
// # Outcomes
//
//	always EXPR [at end | at TIME]     holds in every explored schedule
//	never EXPR [at end | at TIME]      holds in none
//	sometimes EXPR [at end | at TIME]  holds in at least one
//
// An outcome is evaluated at the end of the run unless "at TIME" says otherwise.
// An outcome that applies only with some knob values starts with when; a when
// line may also hold a block of outcomes (and nested when lines):
//
//	when aux-pause-guard=off sometimes aux.pause_resume.overlaps > 0
//	when aux-pause-guard=on
//	  always pmu-pause-resume-exclusive
//
// "always kernel.oops" states an oops as the run's expected end (an upstream
// bug whose symptom is an oops on that kernel): the oops then fails neither
// the run nor an exploration by itself; a run that does not oops fails it.
// "always kernel.oops || EXPR" states it for the schedules that reach it: a
// run oopses or meets EXPR.
//
// A when condition names a kernel or tool knob. The runtime runs the scenario
// once per knob value the outcomes mention; the kernel and tool lines give the
// default.
//
// EXPR is built from, loosest binding first: || ; && ; == != < <= > >= (which do
// not chain) ; + - ; * / ; the prefixes ! and - ; and numbers, names and
// parentheses. A name is an observable (aux.paused, aux.records, cpu0.nmis: a
// number or a flag; task.main.var.pos: what main's program bound with "as pos",
// a failed call's -errno; simrun names observables lists them) or an invariant
// (pmu-pause-resume-exclusive: a condition). A name listed with [EVENT] takes
// one of its session's events, named as perf script -F event names it,
// between [ and ]: r.perf.samples[syscalls:sys_enter_close],
// r.perf.samples[cpu-clock/period=1000/] (no blank, bracket or # in it). In
// a name, '-' and '.' between two letters or digits belong to the name, so
// subtraction needs blanks: "rb.head - rb.tail", never "rb.head-rb.tail".
// Numbers may use _ separators (3_000_000) or 0x hex.
//
// # Units
//
// Durations: ns, us, ms, s (5us, 2ms). Sizes: K, M, G, powers of 1024 (4K, 1M).
// Both are integers: write 1500us, not 1.5ms. In outcomes a size counts bytes and
// a duration nanoseconds.
//
// # Limits
//
// A run ends when every task has exited and nothing is left to do. It stops
// earlier at one of its limits, which simrun run takes as flags (and
// runner.Options as fields): the virtual time (--time, 10s by default), the
// engine steps (--max-steps, 100000000: lane runs, decisions, time advances
// and repeat rounds), the wall clock (--max-wall, 30s) and the heap
// (--max-memory, 2G). A run stopped at a limit has no verdict: simrun says
// "stopped at the step limit of 100000000 steps at 0 (raise it with
// --max-steps)" and exits with status 3. A duration longer than the time
// limit simply runs into it.
//
// An action or an "at TIME" outcome after the time limit is an error (the
// run would stop before it); after every task has exited is fine: the run
// goes on until then. A file with neither a task nor a record line has
// nothing to run and is an error.
//
// Numbers are 64-bit: a count, size or duration that does not fit is an
// error, and so is outcome arithmetic that would wrap around (at check time
// for numbers alone, as an error of the outcome at run time otherwise).
// Expressions and blocks nest at most 200 deep.
//
// perf record lines are parsed as perf parses them, by simrun check too:
// what perf refuses is an error at the word at fault; what perf accepts and
// adjusts (-m 3, -F beyond perf_event_max_sample_rate) it says, in its own
// words, at the option (file:line:col: perf record: rounding mmap pages size
// to 16K (4 pages)); -c 0, which perf takes silently for its default
// frequency, gets a note. A session that gives up (perf.error is 1) says why.
// Under user unprivileged perf record runs as perf 6.1 does for such a user:
// an event the kernel refuses for kernel profiling is opened again as NAME:u
// (said with -v), -a is refused with perf's perf_event_paranoid text, a
// tracepoint is perf's error (it cannot read tracefs). -D MSECS starts the
// events disabled and has perf enable them MSECS after it releases the
// workload ("Events disabled", "Events enabled"; -D -1: never).
// The perf.data a run keeps in memory is bounded (64 MiB); past it its
// records are counted, not kept: simrun run --perf-data DIR writes it to
// disk as it is recorded, whatever its size.
//
// # Errors
//
// Errors point at file:line:col and say what was expected:
//
//	aux.sim:7:13: expected a duration like 5us or 2ms, found "5x"
//		    compute 5x
//		            ^
package scenarios
