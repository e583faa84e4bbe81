package pmu

// Step point descriptions: what `simrun names steps` prints under each
// label, the C function and what happens there.

var stepHelp = map[string]string{}

// RegisterStepHelp registers step point labels with their descriptions (and
// registers the labels, as RegisterStepPoints does).
func RegisterStepHelp(help map[string]string) {
	for l, h := range help {
		stepHelp[l] = h
		RegisterStepPoints(l)
	}
}

// StepHelp returns the description of a step point label, or "".
func StepHelp(label string) string { return stepHelp[label] }

func init() {
	RegisterStepHelp(map[string]string{
		"task_function_call:retry":             "kernel/events/core.c: task_function_call(): the IPI found the task on another CPU (-EAGAIN; with task-function-call=pre-6d6b8b9f4fce also an offline task_cpu()'s -ENXIO); cond_resched() and send it again (a soft-lockup round)",
		"perf_remove_from_context:inactive":    "kernel/events/core.c: perf_remove_from_context(): the context is not active, so the event is removed right here under ctx->lock, no IPI",
		"perf_install_in_context:ctx-locked":   "kernel/events/core.c: perf_install_in_context(): the task was not running when the IPI landed; ctx->lock taken here to add the event unless it started running",
		"perf_install_in_context:retry":        "kernel/events/core.c: perf_install_in_context(): the task started running meanwhile (task_curr()); go round and IPI it again (each round a soft-lockup round: a loop that spins past hung-task-timeout is reported)",
		"perf_pmu_output_stop:retry":           "kernel/events/core.c: perf_pmu_output_stop(): a cross-call's __perf_event_stop() found an AUX event of the unmapped buffer ACTIVE on another CPU (-EAGAIN): goto restart, the buffer's event list from its head (a soft-lockup round)",
		"perf_event_stop:retry":                "kernel/events/core.c: perf_event_stop(): __perf_event_stop() found the event ACTIVE on another CPU than the one the IPI reached (it moved after the caller read event->oncpu: -EAGAIN); read event->state and event->oncpu again and IPI that CPU (a soft-lockup round)",
		"perf_event_release_kernel:ctx-locked": "kernel/events/core.c: perf_event_release_kernel(): ctx->mutex held (perf_event_ctx_lock()), about to remove the event from its context (DETACH_GROUP|DETACH_DEAD)",
		"perf_event_read:state-read":           "kernel/events/core.c: perf_event_read(): event->state read (READ_ONCE), before the IPI to event->oncpu or the INACTIVE update",
		"__perf_event_read:active":             "kernel/events/core.c: __perf_event_read(): on the event's CPU, irqs off and ctx->lock held, the event tested ACTIVE; pmu->read() next (an NMI can still land here)",
		"perf_ioctl:ctx-locked":                "kernel/events/core.c: perf_ioctl(): ctx->mutex held (perf_event_ctx_lock()), before _perf_ioctl(); SET_OUTPUT runs under it",
		"ring_buffer_attach:rb-set":            "kernel/events/core.c: ring_buffer_attach(): the event moved between the buffers' event lists (and an AUX event stopped); rcu_assign_pointer(event->rb, rb) next",
		"_free_event:irq_work_sync":            "kernel/events/core.c: _free_event(): irq_work_sync(&event->pending_irq): the event's irq_work is still queued; spin until it ran",
	})
	for l, h := range map[string]string{
		"unwind_deferred_request:mask-read":       "kernel/unwind/deferred.c: unwind_deferred_request(): READ_ONCE(info->unwind_mask) found the work's bit clear; atomic_long_fetch_or(UNWIND_PENDING|bit) next (irqs off, an NMI may request here)",
		"unwind_reset_info:bits-read":             "include/linux/unwind_deferred.h: unwind_reset_info(): unwind_mask read without PENDING; the cmpxchg to 0 next (an NMI request here makes it fail and see PENDING)",
		"unwind_reset_info:mask-cleared":          "include/linux/unwind_deferred.h: unwind_reset_info(): unwind_mask cmpxchg'd to 0; current->unwind_info.id.id = 0 next (an NMI request here reads the old cookie)",
		"unwind_user:fault":                       "kernel/unwind/user.c: unwind_user(): a user stack read that may fault (the task may sleep)",
		"unwind_user:frame":                       "kernel/unwind/user.c: unwind_user_next(): one user frame read",
		"__perf_event_disable":                    "kernel/events/core.c: __perf_event_disable(): on the event's CPU with ctx->lock held, before the group is scheduled out and set OFF",
		"__perf_install_in_context":               "kernel/events/core.c: __perf_install_in_context(): on the target CPU with irqs off, before the event is added (and the context rescheduled)",
		"__perf_remove_from_context":              "kernel/events/core.c: __perf_remove_from_context(): where the context lives, before the event is scheduled out and unlinked",
		"event_function_call:ctx-locked":          "kernel/events/core.c: event_function_call(): the task was not running; ctx->lock taken here, the function runs locally unless the context became active",
		"event_function_call:retry":               "kernel/events/core.c: event_function_call(): the context became active meanwhile (goto again): task_function_call() once more (a soft-lockup round)",
		"smp_call_function_single:wait":           "kernel/smp.c: smp_call_function_single(wait=1) -> csd_lock_wait(): the caller spins until the target CPU ran the function",
		"perf_ioctl:PAUSE_OUTPUT:rb-read":         "kernel/events/core.c: _perf_ioctl() PERF_EVENT_IOC_PAUSE_OUTPUT: event->rb read (rcu_dereference)",
		"perf_ioctl:PAUSE_OUTPUT:checked":         "kernel/events/core.c: _perf_ioctl() PERF_EVENT_IOC_PAUSE_OUTPUT: rb checked, before rb_toggle_paused()",
		"perf_mmap:mmap_mutex":                    "kernel/events/core.c: perf_mmap(): event->mmap_mutex held, before the buffer is looked at",
		"perf_mmap_close:mmap_count-dec":          "kernel/events/core.c: perf_mmap_close(): rb->mmap_count decremented, before event->mmap_count",
		"perf_mmap_close:detached":                "kernel/events/core.c: perf_mmap_close(): the event detached from its buffer (ring_buffer_attach(event, NULL)), before the other events are",
		"perf_poll:wait":                          "kernel/events/core.c: perf_poll() / do_poll(): nothing ready, the poller is about to sleep on event->waitq",
		"perf_event_enable_on_exec":               "kernel/events/core.c: perf_event_enable_on_exec(): irqs off on the exec'ing task's CPU, before the enable_on_exec events are enabled",
		"event_sched_in":                          "kernel/events/core.c: event_sched_in(): before pmu->add() puts the event on the PMU",
		"event_sched_out":                         "kernel/events/core.c: event_sched_out(): before the event leaves the PMU",
		"event_sched_out:del":                     "kernel/events/core.c: event_sched_out(): pmu->del() done, before the state becomes INACTIVE",
		"ctx_sched_in":                            "kernel/events/core.c: ctx_sched_in(): before the context's groups go on the PMU",
		"ctx_sched_out":                           "kernel/events/core.c: ctx_sched_out(): before the context's groups leave the PMU",
		"perf_event_task_sched_in":                "kernel/events/core.c: __perf_event_task_sched_in(): in finish_task_switch(), before the next task's context goes in",
		"perf_event_task_sched_out":               "kernel/events/core.c: __perf_event_task_sched_out(): in prepare_task_switch(), before the previous task's context goes out",
		"perf_event_context_sched_out:disabled":   "kernel/events/core.c: perf_event_context_sched_out(): the PMU disabled, before the context is scheduled out",
		"perf_event_exit_task_context":            "kernel/events/core.c: perf_event_exit_task_context(): in do_exit(), before the task's context is torn down",
		"perf_rotate_context":                     "kernel/events/core.c: perf_rotate_context(): the mux hrtimer fired; before the flexible groups rotate",
		"raw_spin_lock:ctx->lock":                 "kernel/events/core.c: perf_ctx_lock(): spinning for a context's lock another CPU holds",
		"exit_to_user_mode_loop":                  "kernel/entry/common.c: exit_to_user_mode_loop(): each round of the return to user: reschedule, signals, task_work",
		"syscall_enter_from_user_mode":            "kernel/entry/common.c: syscall_enter_from_user_mode(): kernel entry of a system call, before sys_enter tracepoints",
		"context_switch":                          "kernel/sched/core.c: context_switch(): between prepare_task_switch() and the switch of stacks",
		"__schedule:irqs-off":                     "kernel/sched/core.c: __schedule(): irqs off (rq lock taken), before the next task is picked",
		"perf_output_get_handle:nest-inc":         "kernel/events/ring_buffer.c: perf_output_get_handle(): rb->nest incremented",
		"perf_output_put_handle:head-read":        "kernel/events/ring_buffer.c: perf_output_put_handle(): head = local_read(&rb->head), before data_head is stored",
		"perf_output_put_handle:data-head-stored": "kernel/events/ring_buffer.c: perf_output_put_handle(): user_page->data_head written, before rb->nest is cleared",
		"perf_output_put_handle:nest-dec":         "kernel/events/ring_buffer.c: perf_output_put_handle(): a nested writer decrements rb->nest and leaves",
		"perf_output_put_handle:nest-zero":        "kernel/events/ring_buffer.c: perf_output_put_handle(): rb->nest = 0, before the head is checked again",
		"__perf_output_begin:cmpxchg":             "kernel/events/ring_buffer.c: __perf_output_begin(): the space is computed, before the cmpxchg on rb->head",
		"__perf_output_begin:reserved":            "kernel/events/ring_buffer.c: __perf_output_begin(): the record's space reserved",
		"__perf_output_begin:lost-written":        "kernel/events/ring_buffer.c: __perf_output_begin(): PERF_RECORD_LOST written ahead of the record",
		"perf_output_sample:header":               "kernel/events/core.c: perf_output_sample(): the header written, before the body",
	} {
		if _, ok := stepHelp[l]; !ok {
			stepHelp[l] = h
		}
	}
}
