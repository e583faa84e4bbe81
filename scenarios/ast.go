package scenarios

import (
	"fmt"
	"time"
)

// Pos is a position in a scenario file: 1-based line and 1-based byte column.
// The zero Pos means "no position".
type Pos struct {
	Line, Col int
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// IsValid reports whether p is a real position.
func (p Pos) IsValid() bool { return p.Line > 0 }

// File is a parsed scenario file. Statements of one kind keep their order in the file.
type File struct {
	Name string // the file name given to Parse, used in errors

	Scenario *Ident // scenario NAME; nil if absent
	Title    *Text  // title "..."; nil if absent
	CPUs     *Int   // cpus N; nil if absent (the machine then has 1 CPU)
	// User is user root|unprivileged: the credentials every task (and
	// perf) runs with; nil if absent (root).
	User *Ident

	PMUs     []*PMU
	Cgroups  []*CgroupLine // cgroup PATH [TASK...] (cgroup.go)
	Kernel   []*Setting    // kernel NAME=VALUE
	Tool     []*Setting    // tool NAME=VALUE
	Tasks    []*Task
	Programs []*Program // program NAME blocks (ast_task.go)
	Records  []*Record
	Actions  []*Action
	Forces   []*Force
	Fails    []*Fail // fail SITE in NAME (parse_fail.go)
	Outcomes []*Outcome

	lines []string // the physical source lines, for error snippets
	// texts are OutcomeText of each outcome Parse made (a run's result
	// names every outcome)
	texts map[*Outcome]string
}

// Unprivileged reports whether the file's tasks run as an unprivileged
// user (user unprivileged): no CAP_PERFMON, CAP_SYS_ADMIN or CAP_IPC_LOCK,
// so perf_event_paranoid (2) and RLIMIT_MEMLOCK (8 MiB) bind them.
func (f *File) Unprivileged() bool { return f.User != nil && f.User.Name == "unprivileged" }

// NumCPUs returns the number of CPUs the file asks for (1 without a cpus line).
func (f *File) NumCPUs() int {
	if f.CPUs == nil || f.CPUs.Value < 1 {
		return 1
	}
	return int(f.CPUs.Value)
}

// Ident is a name with its position.
type Ident struct {
	Pos  Pos
	Name string
}

// Text is a free text with its position (the title).
type Text struct {
	Pos  Pos
	Text string
}

// Int is an integer with its position.
type Int struct {
	Pos   Pos
	Value int64
}

// Setting is one NAME=VALUE word: a kernel or tool knob, a PMU attribute, or a
// condition of a when clause. Value is the raw text after '='; it is "" for a bare
// NAME (PMU attributes only).
type Setting struct {
	Pos      Pos // of the name
	Name     string
	ValuePos Pos
	Value    string
}

// PMU is a "pmu NAME key=value..." line: a PMU present in the machine.
type PMU struct {
	Pos   Pos
	Name  string
	Attrs []*Setting
}

// Attr returns the value of the attribute key and whether it was given.
func (p *PMU) Attr(key string) (string, bool) {
	for _, a := range p.Attrs {
		if a.Name == key {
			return a.Value, true
		}
	}
	return "", false
}

// Task is a "task NAME [cpu N | cpus LIST] [nice N]" line and its program.
type Task struct {
	Pos      Pos
	Name     string
	Affinity *CPUSet // nil: may run on any CPU
	Nice     *Int    // nil: nice 0
	Body     []Op
}

// CPUSet is a set of CPUs written "cpu2", "cpu 2" or "cpus 0-3,5".
// CPUs is sorted and without duplicates.
type CPUSet struct {
	Pos  Pos
	CPUs []int
}

// Op is one statement of a task's program: *Compute, *Syscall, *Sleep, *Repeat,
// *Stack, *Migrate, *Pin, *Exit, or one of ast_task.go's.
type Op interface {
	OpPos() Pos
}

// Compute runs in user space for Dur of virtual time: "compute 5us".
type Compute struct {
	Pos Pos
	Dur time.Duration
}

// Syscall enters the kernel for the named system call and fires its tracepoints
// (syscalls:sys_enter_NAME, raw_syscalls:sys_enter, ...): "syscall close".
type Syscall struct {
	Pos  Pos
	Name string
	Dur  time.Duration // time in the kernel ("syscall read 2ms"); 0: the default cost
	// Args are its arguments ("syscall prctl PR_SET_NAME "worker""; none:
	// all zero); Bind names the variable its return value is bound to
	// ("... as buf"), at BindPos.
	Args    []SysArg
	Bind    string
	BindPos Pos
}

// Sleep blocks the task for Dur: "sleep 1ms".
type Sleep struct {
	Pos Pos
	Dur time.Duration
}

// Repeat runs Body Count times: "repeat 3" and an indented block.
type Repeat struct {
	Pos   Pos
	Count int64
	Body  []Op
}

// Stack sets the task's current user or kernel call stack, outermost frame first:
// "stack user main;foo;bar".
type Stack struct {
	Pos    Pos
	Kernel bool // "stack kernel"; false for "stack user"
	Frames []string
}

// Migrate moves the task to another CPU at this point of its program: "migrate cpu2".
type Migrate struct {
	Pos Pos
	CPU int
}

// Pin sets the task's affinity (and migrates it if needed): "pin cpu1", "pin cpus 0-1".
type Pin struct {
	Pos  Pos
	CPUs CPUSet
}

// Exit ends the task: "exit".
type Exit struct {
	Pos Pos
}

func (o *Compute) OpPos() Pos { return o.Pos }
func (o *Syscall) OpPos() Pos { return o.Pos }
func (o *Sleep) OpPos() Pos   { return o.Pos }
func (o *Repeat) OpPos() Pos  { return o.Pos }
func (o *Stack) OpPos() Pos   { return o.Pos }
func (o *Migrate) OpPos() Pos { return o.Pos }
func (o *Pin) OpPos() Pos     { return o.Pos }
func (o *Exit) OpPos() Pos    { return o.Pos }

// Record is a perf session: "record [NAME:] ARGS..." or "perf record ARGS...".
// Args is the argv after "record" (without "perf record"), split like a shell would.
type Record struct {
	Pos  Pos
	Name *Ident // the session name; nil if not given
	Args []Word
}

// Argv returns the words of the command line as strings.
func (r *Record) Argv() []string {
	out := make([]string, len(r.Args))
	for i, w := range r.Args {
		out[i] = w.Text
	}
	return out
}

// Workload returns the word after "--" (the task perf record starts), if any.
func (r *Record) Workload() (Word, bool) {
	for i, w := range r.Args {
		if w.Text == "--" && !w.Quoted && i+1 < len(r.Args) {
			return r.Args[i+1], true
		}
	}
	return Word{}, false
}

// Word is one shell word of a record line: its text after quote removal, the
// position of its first character, and the source position of every byte of Text.
type Word struct {
	Pos    Pos
	Text   string
	Quoted bool  // some part of it was quoted or escaped
	src    []Pos // src[i] is where Text[i] came from
}

// PosAt returns the source position of byte i of w.Text, so an error found by
// the record parser at an offset inside an argument points at the right column.
// i is clamped to [0, len(Text)]; len(Text) is the position just after the word.
func (w Word) PosAt(i int) Pos {
	if len(w.src) == 0 {
		return w.Pos
	}
	if i < 0 {
		i = 0
	}
	if i >= len(w.src) {
		i = len(w.src) - 1
	}
	return w.src[i]
}

// Action is something done at a virtual time: "at 50ms snapshot [ARGS...]".
// The verb and its arguments are checked against the Registry.
type Action struct {
	Pos   Pos // of "at"
	At    time.Duration
	AtPos Pos // of the time
	Verb  *Ident
	Args  []*Ident
}

// ForceKind says what a forced interleaving does.
type ForceKind int

const (
	ForceNMI     ForceKind = iota + 1 // nmi cpuN at LABEL
	ForcePreempt                      // preempt TASK at LABEL
	ForceMigrate                      // migrate TASK to cpuN at LABEL
	ForceIPI                          // ipi cpuN at LABEL: deliver cpuN's pending call_function_single IPI there
	ForceIRQWork                      // irq_work cpuN at LABEL: deliver cpuN's pending irq_work IPI there
	ForceAction                       // at LABEL on cpuN: OP (a PerfOp run by a task on cpuN)
	ForceOffline                      // cpu-offline cpuN at LABEL: the write that takes cpuN offline starts there
	ForceOnline                       // cpu-online cpuN at LABEL: likewise bringing it back
)

func (k ForceKind) String() string {
	switch k {
	case ForceNMI:
		return "nmi"
	case ForcePreempt:
		return "preempt"
	case ForceMigrate:
		return "migrate"
	case ForceIPI:
		return "ipi"
	case ForceIRQWork:
		return "irq_work"
	case ForceAction:
		return "action"
	case ForceOffline:
		return "cpu-offline"
	case ForceOnline:
		return "cpu-online"
	}
	return fmt.Sprintf("ForceKind(%d)", int(k))
}

// Force is a forced interleaving for a hand-written reproducer: when execution
// reaches the step point Label for the Occurrence-th time (1-based), deliver an
// NMI on CPU, preempt Task, or migrate Task to CPU.
type Force struct {
	Pos        Pos
	Kind       ForceKind
	CPU        int     // nmi: the CPU; migrate: the destination; otherwise -1
	CPUPos     Pos     // where CPU was written
	Task       *Ident  // preempt and migrate; nil for nmi
	Label      *Ident  // the step point, e.g. perf_event_aux_pause:guard-set
	Occurrence int     // 1 unless "occurrence N" was given
	Op         *PerfOp // ForceAction: what the task on CPU does
}

// Quantifier is the litmus quantifier of an outcome.
type Quantifier int

const (
	Always    Quantifier = iota + 1 // holds in every explored schedule
	Never                           // holds in no explored schedule
	Sometimes                       // holds in at least one explored schedule
)

func (q Quantifier) String() string {
	switch q {
	case Always:
		return "always"
	case Never:
		return "never"
	case Sometimes:
		return "sometimes"
	}
	return fmt.Sprintf("Quantifier(%d)", int(q))
}

// Outcome is "[when KNOB=VALUE...] always|never|sometimes EXPR [at end | at TIME]".
type Outcome struct {
	Pos   Pos // of the quantifier
	When  []*Setting
	Quant Quantifier
	Cond  Expr
	At    *time.Duration // nil: at end
	AtPos Pos            // of the time after at (when At is set)
}
