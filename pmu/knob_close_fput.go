package pmu

import (
	"perfsim/mm"
	"perfsim/sched"
	"perfsim/sim"
)

// close(2) of an fd whose file has no other reference releases the file
// in the syscall itself today: "We're returning to user space. Don't
// bother with any delayed fput() cases." Before 021a160abf62 (v6.6) it
// went through filp_close() -> fput(), which queues ____fput as task work
// (task_work_add(TWA_RESUME)), so perf_release() ran on the way back to
// user mode, after the syscall's exit, in the same task_work_run() batch as
// any perf_pending_task() already queued. Every other last fput() (munmap's
// vma, exit_files(), do_close_on_exec(), an ioctl's or read's fdput()) is
// still deferred today.

// closeFputKnob picks close(2)'s drop of the file's reference.
var closeFputKnob = sim.KnobSpec{
	Name:   "close-fput",
	Values: []string{"today", "pre-021a160abf62"},
	Help: "close(2) of a perf fd holding the file's last reference: today fput_close_sync() runs __fput() -> perf_release() -> " +
		"perf_event_release_kernel() inside the syscall, before sys_exit; pre-021a160abf62: filp_close() -> fput() queues ____fput as task " +
		"work, so the release runs in exit_to_user_mode_loop()'s task_work_run(), after the syscall's exit and after any task work queued " +
		"later (the list runs newest first). A mapping's reference keeps the file either way; munmap()'s, exit's and exec's last fput() are " +
		"deferred in both. Implied (unless set) by the old values of the knobs of kernels older than v6.6: addr-filter-clone, " +
		"addr-filter-kernel-match, addr-filter-range, aux-free, exit-event, pause-output-rb-check, pebs-disable-order, pending-task-ref, " +
		"pmu-ctx-serialize, rb-put-handle, release-child-free, sigtrap-send, task-function-call, unpin-ctx-lock",
	Source: "021a160abf62 fs: use __fput_sync in close(2) (Mateusz Guzik, v6.6-rc1); fput_close_sync(): fs: use fput_close_sync() in close() " +
		"(Mateusz Guzik, v6.15)",
	Package: "pmu",
}

func init() { KnobSpecs = append(KnobSpecs, closeFputKnob) }

// closeFputPreV66 is what a knob value selecting a kernel older than v6.6,
// whose close(2) had no fput_close_sync(), implies (sim.KnobSpec.Implies):
// a race replayed on that kernel releases the event where that kernel did,
// and the run's knobs line says so. A scenario that sets close-fput itself
// keeps its value. Every such value names its version where it is declared;
// TestCloseFput lists them, and a future knob of such a kernel must say it
// too.
var closeFputPreV66 = []string{closeFputKnob.Name + "=pre-021a160abf62"}

// closeFputDeferred reports close-fput=pre-021a160abf62, set or implied.
func (k *Kernel) closeFputDeferred() bool {
	return k.KnobIs(closeFputKnob.Name, "pre-021a160abf62")
}

// FputClose implements sched.FileCloseHook: close(2) dropped the reference
// t's fd held on f.
// fs/open.c: SYSCALL_DEFINE1(close) -> fput_close_sync()
func (k *Kernel) FputClose(t *sched.Task, f mm.AnonFile) {
	if e, ok := f.(*Event); ok && e.k == k {
		k.fputClose(t, e)
	}
}

// fputClose is close(2)'s drop of the file's reference: the last one
// releases the event here, in the syscall (fput_close_sync()), or, before
// 021a160abf62, as ____fput's task work (fput()).
// fs/file_table.c: fput_close_sync(): if (likely(file_ref_put_close(&file->f_ref))) __fput(file)
func (k *Kernel) fputClose(t *sched.Task, e *Event) {
	if t == nil || k.closeFputDeferred() {
		k.fput(t, e)
		return
	}
	if k.dropFileRef(e) {
		k.__fput(t, e, releaseInClose)
	}
}
