package scenarios

// Task-life statements: processes and threads, exit, waits and wake-ups.
// They read like the system calls they make (strace's names).

// Program is a "program NAME" block: a program that no task runs at the
// start, for fork and thread statements to start by name.
type Program struct {
	Pos  Pos
	Name string
	Body []Op
}

// Fork starts a child: "fork NAME" (a new process, fork()) or "thread NAME"
// (a thread of the same process, pthread_create()), running the indented
// block under it, or the program NAME when there is no block.
type Fork struct {
	Pos    Pos
	Thread bool
	Name   string
	Body   []Op // nil: the program Name
	Block  bool // the body was given as a block
}

// ExitGroup ends every thread of the task's process: "exit_group".
type ExitGroup struct {
	Pos Pos
}

// Wait waits for any child process to exit and reaps it: "wait" (wait4(-1)).
type Wait struct {
	Pos Pos
}

// Join waits for the oldest thread named Name that this program created
// and has not joined to exit: "join NAME" (pthread_join()).
type Join struct {
	Pos  Pos
	Name string
}

// Pipe writes to or reads from a pipe shared by name: "pipe write P [BYTES]",
// "pipe read P [BYTES]" (1 byte when not given; a read takes what is there,
// up to BYTES, and blocks while the pipe is empty).
type Pipe struct {
	Pos   Pos
	Write bool
	Name  string
	Bytes int64
}

// Futex waits on or wakes a futex shared by name: "futex wait F" (sleeps
// until a wake), "futex wake F [N]" (wakes up to N waiters, 1 when not given).
type Futex struct {
	Pos  Pos
	Wake bool
	Name string
	N    int64
}

// Yield is sched_yield(): "yield".
type Yield struct {
	Pos Pos
}

func (o *Fork) OpPos() Pos      { return o.Pos }
func (o *ExitGroup) OpPos() Pos { return o.Pos }
func (o *Wait) OpPos() Pos      { return o.Pos }
func (o *Join) OpPos() Pos      { return o.Pos }
func (o *Pipe) OpPos() Pos      { return o.Pos }
func (o *Futex) OpPos() Pos     { return o.Pos }
func (o *Yield) OpPos() Pos     { return o.Pos }

// TaskStatements are the statements of a task's program with their syntax
// and meaning, as simrun names lists them.
var TaskStatements = []struct{ Syntax, Help string }{
	{"compute DURATION", "run in user mode for DURATION"},
	{"syscall NAME [DURATION]", "enter the kernel for system call NAME (its tracepoints fire), DURATION in the kernel"},
	{"sleep DURATION", "nanosleep(): block for DURATION (an hrtimer wakes the task)"},
	{"nanosleep DURATION", "the same as sleep"},
	{"repeat N", "run the indented block N times"},
	{"stack user|kernel FRAME;FRAME;...", "set the task's user or kernel call stack, outermost first"},
	{"migrate cpuN", "move to cpuN (sched_setaffinity to it alone)"},
	{"pin cpus LIST", "set the allowed CPUs (sched_setaffinity)"},
	{"yield", "sched_yield(): go to the back of the run queue; sched:sched_switch shows it"},
	{"fork NAME", "clone() a new process (own pid and mm, the parent's comm) running the indented block, or program NAME; it inherits the inherit events (PERF_RECORD_FORK, sched_process_fork, sched_wakeup_new)"},
	{"thread NAME", "clone3() a thread (CLONE_VM|CLONE_THREAD...: same pid, new tid) running the indented block or program NAME"},
	{"wait", "wait4(-1): block until a child process has exited and reap it (check refuses a wait with no child before it)"},
	{"join NAME", "pthread_join(): block until the oldest thread NAME this program created and has not joined is past exit_mm() (mm_release() clears its tid and wakes the futex on it; check refuses a join with no such thread before it)"},
	{"exit", "exit(): this thread ends (do_exit: sched_process_exit, perf_event_exit_task, PERF_RECORD_EXIT)"},
	{"exit_group", "exit_group(): every thread of the process ends (the others are killed on their way to user mode)"},
	{"pipe write P [BYTES]", "write BYTES (1) to pipe P; blocks while it is full; wakes a reader when it was empty"},
	{"pipe read P [BYTES]", "read up to BYTES (1) from pipe P; blocks while it is empty (nothing ever writing it: the run is reported as a hang)"},
	{"futex wait F", "futex(FUTEX_WAIT) on F: sleep until a futex wake F (none coming: a reported hang)"},
	{"sigaction SIG handler|SIG_IGN|SIG_DFL", "rt_sigaction(): SIG's disposition (a task starts with SIG_DFL everywhere, so SIGIO, SIGUSR1 and SIGTRAP end its process): an empty handler, ignore, or the default; kept by fork and threads, handlers reset to SIG_DFL at exec"},
	{"sigprocmask SIG_BLOCK|SIG_UNBLOCK|SIG_SETMASK SIG[,SIG...]|none", "rt_sigprocmask(): the thread's blocked mask (SIGKILL and SIGSTOP stay unblocked); a blocked signal is never ignored, stays pending and is taken when unblocked (a perf SIGTRAP then carries TRAP_PERF_FLAG_ASYNC); kept by fork, threads and exec"},
	{"setrlimit RLIMIT_SIGPENDING N", "prlimit64(): at most N queued signals for the user (a real-time signal beyond it is not queued: an F_SETSIG owner gets a plain SIGIO instead); inherited at fork"},
	{"futex wake F [N]", "futex(FUTEX_WAKE) on F: wake up to N (1) waiters; a wake with no waiter is lost"},
}
