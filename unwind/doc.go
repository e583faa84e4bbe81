// Package unwind models the kernel's deferred user-space unwind
// infrastructure, kernel/unwind/deferred.c (v6.17) and
// include/linux/unwind_deferred.h: a tracer asks, from any context (an NMI
// included), for the user call stack of the current task; the unwind runs once
// per kernel entry, in task context, from task_work just before the return to
// user mode, and every tracer that asked gets the same trace and the same
// cookie, which identifies that entry.
//
// It is a package of its own, between sched and pmu, because the kernel keeps it
// apart from perf (kernel/unwind/, used by perf and ftrace alike): it hooks the
// scheduler's return to user (unwind_reset_info()) and do_exit()
// (unwind_deferred_task_exit()), and perf registers one unwind_work
// (perf_unwind_work) with a callback, as kernel/events/core.c does.
//
// Arrows: sim <- cpu <- sched <- unwind <- pmu.
//
// The RFC's design (Josh Poimboeuf, "[PATCH RFC 04/10] perf: Introduce
// deferred user callchains", Nov 2023) unwound into the per-CPU callchain entry
// that get_perf_callchain() uses; the knob unwind-buffer=rfc-per-cpu models it
// (see KnobSpecs).
package unwind
