package explore

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/scenarios"
)

// compArea is one kind of reason the component-wise guard refuses a run:
// which code it stops at (the fragments nobody declared complete, by the
// kernel path they start on) or which check fails.
type compArea struct {
	name     string
	prefixes []string // fragment starts (step labels, "enter:", "start:") of the area
	contains string   // or: a reason text that contains this
}

// compAreas are the areas of the real model's code the replicated AUX
// pause/resume scenario runs, in the order the census prints them.
var compAreas = []compArea{
	{name: "setup: perf opens, installs, maps, enables", prefixes: []string{"perf_install_in_context", "__perf_install_in_context", "perf_group_attach", "perf_ioctl", "perf_trace_init", "perf_mmap:", "perf_mmap_aux", "rb_alloc_aux", "ring_buffer_attach", "perf_event_enable_on_exec", "smp_call_function_single", "enter:call_function_single"}},
	{name: "teardown: close, munmap, exit", prefixes: []string{"perf_event_release_kernel", "perf_remove_from_context", "__perf_remove_from_context", "perf_mmap_close", "perf_event_exit_task_context", "task_work_run", "perf_trace_destroy"}},
	{name: "perf tool: reading the rings, poll", prefixes: []string{"ring_buffer_read_head", "auxtrace_mmap__", "perf_poll"}},
	{name: "syscall entry and exit", prefixes: []string{"syscall_enter_from_user_mode", "exit_to_user_mode_loop"}},
	{name: "scheduling: context switch, ctx/event sched in/out", prefixes: []string{"__schedule", "context_switch", "perf_event_task_sched_", "ctx_sched_", "event_sched_"}},
	{name: "output: the ring buffer and AUX handle", prefixes: []string{"perf_output_", "__perf_output_begin", "perf_aux_output_"}},
	{name: "aux pause/resume and intel_pt", prefixes: []string{"perf_event_aux_pause", "pt_"}},
	{name: "a thread's first fragment", prefixes: []string{"start:"}},
	{name: "declared fragments that reach unaudited code", contains: "(cpu.CPU.Unaudited)"},
	{name: "objects with no stable key", contains: "no stable key"},
	{name: "posts across CPUs (IPIs, timers, irq_work)", contains: "posts to another CPU"},
	{name: "a thread on two CPUs", contains: "runs on cpu"},
	{name: "an object two CPUs share", contains: " is touched by "},
	{name: "a sum one CPU reads while another adds", contains: " is added to by "},
	{name: "a CPU's decisions depend on another's", contains: "depends on more than its own decisions"},
	{name: "a decision across CPUs", contains: "decision "},
}

const undeclared = ": not declared complete (cpu.DeclareComplete)"

// compAreaOf names the area of one refusal reason; "" when none fits. A
// fragment declared complete up to some step points (cpu.DeclareCompleteUntil)
// that ended at another counts in the area of its start.
func compAreaOf(reason string) string {
	start, ok := strings.CutPrefix(reason, "fragment ")
	if ok && strings.HasSuffix(start, "(cpu.DeclareCompleteUntil)") {
		start, _, ok = strings.Cut(start, " ended at ")
	} else {
		start, ok = strings.CutSuffix(start, undeclared)
	}
	if ok {
		for _, a := range compAreas {
			for _, p := range a.prefixes {
				if strings.HasPrefix(start, p) {
					return a.name
				}
			}
		}
		return ""
	}
	for _, a := range compAreas {
		if a.contains != "" && strings.Contains(reason, a.contains) {
			return a.name
		}
	}
	return ""
}

// compCensus groups a survey's reasons by area: per area, the distinct
// reasons and how often the guard met them.
func compCensus(reasons map[string]int) (distinct, met map[string]int, unknown []string) {
	distinct, met = map[string]int{}, map[string]int{}
	for r, n := range reasons {
		a := compAreaOf(r)
		if a == "" {
			unknown = append(unknown, r)
			continue
		}
		distinct[a]++
		met[a] += n
	}
	sort.Strings(unknown)
	return distinct, met, unknown
}

// TestCompRealShapeCensus: every reason the guard gives on the real
// replicated scenario (2 CPUs, 2 triggers, 1 NMI each, 3 schedules) is one
// of the known areas, and the areas that make the claim impossible today
// are all there: undeclared fragments of every path the scenario runs,
// objects with no stable key, and perf's posts across CPUs. Those posts
// are structural, not a matter of annotation: perf record with a CPU map
// opens each session's events on every CPU (its system-wide tracking dummy
// too, in every CPU's context), installs them by IPI, and reads every
// ring; one session's open reschedules the other's dummy on its CPU (the
// data race mmap-update-time names, at schedule 1). With --per-thread
// (the dummy CPU map: cpu -1) nothing crosses: no post, no thread on two
// CPUs, and what is left is declarations, the objects the two sessions'
// setups share (event_mutex, tracepoints_mutex, cpu_hotplug_lock,
// perf_event_id), the run queues a CPU going idle looks at
// (sched_balance_newidle(): rd->overloaded and the busiest queue, which
// the model derives from every CPU's rq@cpuN), CPU contexts' fields read
// from the other CPU, and the fd table and mm of the runner's tasks, one
// process (pinned below): since every touched object has a
// stable key, no reason is an object without one.
// PERFSIM_COMP_CENSUS=C,K,N prints the tables for that shape.
func TestCompRealShapeCensus(t *testing.T) {
	c, k, n := 2, 2, 1
	if v := os.Getenv("PERFSIM_COMP_CENSUS"); v != "" {
		f := strings.Split(v, ",")
		c, _ = strconv.Atoi(f[0])
		k, _ = strconv.Atoi(f[1])
		n, _ = strconv.Atoi(f[2])
	}
	for _, perThread := range []bool{false, true} {
		src := auxPerCPU(c, k, n)
		if perThread {
			src = strings.ReplaceAll(src, " -m 8,8 -- ", " --per-thread -m 8,8 -- ")
		}
		compCensusCase(t, src, c, k, n, perThread)
	}
}

// realDeclared are the fragment starts of the real model declared complete
// (cpu.DeclareComplete next to their code), as this census counts them.
var realDeclared = []string{"pt_event_start:resume-allowed", "pt_config:resume-allowed", "pt_config:handle-nmi", "pt_event_stop:handle-nmi-cleared",
	"pt_event_start:status-read", "perf_output_put_handle:head-read", "perf_output_put_handle:data-head-stored", "__perf_output_begin:cmpxchg",
	"perf_output_get_handle:nest-inc", "__perf_output_begin:reserved", "__perf_output_begin:lost-written", "perf_output_sample:header",
	"perf_output_put_handle:nest-dec", "perf_output_put_handle:nest-zero",
	"syscall_enter_from_user_mode", "exit_to_user_mode_loop", "context_switch", "__schedule:irqs-off",
	"perf_event_task_sched_out", "perf_event_context_sched_out:locked", "perf_event_context_sched_out:disabled", "perf_event_task_sched_in", "ctx_sched_out", "ctx_sched_in",
	"event_sched_out", "event_sched_out:del", "event_sched_in", "perf_poll:wait"}

// compCensusCase surveys one replicated scenario and checks its census.
func compCensusCase(t *testing.T, src string, c, k, n int, perThread bool) {
	f, err := scenarios.Parse("aux-pause-resume-nmi-percpu.sim", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	reasons := compSurvey(3, realRun(t, f, nil))
	distinct, met, unknown := compCensus(reasons)
	if len(unknown) > 0 {
		t.Errorf("reasons in no known area:\n%s", strings.Join(unknown, "\n"))
	}
	// (The syscall entry and exit fragments, the context switch and every
	// thread's first fragment are declared complete, with their unaudited
	// paths marked: sched/footprint_entry.go, footprint_switch.go. The
	// areas "syscall entry and exit" and "a thread's first fragment" are
	// empty; what those fragments reach of perf's own syscalls,
	// perf_tp_event() and perf's user-space code is in the area of declared
	// fragments that reach unaudited code. So is the area "scheduling":
	// perf's context-switch fragments are declared too,
	// pmu/footprint_sched.go. So is the area "output": the ring buffer's
	// output path and the AUX handle's perf_aux_output_begin()/_end() are
	// declared, pmu/footprint_output.go, pmu/footprint_aux.go. So is the
	// area "aux pause/resume and intel_pt": perf_event_aux_pause() and
	// every step of intel_pt's the scenario reaches, pt_event_add() and
	// pt_event_del() among them, are declared, pmu/footprint_aux.go,
	// pmu/pt/footprint.go, footprint_addel.go. So is the area "perf tool:
	// reading the rings, poll": the readers' step points are declared,
	// perftool/footprint_record.go, and poll(2)'s, pmu/footprint_poll.go.)
	// (And the area "teardown: close, munmap, exit": the release's and the
	// exit's teardown are declared, their puts annotated,
	// pmu/footprint_release.go, footprint_exit.go. And the area "setup:
	// perf opens, installs, maps, enables" with --per-thread: the AUX
	// mmap, the tracepoint's and intel_pt's event_init, pmu/footprint_mmap_aux.go,
	// footprint_tp_init.go, pmu/pt/footprint_init.go.)
	// With --per-thread, since the workload's SIGCHLD to perf is annotated
	// (perftool/session.go: sessionExitHook), no fragment of these three
	// schedules reaches unaudited code: what keeps the claim from being
	// made is what the CPUs share. Without it, perf's system-wide setup
	// still does.
	switch a := "declared fragments that reach unaudited code"; {
	case perThread && distinct[a] > 0:
		t.Errorf("--per-thread: %d reasons in area %q; want none", distinct[a], a)
	case !perThread && distinct[a] == 0:
		t.Errorf("no reason in area %q: something was declared (update this census and the guard's figures)", a)
	}
	// Every object the code touches has a stable key (footprint_key.go in
	// cpu, pmu, rb, sched); with keys, what the CPUs' perf sessions share
	// shows: the global locks and perf_event_id their opens take.
	if n := distinct["objects with no stable key"]; n > 0 {
		t.Errorf("%d reasons of objects with no stable key; want none", n)
	}
	// The fragments of the real model declared complete (and audited:
	// TestWriteAuditRealModel) are never refused.
	for _, d := range realDeclared {
		if n := reasons["fragment "+d+undeclared]; n > 0 {
			t.Errorf("fragment %s, declared complete, refused %d times", d, n)
		}
	}
	// A frame's address depends only on its name unless two names collide
	// (pmu/image_footprint.go): the CPUs' claims of their frames' slots
	// commute, so the table of addresses is not an object they share.
	for r := range reasons {
		if strings.Contains(r, "fakeIP") {
			t.Errorf("reason %q: fakeIP's slots are claimed alike by every CPU that names a frame", r)
		}
	}
	if distinct["an object two CPUs share"] == 0 {
		t.Errorf("no object two CPUs share: the sessions' opens take event_mutex and perf_event_id on both CPUs")
	}
	if perThread && c == 2 && k == 2 && n == 1 {
		// The objects the two CPUs share, by key and field: the sessions'
		// setups (the global locks, perf_event_id, the buffers perf_mmap()
		// numbers: pmu/footprint_setup.go), the run queues the
		// new-idle balance reads, the CPU contexts' fields read across
		// CPUs, and the tasks the wake-ups (annotated: sched/footprint_wake.go)
		// place on the other CPU. A declaration that annotates more shows
		// more here.
		var shared []string
		for r := range reasons {
			if obj, _, ok := strings.Cut(r, " is touched by "); ok {
				shared = append(shared, obj)
			}
		}
		sort.Strings(shared)
		want := []string{
			// a tracepoint event's destroy and the probe's unregistration
			// (pmu/footprint_tp_destroy.go): the global locks as the
			// model keeps them
			"cpu_hotplug_lock (struct percpu_rw_semaphore) (sync)",
			"cpu_hotplug_lock (sync)", "cpuctx@cpu0 (cpuctx->cgrp)", "cpuctx@cpu0 (cpuctx->task_ctx)", "cpuctx@cpu1 (cpuctx->cgrp)", "cpuctx@cpu1 (cpuctx->task_ctx)",
			"event_mutex (struct mutex) (sync)", "event_mutex (sync)",
			// the fd table the runner's tasks share (one process: runner's
			// shareProcess), whose exec's unshare_files() (sched/footprint_exec.go)
			// and do_exit()'s exit_files() (sched/footprint_exit.go) touch on
			// both CPUs; each perf process's own table is its own object
			// (sched.Task.KeyFiles), so the two sessions' opens do not meet
			"files#1@tid101 (fdt->fd[])", "files#1@tid101 (files->count)", "files#1@tid101 (files->count)",
			"files#1@tid101 (the model's table: exec's) (fdt->fd[])", "files#1@tid101 (the model's table: exec's) (files->count)",
			// ld.so's page cache, which each exec's padzero() fault reads (the first makes it resident: sched/footprint_exec.go accessPadzero)
			"inode /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 (i_pages) (mapping->i_pages)",
			// the exec's mmput() of perf's mm the runner's tasks share (pmu/footprint_exec.go)
			"mm#1@tid101 (mm->mm_mt)", "mm#1@tid101 (mm->mm_users)",
			// (not the perf.data keep budget: far from its bound the sessions'
			// writes are adds, which commute: perftool/footprint_record.go)
			"perf_buffer allocations (rb_alloc)",
			"perf_event allocations (perf_event)", "perf_event_context allocations (perf_event_context)", "perf_event_id (perf_event_id)", "perf_event_id (the model's counter) (perf_event_id)",
			"rq@cpu0 (rq->balance_callback)", "rq@cpu0 (rq->nr_running)", "rq@cpu1 (rq->balance_callback)", "rq@cpu1 (rq->nr_running)",
			"task->perf_event_ctxp (the model's table) (task->perf_event_ctxp)",
			// the execs' lookups of their images and ld.so (sched/footprint_exec.go)
			"the file system (inodes by path) (inode cache)",
			// the deliveries' log, an observable in order (sched/footprint_signal.go): each session's perf takes its SIGCHLD on its CPU
			"the signals delivered (Sched.Delivered, Sched.Killed) (the signal log)",
			// perf reaps its workloads (its wait4 after the loop: sched/footprint_exit.go accessDoWait, accessReap): its children list, their states
			// the tasks a wake-up places on the other CPU (sched/footprint_wake.go): their fields, from both
			// and the exits (sched/footprint_exit.go): PF_EXITING, the state, the signals, the mm and files
			// (both unames': their do_exit() and execve() take time, cost.Profile.Exit*, Exec*, so the other CPU meets each, the same fields of each);
			// the SIGCHLD perf's exit hook sends from the workload's CPU (sched/footprint_signal.go): the disposition, the group's flags, the rlimit, perf's signal_struct made on first use;
			// the exec's perf_event_remove_on_exec() takes ctx->mutex (pmu/footprint_exec_resched.go: lockMutex)
			// (perf-104, the second session's perf, as well as perf-103 since perf_mmap() costs time:
			// its rings' rb_alloc() and map_range() take time, cost.Profile.RbAlloc*, PerfMmap*, so both perfs are still setting up as the other CPU's tasks start)
			"thread:perf-103 (current->lockdep_depth)", "thread:perf-103 (p->__state)", "thread:perf-103 (p->children)", "thread:perf-103 (p->exit_state)", "thread:perf-103 (p->migration_pending)", "thread:perf-103 (p->on_cpu)", "thread:perf-103 (p->on_rq)", "thread:perf-103 (p->real_parent)", "thread:perf-103 (p->recent_used_cpu)", "thread:perf-103 (p->se (exec_start, wake_cpu))", "thread:perf-103 (p->se)", "thread:perf-103 (p->wakee_flips)", "thread:perf-103 (sighand->action)", "thread:perf-103 (signal->flags)", "thread:perf-103 (signal->group_exec_task)", "thread:perf-103 (signal->rlim)", "thread:perf-103 (signal->shared_pending)", "thread:perf-103 (sync)", "thread:perf-103 (task->blocked)", "thread:perf-103 (task->files)", "thread:perf-103 (task->flags)", "thread:perf-103 (task->mm)", "thread:perf-103 (task->pending)", "thread:perf-103 (task->perf_event_ctxp)", "thread:perf-103 (task->signal)", "thread:perf-103 (task->task_works)", "thread:perf-103 (task->unwind_info.unwind_mask)", "thread:perf-103 (task_pt_regs(current))", "thread:perf-103 (the task's mode and stacks)", "thread:perf-103 (thread_info->flags)", "thread:perf-104 (current->lockdep_depth)", "thread:perf-104 (p->__state)", "thread:perf-104 (p->children)", "thread:perf-104 (p->exit_state)", "thread:perf-104 (p->migration_pending)", "thread:perf-104 (p->on_cpu)", "thread:perf-104 (p->on_rq)", "thread:perf-104 (p->real_parent)", "thread:perf-104 (p->recent_used_cpu)", "thread:perf-104 (p->se (exec_start, wake_cpu))", "thread:perf-104 (p->se)", "thread:perf-104 (p->wakee_flips)", "thread:perf-104 (sighand->action)", "thread:perf-104 (signal->flags)", "thread:perf-104 (signal->group_exec_task)", "thread:perf-104 (signal->rlim)", "thread:perf-104 (signal->shared_pending)", "thread:perf-104 (sync)", "thread:perf-104 (task->blocked)", "thread:perf-104 (task->files)", "thread:perf-104 (task->flags)", "thread:perf-104 (task->mm)", "thread:perf-104 (task->pending)", "thread:perf-104 (task->perf_event_ctxp)", "thread:perf-104 (task->signal)", "thread:perf-104 (task->task_works)", "thread:perf-104 (task->unwind_info.unwind_mask)", "thread:perf-104 (task_pt_regs(current))", "thread:perf-104 (the task's mode and stacks)", "thread:perf-104 (thread_info->flags)", "thread:uname0-101 (current->lockdep_depth)", "thread:uname0-101 (p->__state)", "thread:uname0-101 (p->cpus_ptr)", "thread:uname0-101 (p->migration_pending)", "thread:uname0-101 (p->min_flt)", "thread:uname0-101 (p->on_cpu)", "thread:uname0-101 (p->on_rq)", "thread:uname0-101 (p->real_parent)", "thread:uname0-101 (p->recent_used_cpu)", "thread:uname0-101 (p->se (exec_start, wake_cpu))", "thread:uname0-101 (p->se)", "thread:uname0-101 (p->wakee_flips)", "thread:uname0-101 (signal->group_exec_task)", "thread:uname0-101 (signal->shared_pending)", "thread:uname0-101 (signal->thread_head)", "thread:uname0-101 (sync)", "thread:uname0-101 (task->comm)", "thread:uname0-101 (task->files)", "thread:uname0-101 (task->flags)", "thread:uname0-101 (task->mm)", "thread:uname0-101 (task->pending)", "thread:uname0-101 (task->perf_event_ctxp)", "thread:uname0-101 (task->task_works)", "thread:uname0-101 (task->unwind_info.unwind_mask)", "thread:uname0-101 (task_pt_regs(current))", "thread:uname0-101 (task_struct (freed))", "thread:uname0-101 (the task's mode and stacks)", "thread:uname0-101 (thread_info->flags)", "thread:uname1-102 (current->lockdep_depth)", "thread:uname1-102 (p->__state)", "thread:uname1-102 (p->cpus_ptr)", "thread:uname1-102 (p->migration_pending)", "thread:uname1-102 (p->min_flt)", "thread:uname1-102 (p->on_cpu)", "thread:uname1-102 (p->on_rq)", "thread:uname1-102 (p->real_parent)", "thread:uname1-102 (p->recent_used_cpu)", "thread:uname1-102 (p->se (exec_start, wake_cpu))", "thread:uname1-102 (p->se)", "thread:uname1-102 (p->wakee_flips)", "thread:uname1-102 (signal->group_exec_task)", "thread:uname1-102 (signal->shared_pending)", "thread:uname1-102 (signal->thread_head)", "thread:uname1-102 (sync)", "thread:uname1-102 (task->comm)", "thread:uname1-102 (task->files)", "thread:uname1-102 (task->flags)", "thread:uname1-102 (task->mm)", "thread:uname1-102 (task->pending)", "thread:uname1-102 (task->perf_event_ctxp)", "thread:uname1-102 (task->task_works)", "thread:uname1-102 (task->unwind_info.unwind_mask)", "thread:uname1-102 (task_pt_regs(current))", "thread:uname1-102 (task_struct (freed))", "thread:uname1-102 (the task's mode and stacks)", "thread:uname1-102 (thread_info->flags)", "total_ref_count (total_ref_count)",
			// (the workloads' task_structs, freed by the last put of perf's
			// reference after their reaping: pmu/footprint_release.go)
			// the tracepoint's perf_refcount and per-CPU lists, its init's and destroy's (pmu/footprint_tp_destroy.go), and the
			// open's event_init (pmu/footprint_tp_init.go: its slot made or found, in the entry fragment)
			"tp:syscalls:sys_enter_newuname (the model's count of users) (users)", "tp:syscalls:sys_enter_newuname (tp_event->perf_refcount)",
			"tp:syscalls:sys_enter_newuname (tp_event->perf_refcount)", "tp:syscalls:sys_enter_newuname@cpu0 (tp_event->perf_events)", "tp:syscalls:sys_enter_newuname@cpu1 (tp_event->perf_events)",
			"tracepoints_mutex (struct mutex) (sync)", "tracepoints_mutex (sync)",
			// the user's count of queued signals (sched/footprint_signal.go): the senders' and the deliveries'
			"ucounts:UCOUNT_RLIMIT_SIGPENDING (ucounts->rlimit[UCOUNT_RLIMIT_SIGPENDING])"}
		if d := cmp.Diff(want, shared); d != "" {
			t.Errorf("objects two CPUs share (-want +got):\n%s", d)
		}
	}
	posts, twoCPUs := distinct["posts across CPUs (IPIs, timers, irq_work)"], distinct["a thread on two CPUs"]
	switch {
	case perThread && (posts > 0 || twoCPUs > 0):
		t.Errorf("--per-thread: %d reasons of posts across CPUs, %d of a thread on two CPUs; want none", posts, twoCPUs)
	case !perThread && c > 1 && posts == 0:
		t.Errorf("%d CPUs and no post across CPUs (perf's install IPIs)", c)
	}
	total := 0
	lines := []string{"| area | distinct reasons | times met |", "|---|---|---|"}
	for _, a := range compAreas {
		if distinct[a.name] > 0 {
			lines = append(lines, fmt.Sprintf("| %s | %d | %d |", a.name, distinct[a.name], met[a.name]))
			total += distinct[a.name]
		}
	}
	t.Logf("C=%d K=%d N=%d per-thread %v, 3 schedules: %d distinct reasons\n%s", c, k, n, perThread, total, strings.Join(lines, "\n"))
}
