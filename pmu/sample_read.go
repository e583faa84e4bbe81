package pmu

import (
	"encoding/binary"
	"math/bits"

	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/uapi"
)

// perfOutputRead lays out the PERF_SAMPLE_READ part of a sample of e, as
// read() would return it (read_format): the event's value or, with
// PERF_FORMAT_GROUP, its group's, the other members read first when ACTIVE;
// the times are the event's up to now.
// kernel/events/core.c: perf_output_read() -> calc_timer_values(),
// perf_output_read_one(), perf_output_read_group()
func (k *Kernel) perfOutputRead(c *cpu.CPU, e *Event) []byte {
	rf := e.Attr.ReadFormat
	le := binary.LittleEndian
	if rf&(uapi.PERF_FORMAT_TOTAL_TIME_ENABLED|uapi.PERF_FORMAT_TOTAL_TIME_RUNNING) != 0 {
		// calc_timer_values(): the times as of now (the model folds them in;
		// the kernel computes them without touching the context from NMI)
		if e.ctx != nil && e.ctx.isActive&EVENT_TIME != 0 {
			e.ctx.updateContextTime(true)
		}
		c.Access(e, "event->tstamp", cpu.PlainRead, "perf_output_read") // core.c: calc_timer_values() -> __perf_update_times(): now - event->tstamp
		e.foldTime()
	}
	enabled, running := uint64(e.totalTimeEnabled), uint64(e.totalTimeRunning)
	// "the combination of PERF_SAMPLE_READ and inherit will track per-thread
	// counts": perf_event_count(event, self) leaves child_count out
	self := hasInheritAndSampleRead(&e.Attr)
	var out []byte
	if rf&uapi.PERF_FORMAT_GROUP == 0 {
		out = le.AppendUint64(out, uint64(e.sampleReadCount(self)))
		// perf_output_read_one(): the times with the exited children's
		if rf&uapi.PERF_FORMAT_TOTAL_TIME_ENABLED != 0 {
			out = le.AppendUint64(out, enabled+uint64(e.childTotalTimeEnabled))
		}
		if rf&uapi.PERF_FORMAT_TOTAL_TIME_RUNNING != 0 {
			out = le.AppendUint64(out, running+uint64(e.childTotalTimeRunning))
		}
		if rf&uapi.PERF_FORMAT_ID != 0 {
			out = le.AppendUint64(out, e.primaryEventID())
		}
		if rf&uapi.PERF_FORMAT_LOST != 0 {
			out = le.AppendUint64(out, e.lostSamples)
		}
		return out
	}
	l := e.leader
	out = le.AppendUint64(out, uint64(1+l.nrSiblings)) // values[n++] = 1 + leader->nr_siblings
	if rf&uapi.PERF_FORMAT_TOTAL_TIME_ENABLED != 0 {
		out = le.AppendUint64(out, enabled)
	}
	if rf&uapi.PERF_FORMAT_TOTAL_TIME_RUNNING != 0 {
		out = le.AppendUint64(out, running)
	}
	// for_each_sibling_event(): the list, which may be ahead of nr_siblings
	for _, m := range append([]*Event{l}, l.siblings...) {
		if m != e && m.state == StateActive && m.oncpu == c.ID {
			m.pmu.Read(c, m) // perf_pmu_read() / sub->pmu->read()
		}
		out = appendReadValue(out, m, m.sampleReadCount(self), rf)
	}
	return out
}

// sampleReadCount is perf_event_count(event, self): the event's own count
// for a sample of an inherit + PERF_SAMPLE_READ event (the task's own),
// else with what its exited children folded into child_count.
// kernel/events/core.c: perf_event_count()
func (e *Event) sampleReadCount(self bool) int64 {
	if self {
		return e.count
	}
	return e.Count()
}

// perfSampleUser fills PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER (and
// DATA_SRC and BRANCH_STACK, which the model has nothing to put in): a
// user task has user registers (its own when the sample hit user mode, else
// task_pt_regs()) and a stack; a kernel thread or the idle task has neither
// (abi 0, size 0). The model keeps no register or stack contents, so the
// registers and the dump are zeros of the right sizes: perf's unwinder gets
// nothing past the sampled IP.
// kernel/events/core.c: perf_sample_regs_user(), perf_sample_ustack_size()
func (k *Kernel) perfSampleUser(e *Event, s *rb.Sample, r *regs) {
	st := e.Attr.SampleType
	s.RegsABI, s.RegsUser, s.StackUser, s.StackDyn = 0, nil, nil, 0
	s.DataSrc = uapi.PERF_MEM_NA // perf_sample_data_init(): no memory event here
	// The LBR gives the branch stack. In call-stack mode it holds the calls
	// still open in user mode, innermost first: {from: the caller, to: the
	// callee}, which the model knows from the task's user stack (a named
	// frame's fake address stands for both its entry and its call sites).
	// Other branches are not recorded: nr 0. hw_idx (the LBR TOS) is 0.
	// arch/x86/events/intel/lbr.c: intel_pmu_lbr_read_64(), intel_pmu_lbr_save_brstack()
	s.BranchHWIndex = e.Attr.BranchSampleType&uapi.PERF_SAMPLE_BRANCH_HW_INDEX != 0
	s.HWIdx, s.Branches = 0, nil
	if st&uapi.PERF_SAMPLE_BRANCH_STACK != 0 && e.Attr.BranchSampleType&uapi.PERF_SAMPLE_BRANCH_CALL_STACK != 0 && r.task != nil {
		us := r.task.UserStack
		for i := len(us) - 1; i >= 1; i-- {
			s.Branches = append(s.Branches, [3]uint64{k.fakeIP(us[i-1], false), k.fakeIP(us[i], false), 0})
		}
	}
	if r.task == nil {
		return
	}
	if st&uapi.PERF_SAMPLE_REGS_USER != 0 {
		s.RegsABI = uapi.PERF_SAMPLE_REGS_ABI_64
		s.RegsUser = make([]uint64, bits.OnesCount64(e.Attr.SampleRegsUser))
	}
	if st&uapi.PERF_SAMPLE_STACK_USER != 0 && e.Attr.SampleStackUser > 0 {
		// perf_sample_ustack_size(): the dump shrinks so that the record
		// (the parts before it, then size, dump, dyn_size) fits a u16.
		size := min(e.Attr.SampleStackUser, 0xffff)
		hdr := 0
		// perf_sample_data_size(): the static part (DATA_SRC included) and
		// the dynamic parts so far, without the stack's own size word.
		if n, err := rb.SampleSize(s); err == nil { // s.StackUser is still empty
			hdr = n - 8
		}
		hdr += 16
		if uint16(hdr+int(size)) < uint16(hdr) || hdr+int(size) > 0xffff {
			size = (uint32(0xffff-hdr-8) + 7) &^ 7
		}
		s.StackUser = make([]byte, size)
		s.StackDyn = uint64(size) // dyn_size: all of it was copied
	}
}
