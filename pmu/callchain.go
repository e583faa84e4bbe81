package pmu

import (
	"perfsim/cpu"
	"perfsim/uapi"
)

// maxContextsPerStack is sysctl_perf_event_max_contexts_per_stack's default.
const maxContextsPerStack = 8

// callchainCtx is struct perf_callchain_entry_ctx: entries count against
// max_stack, context markers against max_contexts_per_stack.
type callchainCtx struct {
	entry         []uint64
	maxStack      int
	nr            int
	contexts      int
	contextsMaxed bool
}

// store is perf_callchain_store(): an ip, while nr < max_stack.
// include/linux/perf_event.h: perf_callchain_store()
func (x *callchainCtx) store(ip uint64) bool {
	if x.contextsMaxed || x.nr >= x.maxStack {
		return false
	}
	x.entry = append(x.entry, ip)
	x.nr++
	return true
}

// storeContext is perf_callchain_store_context(): a marker (or the deferred
// cookie), while contexts < max_contexts_per_stack.
// include/linux/perf_event.h: perf_callchain_store_context()
func (x *callchainCtx) storeContext(v uint64) bool {
	if x.contexts >= maxContextsPerStack {
		x.contextsMaxed = true
		return false
	}
	x.entry = append(x.entry, v)
	x.contexts++
	return true
}

// perfCallchain decides the user part and builds the callchain: kernel frames
// after PERF_CONTEXT_KERNEL; then either the user frames after
// PERF_CONTEXT_USER or, for attr.defer_callchain when the deferred unwind was
// requested, PERF_CONTEXT_USER_DEFERRED and the cookie.
// kernel/events/core.c: perf_callchain()
func (k *Kernel) perfCallchain(c *cpu.CPU, e *Event, chain *[]uint64, r *regs) []uint64 {
	kernel := !e.Attr.ExcludeCallchainKernel
	user := !e.Attr.ExcludeCallchainUser && r.task != nil // && !(PF_KTHREAD|PF_USER_WORKER)
	crosstask := e.ctx != nil && e.ctx.task != nil && e.ctx.task != r.task
	deferUser := user && e.Attr.DeferCallchain
	maxStack := int(e.Attr.SampleMaxStack)
	if maxStack == 0 {
		maxStack = k.Opts.Sysctl.MaxStack
	}
	if !kernel && !user {
		*chain = (*chain)[:0]
		return *chain // &__empty_callchain
	}
	var cookie uint64
	if user && deferUser && !crosstask {
		cookie = k.deferredRequest(c, e, r)
	}
	return k.getPerfCallchain(e, chain, r, kernel, user, maxStack, crosstask, cookie)
}

// getPerfCallchain fills the per-CPU entry: __get_perf_callchain_kernel()
// then __get_perf_callchain_user(). Named frames have fake, stable addresses;
// the innermost frame is the interrupted ip and the rest are its callers.
// kernel/events/callchain.c: get_perf_callchain()
func (k *Kernel) getPerfCallchain(e *Event, chain *[]uint64, r *regs, kernel, user bool, maxStack int, crosstask bool, cookie uint64) []uint64 {
	if crosstask && user && !kernel {
		*chain = (*chain)[:0]
		return *chain
	}
	x := callchainCtx{entry: (*chain)[:0], maxStack: maxStack}
	t := r.task
	if kernel && !r.user {
		x.storeContext(uapi.PERF_CONTEXT_KERNEL)
		// perf_callchain_kernel(): regs->ip, then the return addresses.
		if x.store(r.ip) && t != nil {
			ks := t.KernelStack
			for i := len(ks) - 2; i >= 0; i-- {
				if !x.store(k.fakeIP(ks[i], true)) {
					break
				}
			}
		}
	}
	if user && !crosstask {
		switch {
		case cookie != 0:
			// Foretell the coming of PERF_RECORD_CALLCHAIN_DEFERRED.
			x.storeContext(uapi.PERF_CONTEXT_USER_DEFERRED)
			x.storeContext(cookie)
		default:
			x.storeContext(uapi.PERF_CONTEXT_USER)
			// perf_callchain_user() on task_pt_regs(current): the user ip
			// where the task entered the kernel (or was interrupted), then
			// the frame pointer walk.
			us := t.UserStack
			for i := len(us) - 1; i >= 0; i-- {
				if !x.store(k.fakeIP(us[i], false)) {
					break
				}
			}
			if len(us) == 0 && r.user {
				x.store(r.ip)
			}
		}
	}
	*chain = x.entry
	return x.entry
}

// Symbolize resolves a fake address of a named frame back to its name (offset
// 0) and a dso: [kernel.kallsyms] for kernel text, the task's binary
// (/usr/bin/COMM) for user text. It is what perf's symbol lookup finds with
// the kernel's and the workload's symbol tables.
func (k *Kernel) Symbolize(pid, tid int, ip uint64, kernel bool) (sym string, off uint64, dso string, ok bool) {
	used := k.images.user // the slot's first name, when a full image shares it
	if kernel {
		used = k.images.kernel
	}
	name, ok := used[ip]
	if !ok {
		return "", 0, "", false
	}
	if kernel {
		return name, 0, "[kernel.kallsyms]", true
	}
	dso = "[unknown]"
	for _, t := range k.S.Tasks {
		if t.PID == pid {
			dso = "/usr/bin/" + t.Comm
		}
	}
	return name, 0, dso, true
}
