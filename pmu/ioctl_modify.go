package pmu

import (
	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/uapi"
)

// ModifyAttributes is ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &attr): the
// ioctl with its attr argument (Ioctl takes numbers only). Under ctx->mutex
// as every perf ioctl.
// kernel/events/core.c: _perf_ioctl() case PERF_EVENT_IOC_MODIFY_ATTRIBUTES -> perf_event_modify_attr()
func (k *Kernel) ModifyAttributes(t *sched.Task, fd int, attr *Attr) (err error) {
	// The body is annotated up to perf_ioctl:ctx-locked and marked after
	// it (footprint_setup.go): its entry's fragment may be complete.
	k.S.SyscallAnnotated(t, "ioctl", func(t *sched.Task) {
		e, lerr := k.lookup(t, fd)
		if lerr != nil {
			err = lerr
			return
		}
		k.accessEventSetup(t, e, "event->state", cpu.MarkedRead, "perf_ioctl") // kernel/events/core.c: perf_ioctl(): if (READ_ONCE(event->state) <= PERF_EVENT_STATE_REVOKED)
		if e.state <= StateRevoked {
			err = uapi.ENODEV
			return
		}
		// _perf_ioctl(): perf_copy_attr(arg, &new_attr) first, with its
		// fix-ups (sample_max_stack = kernel.perf_event_max_stack when 0).
		a := *attr
		if cerr := CheckCopyAttr(&a, k.Opts.Sysctl); cerr != nil {
			err = cerr
			return
		}
		attr = &a
		k.accessEventSetup(t, e, "event->ctx", cpu.MarkedRead, "perf_event_ctx_lock_nested") // kernel/events/core.c: perf_event_ctx_lock_nested(): ctx = READ_ONCE(event->ctx)
		if e.ctx == nil {
			k.markSetup(t, "perf_event_modify_attr") // not annotated
			err = k.perfEventModifyAttr(t, e, attr)
			return
		}
		mu, _ := k.ctxMutexLocked(t, e.ctx)
		t.Step("perf_ioctl:ctx-locked")
		k.markSetup(t, "perf_event_modify_attr") // not annotated: the step point's declaration (footprint_setup.go) vouches for Ioctl's commands only
		err = k.perfEventModifyAttr(t, e, attr)
		k.S.MutexUnlock(t, mu)
	})
	return err
}

// perfEventModifyAttr: only breakpoints can be modified; the event and every
// inherited child, under child_mutex, sig_data copied first.
// kernel/events/core.c: perf_event_modify_attr()
func (k *Kernel) perfEventModifyAttr(t *sched.Task, e *Event, attr *Attr) error {
	// perf_copy_attr() already ran: the attr is a valid one (the scenario
	// built it with perf's event parser).
	if e.Attr.Type != attr.Type {
		return uapi.EINVAL
	}
	if e.Attr.Type != uapi.PERF_TYPE_BREAKPOINT {
		return uapi.EOPNOTSUPP // "Place holder for future additions."
	}
	k.S.MutexLock(t, &e.childMutex)
	defer k.S.MutexUnlock(t, &e.childMutex)
	e.Attr.SigData = attr.SigData // perf_event_modify_copy_attr()
	if err := k.perfEventModifyBreakpoint(t, e, attr); err != nil {
		return err
	}
	for _, c := range append([]*Event(nil), e.childList...) {
		c.Attr.SigData = attr.SigData
		if err := k.perfEventModifyBreakpoint(t, c, attr); err != nil {
			return err
		}
	}
	return nil
}

// perfEventModifyBreakpoint disables the breakpoint (off its debug register
// through the CPU it is active on), checks and copies the new address, type
// and length, and enables it again unless the new attr says disabled.
// kernel/events/core.c: perf_event_modify_breakpoint()
func (k *Kernel) perfEventModifyBreakpoint(t *sched.Task, bp *Event, attr *Attr) error {
	k.perfEventDisable(t, bp) // _perf_event_disable()
	t.Step("perf_event_modify_breakpoint:disabled")
	err := k.bpPMU.modifyUserHwBreakpointCheck(bp, attr)
	if !bp.Attr.Disabled {
		k.perfEventEnable(t, bp) // _perf_event_enable()
	}
	return err
}

// modifyUserHwBreakpointCheck: the new breakpoint must pass the arch checks,
// and the attr may differ from the event's only in bp_addr, bp_type, bp_len
// and disabled (else EINVAL); a new bp_type moves the slot.
// kernel/events/hw_breakpoint.c: modify_user_hw_breakpoint_check()
func (p *bpPMU) modifyUserHwBreakpointCheck(bp *Event, attr *Attr) error {
	if err := archBuildBpInfo(attr); err != nil { // hw_breakpoint_parse()
		return err
	}
	old := bp.Attr
	hwBreakpointCopyAttr(&old, attr)
	if old != *attr { // memcmp(&old_attr, attr, sizeof(*attr))
		return uapi.EINVAL
	}
	if bp.Attr.BPType != attr.BPType {
		// modify_bp_slot(): release under the old type, reserve under the new.
		// x86 has one pool of debug registers for data and instruction
		// breakpoints (CONFIG_HAVE_MIXED_BREAKPOINTS_REGS), so the slot count
		// does not change and the reservation cannot fail.
		if !p.reserved[bp] {
			return uapi.EINVAL
		}
	}
	hwBreakpointCopyAttr(&bp.Attr, attr)
	return nil
}

// hwBreakpointCopyAttr copies what a modification may change.
// kernel/events/hw_breakpoint.c: hw_breakpoint_copy_attr()
func hwBreakpointCopyAttr(to, from *Attr) {
	to.Config1 = from.Config1 // bp_addr
	to.BPType = from.BPType
	to.Config2 = from.Config2 // bp_len
	to.Disabled = from.Disabled
}

func init() {
	RegisterStepHelp(map[string]string{
		"perf_event_modify_breakpoint:disabled": "kernel/events/core.c: perf_event_modify_breakpoint(): the breakpoint disabled (_perf_event_disable(), off its debug register), before modify_user_hw_breakpoint_check() changes bp_addr/bp_type/bp_len",
	})
}
