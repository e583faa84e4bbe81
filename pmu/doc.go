// Package pmu models kernel/events/core.c on a simulated machine: perf's
// core, its events and contexts, and the PMUs built into it. Drivers live in
// sub-packages (pmu/pt: arch/x86/events/intel/pt.c; pmu/coresight:
// drivers/hwtracing/coresight) and register with RegisterDriver.
//
// The sections of core.c and the files that model them:
//
//	perf_event_open() and its checks   core_open.go, opencheck*.go, attr*.go, core_fd.go
//	struct pmu, perf_pmu_register()    pmu_iface.go, pmu_caps.go, drivers.go
//	contexts, group sched in/out       context.go, context_lock.go, core_sched.go
//	event_function_call(), IPIs        core_funccall.go
//	rotation (multiplexing)            rotate.go
//	enable, disable, ioctls            ioctl.go
//	read(), release, enable_on_exec    read.go, sample_read.go (perf_output_read)
//	overflow, output, throttling       overflow.go, throttle.go, throttle_tick.go
//	side-band records                  sideband.go
//	callchains, deferred callchains    callchain.go, callchain_deferred.go
//	mmap/munmap, mmap_lock, VMA split  mmap.go, mmap_lock.go, mmap_split.go, aux_mmap.go
//	AUX pause/resume, AUX sampling     aux_core.go, aux_sample*.go
//	wakeups, pending irq_work          event.go
//	cgroup events (CONFIG_CGROUP_PERF) cgroup.go, cgroup_ledger.go (the cgroup-time-adds-up oracle)
//	software PMUs (cpu-clock, ...)     pmu_sw.go
//	tracepoints (perf_tp_event)        pmu_tp.go, tp_filter.go (ftrace filters)
//	address range filters              addr_filter.go (SET_FILTER, apply, exec, mmap adjust, sync)
//	x86 core PMU (counters, PMI)       pmu_hw.go, pmu_hw_mode.go, pmi_forced.go, knob_pebs.go
//	object lifetimes (refcounts, RCU)  lifetime.go (the oracle), core_release.go (events), ctx_life.go
//	                                   (get_ctx/put_ctx), epc_life.go (get/put_pmu_ctx, task_struct references)
//
// The ring buffer itself (kernel/events/ring_buffer.c) is package rb; the
// perf ABI (include/uapi/linux/perf_event.h) is package uapi. kernel.go holds
// the Kernel; knobs.go and knob_*.go the kernel knobs, each citing its commit;
// observe.go and rbtrace.go what the oracles read.
package pmu
