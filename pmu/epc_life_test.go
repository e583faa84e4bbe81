package pmu

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sched"
	"perfsim/uapi"
)

// epcSnap is what a context's pmu_ctx_list says: each epc's PMU and refcount.
func epcSnap(ctx *Context) []string {
	var out []string
	for _, epc := range ctx.pmuCtxList {
		out = append(out, fmt.Sprintf("%s:%d", epc.pmu.Name(), epc.refcount))
	}
	return out
}

// TestPMUContextRefcounts follows epc->refcount and the task references
// through sys_perf_event_open(), close() and the task's exit: one epc per
// PMU on ctx->pmu_ctx_list (sorted by type), one reference per event; the
// last close unlinks and frees a task epc; a CPU context's embedded epc keeps
// the pmu's reference; the task_struct is held by the context and each
// event until the exit tombstones the context; nothing is left at the end.
func TestPMUContextRefcounts(t *testing.T) {
	type step struct {
		Name     string
		TaskEpcs []string // task-clock is its own PMU (perf_task_clock): its own epc
		CPUEpcs  []string
		TaskRefs int32
	}
	var got []step
	var k *Kernel
	var tk *sched.Task
	kinds, _, oops := lifeRig(t, false, func(kk *Kernel, task *sched.Task) {
		k, tk = kk, task
		snap := func(name string) {
			s := step{Name: name, TaskRefs: k.taskLifeOf(task).refs}
			if ctx := k.taskCtx[task]; ctx != nil {
				s.TaskEpcs = epcSnap(ctx)
			}
			s.CPUEpcs = epcSnap(&k.cpuCtx[0].ctx)
			got = append(got, s)
		}
		sw := Attr{Type: uapi.PERF_TYPE_SOFTWARE, Size: uapi.AttrSize, Config: uapi.PERF_COUNT_SW_TASK_CLOCK, Disabled: true}
		hw := Attr{Type: uapi.PERF_TYPE_HARDWARE, Size: uapi.AttrSize, Config: uapi.PERF_COUNT_HW_CPU_CYCLES, Disabled: true}
		open := func(a Attr, pid, cpu int) int {
			fd, err := k.PerfEventOpen(task, &a, pid, cpu, -1, 0)
			if err != nil {
				panic(err)
			}
			return fd
		}
		a := open(sw, 0, -1)
		snap("one software event on the task")
		b := open(sw, 0, -1)
		c := open(hw, 0, -1)
		snap("two software, one hardware")
		d := open(sw, -1, 0)
		snap("and one on cpu0")
		for _, fd := range []int{a, b, c, d} {
			if err := k.Close(task, fd); err != nil {
				panic(err)
			}
		}
		sleepFor(k, task, rcuGracePeriod) // the task work of the last fputs
		snap("all closed")
	})
	want := []step{
		{Name: "one software event on the task", TaskEpcs: []string{"task_clock:1"}, TaskRefs: 2},
		{Name: "two software, one hardware", TaskEpcs: []string{"cpu:1", "task_clock:2"}, TaskRefs: 4},
		{Name: "and one on cpu0", TaskEpcs: []string{"cpu:1", "task_clock:2"}, CPUEpcs: []string{"task_clock:2"}, TaskRefs: 4},
		{Name: "all closed", CPUEpcs: []string{"task_clock:1"}, TaskRefs: 1},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
	if len(kinds) != 0 || oops != "" {
		t.Errorf("reports %v, oops %q", kinds, oops)
	}
	if n := k.epcStats.freed; n != 2 {
		t.Errorf("task epcs freed = %d, want 2 (software, cpu)", n)
	}
	if n := k.taskLifeOf(tk).refs; n != 0 {
		t.Errorf("perf's references on the exited task = %d, want 0", n)
	}
	if v := k.LifetimeCheck(true); len(v) != 0 {
		t.Errorf("end check: %v", v)
	}
}

// TestPMUContextOracle is the table of what the oracle reports for a broken
// epc or task accounting: each case breaks one count the way a missing or
// extra get/put in core.c would.
func TestPMUContextOracle(t *testing.T) {
	tests := []struct {
		name string
		fn   func(k *Kernel, t *sched.Task)
		want []string // the reports up to "; last" / " by "
		oops string
	}{
		{"an extra put_pmu_ctx(): underflow", func(k *Kernel, t *sched.Task) {
			e := lifeTaskEvent(k, t)
			k.putPMUCtx(e.pmuCtx, "test")
			k.putPMUCtx(e.pmuCtx, "test")
			e.pmuCtx = nil
		}, []string{"refcount underflow: the perf_event_pmu_context of PMU software in the context of t/101 dropped below 0"}, ""},
		{"a freed epc touched after its grace period: KASAN", func(k *Kernel, t *sched.Task) {
			e := lifeTaskEvent(k, t)
			epc := e.pmuCtx
			k.putPMUCtx(epc, "test")
			sleepFor(k, t, rcuGracePeriod)
			k.epcUse(epc, "list_del_event")
		}, []string{"BUG: KASAN: slab-use-after-free in list_del_event: the perf_event_pmu_context of PMU software in the context of t/101 freed"}, "BUG: KASAN: slab-use-after-free in list_del_event"},
		{"get_pmu_ctx() on 0: WARN", func(k *Kernel, t *sched.Task) {
			e := lifeTaskEvent(k, t)
			k.putPMUCtx(e.pmuCtx, "test")
			k.getPMUCtx(e.pmuCtx, "test")
			e.pmuCtx = nil
		}, []string{"WARNING: get_pmu_ctx(): atomic_inc_not_zero() failed: the perf_event_pmu_context of PMU software in the context of t/101 has no reference left (last dropped"}, ""},
		{"a reference nobody holds: leak at the end", func(k *Kernel, t *sched.Task) {
			e := lifeTaskEvent(k, t)
			k.getPMUCtx(e.pmuCtx, "test")
			k.getTaskStruct(t, "test")
		}, []string{
			"end: unreferenced object (leak): perf holds 2 references on the task_struct of t/101 at the end, 1 held (events' hw.target, contexts' task)",
			"end: unreferenced object (leak): the perf_event_pmu_context of PMU software in the context of t/101 has refcount 2 at the end, 1 held (events, the pmu), on ctx->pmu_ctx_list: true",
		}, ""},
		{"an extra put_task_struct(): underflow", func(k *Kernel, t *sched.Task) {
			k.getTaskStruct(t, "test")
			k.putTaskStruct(t, "test")
			k.putTaskStruct(t, "test")
		}, []string{"refcount underflow: the references perf holds on the task_struct of t/101 dropped below 0"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var k *Kernel
			_, msgs, oops := lifeRig(t, false, func(kk *Kernel, tk *sched.Task) {
				k = kk
				tc.fn(kk, tk)
			})
			var got []string
			for _, m := range msgs {
				got = append(got, cut(m))
			}
			if oops == "" {
				// the task exited: the end check judges what is left
				for _, v := range k.LifetimeCheck(true) {
					got = append(got, "end: "+cut(v.Message))
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("reports (-want +got)\n%s", d)
			}
			if oops != tc.oops {
				t.Errorf("oops %q, want %q", oops, tc.oops)
			}
		})
	}
}

// cut is a report up to where it says where the references went.
func cut(m string) string {
	m = strings.SplitN(m, "; last", 2)[0]
	m = strings.SplitN(m, "; it went", 2)[0]
	return strings.SplitN(m, " by ", 2)[0]
}

// lifeTaskEvent is a software event of t in t's context, as
// sys_perf_event_open() leaves it: a context reference, an epc reference, a
// task reference, not installed.
func lifeTaskEvent(k *Kernel, t *sched.Task) *Event {
	e := lifeEvent(k)
	ctx, err := k.findGetContext(t, -1)
	if err != nil {
		panic(err)
	}
	k.perfUnpinContext(t.CPU(), ctx)
	e.ctx, e.hw.target = ctx, t
	k.perfEventGetTarget(e)
	e.pmuCtx = k.findGetPMUContext(e.pmu, ctx, e)
	return e
}

// TestPMUContextMoveGroup: a hardware event joining a software group moves
// the group to the hardware PMU's epc (move_group: put_pmu_ctx() of the old,
// get_pmu_ctx() of the new), which frees the software epc; a software event
// joining the moved group goes to the leader's pmu_ctx.
func TestPMUContextMoveGroup(t *testing.T) {
	var got [][]string
	var k *Kernel
	kinds, _, oops := lifeRig(t, false, func(kk *Kernel, task *sched.Task) {
		k = kk
		sw := Attr{Type: uapi.PERF_TYPE_SOFTWARE, Size: uapi.AttrSize, Config: uapi.PERF_COUNT_SW_CPU_CLOCK, Disabled: true}
		hw := Attr{Type: uapi.PERF_TYPE_HARDWARE, Size: uapi.AttrSize, Config: uapi.PERF_COUNT_HW_CPU_CYCLES}
		open := func(a Attr, group int) int {
			fd, err := k.PerfEventOpen(task, &a, 0, -1, group, 0)
			if err != nil {
				panic(err)
			}
			return fd
		}
		l := open(sw, -1)
		got = append(got, epcSnap(k.taskCtx[task]))
		h := open(hw, l)
		got = append(got, epcSnap(k.taskCtx[task]))
		s := open(sw, l)
		got = append(got, epcSnap(k.taskCtx[task]))
		for _, fd := range []int{s, h, l} {
			if err := k.Close(task, fd); err != nil {
				panic(err)
			}
		}
		sleepFor(k, task, rcuGracePeriod)
		got = append(got, epcSnap(k.taskCtx[task]))
	})
	want := [][]string{{"cpu_clock:1"}, {"cpu:2"}, {"cpu:3"}, nil}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ctx->pmu_ctx_list (-want +got)\n%s", d)
	}
	if len(kinds) != 0 || oops != "" {
		t.Errorf("reports %v, oops %q", kinds, oops)
	}
	if n := k.epcStats.freed; n != 2 {
		t.Errorf("task epcs freed = %d, want 2 (software by the move, cpu at the last close)", n)
	}
	if v := k.LifetimeCheck(true); len(v) != 0 {
		t.Errorf("end check: %v", v)
	}
}
