package explore

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/scenarios"
	"perfsim/sched"
	"perfsim/sim"
)

// perf record's own memory that its main code, now annotated user code
// (perftool/footprint_record.go), writes between its annotated steps: only
// perf's threads touch it, and its other readers (perf's signal handlers,
// the actions' threads, the snapshot action) run Go code nobody annotated
// (marked: dependent on everything), so it is no state another context's
// complete fragment can see.
func init() {
	auditSkip = append(auditSkip,
		"perftool.Session.filters",  // the --filter strings by evsel (resolveFilters): "" for each when there is none
		"perftool.auxState.trigger", // the -S snapshot trigger, switched off once the loop ends (its reader is the SIGUSR2 handler)
	)
}

// TestWriteAuditExecRecord: the fragments an exec runs (its syscall's
// entry up to perf_event_enable_on_exec()'s step point or the exit; the
// COMM's and each MMAP's from perf_output_put_handle:nest-zero on into the
// rest of the exec), and perf record's main and its workload's child side,
// write nothing they do not annotate, on c2's shape (auxPerCPUSrc): on
// each of 2 CPUs a perf record --per-thread of a group whose workload perf
// forks and which execs when perf uncorks it (perftool's workloadChild).
func TestWriteAuditExecRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	a := auditRun(t, "aux-pause-resume-nmi-percpu", auxPerCPUSrc, 3)
	if len(a.Violations) > 0 {
		t.Errorf("declared fragments that write what they do not annotate:\n%v", a.Violations)
	}
	for _, start := range []string{"syscall_enter_from_user_mode", "exit_to_user_mode_loop", "perf_output_put_handle:nest-zero", "perf_event_task_sched_in"} {
		if a.Checked[start] == 0 {
			t.Errorf("no fragment %s checked (every one reached unaudited code)", start)
		}
	}
}

// TestWriteAuditExec: the same on built-ins that exec: one whose old mm
// holds a perf mapping (exec-vs-munmap-shared-rb: marked, exit_mmap()),
// and an inherited child with a remove_on_exec event (its context's
// enable step). (backward-ring-buffer, a perf record of a workload whose
// exec's records reach an overwritable ring, passes too: 15 s.)
func TestWriteAuditExec(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	for _, name := range []string{"exec-vs-munmap-shared-rb", "remove-on-exec-inherit-lost"} {
		t.Run(name, func(t *testing.T) {
			auditChecked(t, loadBuiltin(t, name), []string{"syscall_enter_from_user_mode", "exit_to_user_mode_loop"})
		})
	}
}

// execFragments is a cpu.SegmentListener that keeps, for one thread, the
// footprint of each fragment it starts at a step point: the keys and
// fields it touched ("key field r|w") and the marks it met ("mark FN").
// The touches belong to the context of the last boundary (as
// readerFragments).
type execFragments struct {
	name string      // the thread's name, up to its TID
	cur  *cpu.Thread // the thread whose task context runs (nil: an interrupt's)
	got  []execFragment
}

// execFragment is one fragment of the thread: its start and footprint.
type execFragment struct {
	Start   string
	Syscall string // the task's syscall in progress at the start
	Touched []string
}

func (l *execFragments) Boundary(_ *cpu.CPU, kind cpu.BoundaryKind, ctx cpu.Context, th *cpu.Thread, label string) {
	l.cur = nil
	if ctx != cpu.CtxTask || th == nil || !strings.HasPrefix(th.Name, l.name) {
		return
	}
	l.cur = th
	if kind == cpu.BoundaryStep {
		sc := ""
		if t, ok := th.Owner.(*sched.Task); ok {
			sc = t.Syscall
		}
		l.got = append(l.got, execFragment{Start: label, Syscall: sc})
	}
}

func (l *execFragments) Touch(obj any, field string, write bool) {
	if l.cur == nil || len(l.got) == 0 {
		return
	}
	f := &l.got[len(l.got)-1]
	var s string
	switch o := obj.(type) {
	case cpu.Unaudited:
		s = "mark " + string(o)
	case cpu.FootprintKeyer:
		s = o.FootprintKey() + " " + field + map[bool]string{false: " r", true: " w"}[write]
	default:
		s = "? " + field
	}
	if !slices.Contains(f.Touched, s) {
		f.Touched = append(f.Touched, s)
	}
}

// TestExecFootprint: the footprint of an exec's syscall entry fragment,
// for a task with no perf context and no perf mapping (every path
// sched/footprint_exec.go and pmu/footprint_exec.go mark skipped) on 2
// CPUs: up to its exit's step point, the whole exec annotated, no mark.
func TestExecFootprint(t *testing.T) {
	const src = `scenario exec-footprint
title "an exec's entry fragment"

cpus 2

task app cpu0
  fork child
    syscall execve "/usr/bin/next" 0 0
    compute 1us
    exit
  wait
task other cpu1
  compute 3us
`
	l := &execFragments{name: "app-103"} // the child: a fork keeps its parent's comm in its thread's name
	f, err := scenarios.Parse("exec-footprint.sim", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	realRun(t, f, nil)(sim.NewRandom(1), func(m *cpu.Machine) { m.OnSegments(l) })
	var got []execFragment
	for _, fr := range l.got {
		if fr.Syscall == "execve" {
			slices.Sort(fr.Touched)
			got = append(got, fr)
		}
	}
	// One fragment, from the entry to exit_to_user_mode_loop's step point:
	// the tracepoints' registrations (none), the registers, the path read,
	// sched_exec()'s affinity, de_thread()'s group, exec_mmap()'s task->mm
	// and the new mm's VMAs, perf_event_exec()'s context pointer (none),
	// the comm, the files (no close-on-exec fd), the inodes (the image's
	// and ld.so's made here), each perf_event_mmap()'s nr_mmap_events and
	// side-band walk (the CPU's context: no event), elf_load()'s two
	// padzero() faults (their page caches made resident, min_flt, the
	// kernel IP the page-faults event would report). No mark.
	want := []execFragment{{
		Start: "syscall_enter_from_user_mode", Syscall: "execve",
		Touched: []string{
			"ctx@cpu0 ctx->event_list r", "fakeIP@ffffffff8100cdb0 occupant w",
			"inode /usr/bin/next (i_pages) mapping->i_pages w",
			"inode /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 (i_pages) mapping->i_pages w",
			"nr_mmap_events nr_mmap_events r",
			"the file system (inodes by path) inode cache w",
			"thread:app-103 p->cpus_ptr r", "thread:app-103 p->min_flt w", "thread:app-103 signal->thread_head r",
			"thread:app-103 task->comm w", "thread:app-103 task->files r", "thread:app-103 task->mm w",
			"thread:app-103 task->perf_event_ctxp r", "thread:app-103 task_pt_regs(current) w",
			"tp:raw_syscalls:sys_enter tp_event->perf_refcount r", "tp:raw_syscalls:sys_exit tp_event->perf_refcount r",
			"tp:syscalls:sys_enter_execve tp_event->perf_refcount r", "tp:syscalls:sys_exit_execve tp_event->perf_refcount r",
			"vm#1@tid103 the program's strings (user memory) r", "vm#2@tid103 mm->mmap w",
		},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the exec's fragments (-want +got):\n%s", diff)
	}
}
