package scenarios

import (
	"fmt"
	"strings"
)

// PerfOp is a system call on a perf event file in a task's program, or the
// action of a forced "at LABEL on cpuN: OP":
//
//	open NAME -e TERM [cpuN] [pid TASK|self|-1] [group NAME] [flags F,F] [FIELD=VALUE|FLAG...]
//	close NAME
//	ioctl NAME REQUEST [ARG] [group]
//	ioctl NAME SET_FILTER FILTER...          (the rest of the line)
//	ioctl NAME MODIFY_ATTRIBUTES [-e] EVENT [FIELD=VALUE...]
//	mmap NAME PAGES [ro]
//	munmap NAME
//	read NAME
//	fcntl NAME F_SETFL O_ASYNC|0 | F_SETOWN [-]TASK|self|[-]PID | F_SETOWN_EX TYPE TASK|self|PID | F_SETSIG SIG | F_GETFL | F_GETOWN | F_GETSIG
//
// NAME names the fd: open binds it to the fd perf_event_open() returned.
type PerfOp struct {
	Pos  Pos
	Verb string // open, close, ioctl, mmap, munmap, read
	FD   *Ident

	// open
	Event  *Ident     // the -e term (a perf record -e event); nil: the attr is given by fields
	Fields []*Setting // attr fields: sample_type=IP|TID, read_format=GROUP, period=1000, sigtrap, ...
	CPU    int        // -1: any CPU
	CPUPos Pos
	PID    *Ident // a task name, self or -1; nil: self without a CPU, -1 with one
	Group  *Ident // group_fd's name
	Flags  []*Ident

	// ioctl (MODIFY_ATTRIBUTES takes its new attr in Event and Fields)
	Request    *Ident // ENABLE, DISABLE, ..., or a number
	Arg        *Ident // a number, an fd name (SET_OUTPUT), or nil
	AllOfGroup bool   // PERF_IOC_FLAG_GROUP
	Filter     string // SET_FILTER: the filter, the rest of the line
	FilterPos  Pos

	// fcntl: Request is the command (F_SETFL, F_SETOWN, F_SETSIG, F_GETFL,
	// F_GETOWN, F_GETSIG), Arg its argument (O_ASYNC or 0, a task name or
	// self, -TASK or a pid for a process group, a signal name or number;
	// F_SETOWN_EX: the owner type), Owner F_SETOWN_EX's owner
	Owner *Ident

	// mmap
	Pages    int64 // data pages (a power of two, or 0 for the user page only); AUX pages with Aux
	ReadOnly bool  // a read-only mapping (an overwrite buffer)
	// Aux: mmap NAME aux N maps the ring's AUX area of N pages (a power of
	// two) after its data pages, as perf's auxtrace_mmap__mmap() does: it
	// sets user_page->aux_offset and aux_size, then maps at that offset
	Aux bool
}

func (o *PerfOp) OpPos() Pos { return o.Pos }

// String is the op as written (for traces and notes).
func (o *PerfOp) String() string {
	var b strings.Builder
	b.WriteString(o.Verb + " " + o.FD.Name)
	switch o.Verb {
	case "open":
		if o.Event != nil {
			b.WriteString(" -e " + o.Event.Name)
		}
		if o.CPU >= 0 {
			fmt.Fprintf(&b, " cpu%d", o.CPU)
		}
		if o.PID != nil {
			b.WriteString(" pid " + o.PID.Name)
		}
		if o.Group != nil {
			b.WriteString(" group " + o.Group.Name)
		}
		for _, f := range o.Flags {
			b.WriteString(" flags " + f.Name)
		}
		for _, s := range o.Fields {
			b.WriteString(" " + s.Name)
			if s.Value != "" {
				b.WriteString("=" + s.Value)
			}
		}
	case "fcntl":
		b.WriteString(" " + o.Request.Name)
		if o.Arg != nil {
			b.WriteString(" " + o.Arg.Name)
		}
		if o.Owner != nil {
			b.WriteString(" " + o.Owner.Name)
		}
	case "ioctl":
		b.WriteString(" " + o.Request.Name)
		if o.Filter != "" {
			b.WriteString(" " + o.Filter)
		}
		if o.Event != nil {
			b.WriteString(" " + o.Event.Name)
			for _, s := range o.Fields {
				b.WriteString(" " + s.Name)
				if s.Value != "" {
					b.WriteString("=" + s.Value)
				}
			}
		}
		if o.Arg != nil {
			b.WriteString(" " + o.Arg.Name)
		}
		if o.AllOfGroup {
			b.WriteString(" group")
		}
	case "mmap":
		if o.Aux {
			b.WriteString(" aux")
		}
		fmt.Fprintf(&b, " %d", o.Pages)
		if o.ReadOnly {
			b.WriteString(" ro")
		}
	}
	return b.String()
}

// PerfOpVerbs are the perf file system calls of a task's program.
var PerfOpVerbs = []string{"open", "close", "ioctl", "mmap", "munmap", "read", "fcntl"}

// IoctlRequests are the request names of "ioctl NAME REQUEST" (without their
// PERF_EVENT_IOC_ prefix, which may also be written).
var IoctlRequests = []string{"ENABLE", "DISABLE", "REFRESH", "RESET", "PERIOD", "SET_OUTPUT",
	"SET_FILTER", "ID", "SET_BPF", "PAUSE_OUTPUT", "QUERY_BPF", "MODIFY_ATTRIBUTES"}

// IoctlRequest returns the request name of s (PERF_EVENT_IOC_ prefix removed)
// and whether it is one of IoctlRequests.
func IoctlRequest(s string) (string, bool) {
	s = strings.TrimPrefix(s, "PERF_EVENT_IOC_")
	for _, r := range IoctlRequests {
		if r == s {
			return s, true
		}
	}
	return s, false
}

// Access is a user access to memory in a task's program: "access 0x1000 w 8"
// (r, w or x; the length defaults to 1): a breakpoint event whose range it
// hits raises the debug exception. (touch is the page-touching statement:
// ast_syscall.go.)
type Access struct {
	Pos  Pos
	Addr uint64
	Kind string // r, w or x
	Len  uint64
}

func (o *Access) OpPos() Pos { return o.Pos }
