package explore

import (
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// auditSkip are the fields of the real model that are not state another
// context can see, so no declaration annotates them (writeAudit neither
// compares nor walks them):
var auditSkip = []string{
	"cpu.Machine.Eng",               // the engine: virtual time, lanes, the timed queue (the walks model it by boundaries and decisions)
	"cpu.CPU.eng",                   // ... as each CPU reaches it
	"cpu.CPU.lane",                  // ... and its lane (the next time a timer armed on the CPU sets: a post there, cpu.Machine.post)
	"cpu.CPU.timers",                // ... and the CPU's timed queue (its heap's entries)
	"cpu.Machine.unaudited",         // the marks of unaudited code the listeners are told again (cpu/unaudited.go)
	"cpu.Machine.hb",                // the data-race oracle (cpu/race.go) ...
	"pmu.Kernel.race",               // ... as the kernel reaches it
	"cpu.Shadow",                    // ... and its cells in every annotated object
	"runner.Run.log",                // the decisions: the step point's choice, made after its boundary (runner/decisions.go) ...
	"runner.Options.Chooser",        // ... and the chooser that makes them
	"runner.Run.hungDue",            // when the hung-task watchdog next looks (runner/hungtask.go): the runner's stop for khungtaskd, as the engine's schedule, never read by the model
	"runner.traceCounters.choices",  // ... and the count of them the trace keeps
	"pmu.Kernel.ips",                // fakeIP's memo by name of the images it places ...
	"pmu.images.user",               // ... and the images' slots, annotated per slot (ipSlot keys, pmu/image_footprint.go: a claim of the name's own, reads of those probed)
	"pmu.images.kernel",             //
	"pmu.Kernel.ipCache",            // ... and the cache in front of it
	"cpu.Thread.co",                 // the thread's coroutine: the engine's lane-to-lane handoff (sim/coro.go)
	"cpu.Thread.Ran",                // the time a thread ran, the model's observable (Spend adds to it; nothing in the run reads it)
	"sched.Task.Computed",           // ... and the user compute time its program got
	"sched.Sched.lastPrev",          // each CPU's switch in flight: the thread it came from, written and read by that CPU's __schedule() and finish_task_switch() only (like cpu.CPU's own fields)
	"sched.Sched.Switches",          // the context switches counted (an observable)
	"sched.Sched.Migrations",        // ... and the migrations (an observable: finish_task_switch()'s move_queued_task() counts one, sched/footprint_switch.go)
	"runner.traceCounters.switches", // ... as the trace shows them
	"runner.traceCounters.migrations",
	"sched.Op.nr",            // a syscall op's number, looked up by its name on first use (the program text's memo)
	"sched.Sched.models",     // the modelled syscall bodies by name, made on first use (a memo of the name)
	"pmu.tpTable.sys",        // a syscall's tracepoints by name, found on first use: their slots mirror tpTable.slots, which they are read as (pmu/footprint_entry.go)
	"pmu.tpTable.last",       // ... and the one-entry cache in front of it
	"pmu.tpTable.lastName",   //
	"pmu.tpTable.named",      // the tracepoints fired by name, found on first use: their slots mirror tpTable.slots (read as the tracepoint's registration)
	"pmu.Kernel.rbTrace",     // the ring buffer logs the invariants read (pmu/rbtrace.go)
	"pmu.kernelAux.pauseRes", // the pause/resume bracket the no-overlapping-pause-resume invariant counts (pmu/aux_core.go)
	"pmu.Kernel.knobs",       // the knob memo: a function of the knob set, filled on first use (pmu/drivers.go)
	"pmu.Kernel.lt",          // the object-lifetime oracle (pmu/lifetime.go)
	"sched.Sched.Lockdep",    // lockdep, an oracle (sched/lockdep.go)
	"sched.Task.ldHeld",      // ... and the locks it saw each task take
	"cpu.Timer.t",            // a CPU's own timer (pt's PMI): armed or cancelled on its CPU, a post there (cpu.Machine.post)
	"cpu.Timer.soft",         // ... and its soft expiry, set with it (cpu/hrtimer.go)
	"pt.PMU.Produced",        // intel_pt's byte and call counters (observables)
	"pt.PMU.Dropped",         //
	"pt.PMU.Filtered",        //
	"pt.PMU.FilterMissed",    //
	"pt.PMU.FilterLeaked",    //
	"pt.PMU.TraceStops",      //
	"pt.PMU.Iterations",      //
	"pt.PMU.PauseCalls",      // intel_pt's call counters (observables)
	"pt.PMU.ResumeCalls",     //
	"pt.PMU.Starts",          //
	"pt.PMU.PMIs",            //
	"pt.PMU.Buffers",         // intel_pt's count of live struct pt_buffers (an observable; the buffer is the AUX area's aux_priv, annotated with it)

	"pmu.Kernel.ctxLockClasses",   // lockdep's class ids of ctx->lock by subclass, filled on first use (the clone check's nested take)
	"pmu.Kernel.stats",            // the core's counters (IPIs taken, fdput()s that released, ...): observables, read by Observe after the run, never by the model
	"pmu.inheritState.reads",      // the inherited-read oracle (pmu/inherit_observe.go): the reads it judged (an observable) ...
	"pmu.inheritState.violations", // ... and what it found
	"pmu.Kernel.keySeq",           // the numbers in the stable keys of buffers, csds and mms (pmu/footprint_key.go): names for the walks, never read by the model
	"cpu.ipiKey.hb",               // the data-race oracle's clock of a CPU's interrupt mailbox: a post's release edge (cpu/race.go); the post itself is told to the walks (cpu.Machine.post)
	"runner.Run.violations",       // the oracles' reports (the data-race oracle's of a plain access among them), which no model code reads ...
	"runner.Run.perInv",           // ... and their count per invariant
	"pmu.stats.mmaps",             // perf_mmap()'s count of new buffers, an observable nothing in the run reads (pmu/mmap.go)
	"pmu.mmState.detaches",        // perf_mmap_close()'s count of events detached, an observable (read only to count exitDetaches, another)
}

// auditRun runs src once under a seeded random chooser with a writeAudit
// over the whole run (the runner.Run and everything it reaches).
func auditRun(t *testing.T, name, src string, seed uint64) *writeAudit {
	t.Helper()
	f, err := scenarios.Parse(name+".sim", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return auditRunFile(t, f, seed)
}

// runWriteAudit is auditRun on a loaded scenario, uncached (auditRunFile
// shares it: testcache_test.go), snapshotting only where a declared
// fragment starts or ends if declaredOnly (TestWriteAuditDeclaredOnlySame).
func runWriteAudit(f *scenarios.File, seed uint64, declaredOnly bool) (*writeAudit, error) {
	opts := Options{}.runOptions(sim.NewRandom(seed), false)
	opts.StopAtViolation = false
	// A snapshot at every boundary makes a run far slower than the
	// wall-clock limit was set for (pmi-took-too-long's 2,800 steps take
	// 25 s on a quiet machine, over 30 s beside other work): the step
	// limit stays the guard against a runaway.
	opts.MaxWall = -1
	r, err := runner.Build(f, opts)
	if err != nil {
		return nil, err
	}
	a := newWriteAudit([]any{r}, auditSkip...)
	a.declaredOnly = declaredOnly
	// A CPU's own fields: its interrupts pending and in flight, irqs and
	// preemption, its clock and lane. Its own contexts' code and the engine
	// write them; another CPU's code only by a post (an interrupt raised, a
	// timer armed there), which the walks see as one (cpu.Machine.post), and
	// the dpor walk has every fragment of a CPU read its pending interrupts.
	a.skipTypes[reflect.TypeFor[cpu.CPU]()] = true
	r.M.OnSegments(a)
	if err := r.Execute(); err != nil {
		return nil, err
	}
	a.finish()
	return a, nil
}

// TestWriteAuditRealModel: on the replicated AUX pause/resume scenario
// (--per-thread, 1 and 2 CPUs), every
// fragment of the real model declared complete writes nothing it does not
// annotate, and the declared fragments these scenarios reach were checked.
// (Reads the audit cannot see: see writeAudit.)
func TestWriteAuditRealModel(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	declared := []string{"__perf_output_begin:cmpxchg", "__perf_output_begin:reserved", "perf_output_get_handle:nest-inc", "perf_output_sample:header",
		"perf_output_put_handle:data-head-stored", "perf_output_put_handle:head-read",
		"pt_config:handle-nmi", "pt_config:resume-allowed", "pt_event_start:resume-allowed", "pt_event_start:status-read", "pt_event_stop:handle-nmi-cleared",
		// intel_pt's pt_event_add() and pt_event_del() (pmu/pt/footprint_addel.go)
		"pt_config:started", "pt_event_stop:config-stopped",
		// the resume event's perf_event_aux_pause() (pmu/footprint_aux.go)
		"perf_event_aux_pause:irqs-off", "perf_event_aux_pause:guard-set", "perf_event_aux_pause:callback-done",
		// perf's context-switch fragments (pmu/footprint_sched.go)
		"ctx_sched_in", "ctx_sched_out", "event_sched_in", "event_sched_out", "event_sched_out:del", "perf_event_task_sched_in", "perf_event_task_sched_out",
		// perf record's setup syscalls (pmu/footprint_setup.go): PERF_EVENT_IOC_ID
		// and SET_OUTPUT, mmap and munmap of the rings
		"perf_ioctl:ctx-locked", "perf_ioctl:fdget", "perf_mmap_close:detached", "ring_buffer_attach:rb-set",
		// perf_event_open()'s install of a task's event while the task does not run (pmu/footprint_open.go)
		"perf_install_in_context:ctx-locked",
		// ... and its group members' perf_group_attach() (pmu/footprint_group.go)
		"perf_group_attach:list_add_tail", "perf_group_attach:nr_siblings", "perf_group_attach:header_size",
		// perf record's close of its events (pmu/footprint_release.go): the
		// release in close(2) itself (fput_close_sync())
		"perf_event_release_kernel:ctx-locked", "perf_remove_from_context:inactive",
		// ... and the tracepoint event's destroy in it (pmu/footprint_tp_destroy.go),
		// as its init in perf_event_open()
		"perf_trace_destroy:event_mutex", "perf_trace_init:event_mutex",
		// the workload's exit: its context detached, then the events' exit
		// and the return into do_exit() (pmu/footprint_exit.go)
		"perf_event_exit_task_context", "perf_event_exit_task_context:tombstone",
		// the workload's exec: its enable_on_exec events enabled (pmu/footprint_enable_on_exec.go)
		"perf_event_enable_on_exec"}
	for _, tc := range []struct {
		name, src string
		// checked: the syscall entry and exit fragments (sched/footprint_entry.go)
		// and the context switch's (sched/footprint_switch.go) that reach no
		// unaudited code in the run, and perf record's readers' step points
		// (perftool/footprint_record.go), pt_event_del()'s perf_aux_output_end()
		// (pmu/pt/footprint_addel.go), perf record's munmap()s of its AUX
		// area and ring (pmu/footprint_munmap.go; its mmap()s, whose
		// ring_buffer_attach() finds the event not ACTIVE); on 1 CPU every newuname fires the
		// resume event's tracepoint (perf_tp_event, unaudited), perf's
		// write(2)s of perf.data are annotated; perf's close of an event
		// removes it (pmu/footprint_remove.go): on 2 CPUs on the other CPU
		// too, on 1 CPU with its _free_event() puts annotated; perf's
		// poll(2) sleeps (pmu/footprint_poll.go); perf record's AUX mmap
		// (pmu/footprint_mmap_aux.go) and the first pt_event_start()'s
		// PERF_ATTACH_ITRACE (pmu/footprint_aux.go); a PT PMI's entry
		// (enter:PMI), which the run reaches since the workload's do_exit()
		// takes time (cost.Profile.Exit*).
		checked []string
	}{
		{"percpu-1", strings.ReplaceAll(auxPerCPU(1, 2, 1), " -m 8,8 -- ", " --per-thread -m 8,8 -- "), append([]string{"__perf_remove_from_context", "__schedule:irqs-off", "context_switch", "exit_to_user_mode_loop", "perf_aux_output_begin:aux_refcount", "perf_aux_output_end:nest-zero", "perf_mmap:mmap_mutex", "perf_mmap_aux:has-aux", "perf_mmap_close:aux-unmapped", "perf_mmap_close:aux_mmap_count-zero", "perf_mmap_close:mmap_count-dec", "perf_output_put_handle:nest-zero", "perf_poll:wait", "rb_alloc_aux", "start:", "syscall_enter_from_user_mode", "enter:PMI"}, recordLoopStarts...)},
		// the workloads' execve()s keep both CPUs busy while perf sleeps: a
		// wake-up of perf onto an idle CPU goes through its wake list (the
		// IPI, sched_ttwu_pending()), which ttwu_queue_wakelist() fills from
		// the waker's CPU (a fragment of its own now that perf's setup takes
		// time: cost.Profile.RbAlloc*)
		{"percpu-2", strings.ReplaceAll(auxPerCPU(2, 1, 1), " -m 8,8 -- ", " --per-thread -m 8,8 -- "), append([]string{"__perf_remove_from_context", "__schedule:irqs-off", "context_switch", "exit_to_user_mode_loop", "perf_aux_output_begin:aux_refcount", "perf_aux_output_end:nest-zero", "perf_mmap:mmap_mutex", "perf_mmap_aux:has-aux", "perf_mmap_close:aux-unmapped", "perf_mmap_close:aux_mmap_count-zero", "perf_mmap_close:mmap_count-dec", "perf_output_put_handle:nest-zero", "perf_poll:wait", "rb_alloc_aux", "start:", "syscall_enter_from_user_mode", "enter:PMI", "enter:call_function_single", "sched_ttwu_pending", "ttwu_queue_wakelist"}, recordLoopStarts...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := auditRun(t, tc.name, tc.src, 3)
			if len(a.EndedElsewhere) > 0 {
				t.Errorf("fragments declared complete up to a step point that ended elsewhere: %v", a.EndedElsewhere)
			}
			if len(a.Violations) > 0 {
				t.Errorf("declared fragments that write what they do not annotate:\n%s", strings.Join(a.Violations, "\n"))
			}
			var checked []string
			for s := range a.Checked {
				if strings.HasPrefix(s, "start:") {
					s = "start:" // every thread's first fragment, one declaration (sched/footprint_switch.go)
				}
				if !slices.Contains(checked, s) {
					checked = append(checked, s)
				}
			}
			sort.Strings(checked)
			want := append(slices.Clone(declared), tc.checked...)
			sort.Strings(want)
			if diff := cmp.Diff(want, checked); diff != "" {
				t.Errorf("declared fragments checked (-want +got):\n%s", diff)
			}
			t.Logf("%d snapshots (largest %d leaves); declared fragments checked: %v", a.Snapshots, a.Leaves, a.Checked)
		})
	}
}
