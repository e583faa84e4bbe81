package runner

import (
	"perfsim/cpu"
	"perfsim/sched"
)

// The footprint of a task's perf fd calls (doPerfOp) in user mode, which
// runs as annotated user code (sched.CallAnnotated): the syscalls it makes
// enter through the scheduler's entry (their bodies judged there: pmu's are
// marked) and return into it unmarked, so the fragments that return there
// (exit_to_user_mode_loop, a switch back in) may be complete. What the
// user code touches that another context sees is the scenario process's
// memory: the variables its statements name an fd and its mappings by
// (fdState: the file's tasks are threads of one process, so one task's
// open() sets what another's close() reads), the counts the outcomes read
// after the run (adds commute: AtomicAdd), the last read()'s words, and
// the pids and file tables of the tasks it names. Its one look into the
// kernel, the event's read_format after a read() (pmu.Kernel.EventOf), is
// marked (cpu.CPU.Unaudited), as is the open(2) of a cgroup directory
// that a cgroup event's pid names (cgroupFD: no syscall of the model's).

// fdVar is the program's variable a scenario's name stands for: the fd an
// open bound, the mappings of it, the count its last read() returned.
type fdVar struct {
	r    *Run
	name string
}

// FootprintKey implements cpu.FootprintKeyer.
func (v fdVar) FootprintKey() string { return "fd variable " + v.name }

// FootprintExtent is where the model keeps it (explore's write audit): the
// run's fdState (made on first use: its pointer too).
func (v fdVar) FootprintExtent() []any { return []any{&v.r.fds, v.r.fds} }

// opCounts are the perf fd calls' observables (perfOpObservables, the
// errno counts), by the field named after each.
type opCounts struct{ r *Run }

// FootprintKey implements cpu.FootprintKeyer.
func (k opCounts) FootprintKey() string { return "perf-op observables" }

// FootprintExtent is fdVar's.
func (k opCounts) FootprintExtent() []any { return []any{&k.r.fds, k.r.fds} }

// accessVar annotates the user code's access to the variable name holds
// (field: "fd", "mappings", "last count").
func (r *Run) accessVar(t *sched.Task, name, field string, op cpu.AccessOp) {
	if r.M.FootprintListening() {
		t.CPU().AccessMarkedOnly(fdVar{r, name}, field, op, "the program's perf fd variables") // user memory of the scenario's process
	}
}

// countOp annotates an add to the observable name (AtomicAdd: adds
// commute) or, with set, its assignment.
func (r *Run) countOp(t *sched.Task, name string, set bool) {
	if r.M.FootprintListening() {
		op := cpu.AtomicAdd
		if set {
			op = cpu.PlainWrite
		}
		t.CPU().AccessMarkedOnly(opCounts{r}, name, op, "the program's perf-op counts") // user memory the outcomes read after the run
	}
}

// accessTask annotates the user code's read of another task's field
// (its pid, its file table) by the name the scenario gives it.
func (r *Run) accessTask(t, of *sched.Task, field string) {
	if r.M.FootprintListening() && of != nil {
		t.CPU().AccessMarkedOnly(of, field, cpu.MarkedRead, "the program's look at a task") // the pid it names, the file table it shares (written by clone/exec/unshare, code nobody annotated)
	}
}

// markUnaudited marks the user code's path into code nobody annotated.
func (r *Run) markUnaudited(t *sched.Task, fn string) {
	if r.M.FootprintListening() {
		t.CPU().Unaudited(fn)
	}
}
