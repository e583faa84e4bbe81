package runner

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFailSites: each allocation site a fail line names fails where the
// kernel's allocation would, with -ENOMEM, and its error path gives back
// everything taken before it: no event, context, buffer or locked_vm left.
// The last columns show what the same program does with no fail line.
func TestFailSites(t *testing.T) {
	const open = "  open ev -e task-clock\n"
	const mmap = "  open ev -e task-clock\n  mmap ev 8\n  munmap ev\n  close ev\n"
	const tp = "  open ev -e sched:sched_switch\n  close ev\n"
	const cc = "  open ev -e task-clock sample_type=IP|CALLCHAIN sample_period=100000\n"
	const inheritFork = "  open ev -e task-clock inherit\n  fork c\n    compute 5us\n  wait\n  close ev\n"
	const cc2 = "  open ev2 -e task-clock sample_type=IP|CALLCHAIN sample_period=100000\n"
	for _, tc := range []struct {
		name, prog, fail string
		want             map[string]int64
	}{
		{"perf_event_alloc: the open fails, no event made", open + "  close ev\n", "fail perf_event_alloc in app",
			map[string]int64{"tasks": 1, "errno.ENOMEM": 1, "fd.opened": 0, "events.opened": 0, "ctx.freed": 0, "faults.injected": 1}},
		{"alloc_perf_context: the task's first open fails; the event made is freed", open + "  close ev\n", "fail alloc_perf_context in app",
			map[string]int64{"tasks": 1, "errno.ENOMEM": 1, "fd.opened": 0, "events.opened": 0, "ctx.freed": 0, "faults.injected": 1}},
		{"alloc_perf_context: a second open finds the context of the first", open + "  open ev2 -e task-clock\n  close ev\n  close ev2\n", "fail alloc_perf_context in app occurrence 2",
			map[string]int64{"tasks": 1, "errno.ENOMEM": 0, "fd.opened": 2, "events.opened": 2, "ctx.freed": 1, "faults.unfired": 1}}, // freed at exit
		{"find_get_pmu_context: the open fails after its context was made; event and context go", open + "  close ev\n", "fail find_get_pmu_context in app",
			map[string]int64{"tasks": 1, "errno.ENOMEM": 1, "fd.opened": 0, "events.opened": 0, "pmu-ctx.freed": 0, "faults.injected": 1}},
		{"find_get_pmu_context in a fork: inherit_event() frees the child event, the fork fails", "  open ev -e task-clock inherit\n  fork c\n    compute 5us\n  wait\n  close ev\n",
			"fail find_get_pmu_context in app occurrence 2",
			map[string]int64{"tasks": 1, "fork.perf-free-task": 1, "inherit.contexts": 1, "inherit.children": 1, "events.opened": 1, "faults.injected": 1}}, // the child event was made, then freed (the lifetime oracle checks it went)
		{"alloc_callchain_buffers: the first callchain event's open fails, nr_callchain_events given back", cc + "  close ev\n", "fail alloc_callchain_buffers in app",
			map[string]int64{"tasks": 1, "errno.ENOMEM": 1, "fd.opened": 0, "events.opened": 0, "callchain.events": 0, "callchain.buffers": 0, "faults.injected": 1}},
		{"alloc_callchain_buffers: a tracepoint's callchain open fails after perf_trace_init(); its destroy runs", "  open ev -e sched:sched_switch sample_type=IP|CALLCHAIN sample_period=1\n  close ev\n", "fail alloc_callchain_buffers in app",
			map[string]int64{"tasks": 1, "errno.ENOMEM": 1, "fd.opened": 0, "callchain.events": 0, "tp.users": 0, "tp.registered": 0, "faults.injected": 1}},
		{"alloc_callchain_buffers: the second callchain event finds them made (no call)", cc + cc2 + "  close ev\n  close ev2\n", "fail alloc_callchain_buffers in app occurrence 2",
			map[string]int64{"tasks": 1, "errno.ENOMEM": 0, "fd.opened": 2, "callchain.events": 0, "callchain.buffers": 0, "faults.unfired": 1}},
		{"perf_trace_event_reg: the tracepoint's first user cannot get its lists; perf_refcount given back, no probe", tp + "  open ev2 -e sched:sched_switch\n  close ev2\n", "fail perf_trace_event_reg in app",
			map[string]int64{"tasks": 1, "errno.ENOMEM": 1, "fd.opened": 1, "events.opened": 1, "tp.users": 0, "tp.registered": 0, "tracepoint.registers": 1, "faults.injected": 1}}, // the second open registers
		{"perf_trace_event_reg, call 2: perf_trace_buf[] fails after the lists; both freed", tp, "fail perf_trace_event_reg in app occurrence 2",
			map[string]int64{"tasks": 1, "errno.ENOMEM": 1, "fd.opened": 0, "events.opened": 0, "tp.users": 0, "tp.registered": 0, "tracepoint.registers": 0, "faults.injected": 1}},
		{"perf_trace_event_reg: a second tracepoint finds perf_trace_buf[] made (one call), a second user no call", "  open ev -e sched:sched_switch\n  open ev2 -e sched:sched_wakeup\n  open ev3 -e sched:sched_wakeup\n  close ev\n  close ev2\n  close ev3\n", "fail perf_trace_event_reg in app occurrence 4",
			map[string]int64{"tasks": 1, "errno.ENOMEM": 0, "fd.opened": 3, "tp.users": 0, "tp.registered": 0, "tracepoint.registers": 2, "faults.unfired": 1}},
		{"rb_alloc: the mmap fails before anything is charged", mmap, "fail rb_alloc in app",
			map[string]int64{"tasks": 1, "errno.ENOMEM": 1, "fd.mmaps": 0, "mmap.locked-vm": 0, "rb.count": 0, "faults.injected": 1}},
		{"remap_pfn_range, f74b9f4ba63f: perf_mmap_close() undoes the mmap", mmap, "fail remap_pfn_range in app\nkernel map-range-fail=pre-77de62ad3de3",
			map[string]int64{"tasks": 1, "errno.ENOMEM": 1, "fd.mmaps": 0, "mmap.locked-vm": 0, "rb.count": 0, "kernel.oops": 0, "faults.injected": 1}},
		{"remap_pfn_range, proposed: the undo under the mutex without taking it again", mmap, "fail remap_pfn_range in app\nkernel map-range-fail=proposed",
			map[string]int64{"tasks": 1, "errno.ENOMEM": 1, "fd.mmaps": 0, "mmap.locked-vm": 0, "rb.count": 0, "kernel.oops": 0, "faults.injected": 1}},
		{"remap_pfn_range, before f74b9f4ba63f: the charge stays", mmap, "fail remap_pfn_range in app\nkernel map-range-fail=pre-f74b9f4ba63f\nalways !mlock-accounting", // the charge is never given back
			map[string]int64{"tasks": 1, "errno.ENOMEM": 1, "fd.mmaps": 0, "mmap.locked-vm": 9, "rb.count": 0, "kernel.oops": 0, "faults.injected": 1}},
		{"perf_event_alloc in a fork: inherit_event() fails, the fork with it", "  open ev -e task-clock inherit\n  fork c\n    compute 5us\n  wait\n  close ev\n",
			"fail perf_event_alloc in app occurrence 2",
			map[string]int64{"tasks": 1, "fork.perf-free-task": 1, "inherit.contexts": 1, "inherit.children": 0, "events.opened": 1, "faults.injected": 1}},
		{"alloc_perf_context in a fork: inherit_task_group() fails, the fork with it", "  open ev -e task-clock inherit\n  fork c\n    compute 5us\n  wait\n  close ev\n",
			"fail alloc_perf_context in app occurrence 2", // no child context: perf_event_free_task() finds nothing to free
			map[string]int64{"tasks": 1, "fork.perf-free-task": 0, "inherit.contexts": 0, "inherit.children": 0, "events.opened": 1, "faults.injected": 1}},
		{"any site, occurrence 2: the open's second allocation (its context) fails", open + "  close ev\n", "fail any in app occurrence 2",
			map[string]int64{"tasks": 1, "errno.ENOMEM": 1, "fd.opened": 0, "events.opened": 0, "ctx.freed": 0, "faults.injected": 1}},
		{"occurrence any, every answer the default (no search): nothing fails", open + "  close ev\n", "fail any in app occurrence any",
			map[string]int64{"tasks": 1, "errno.ENOMEM": 0, "fd.opened": 1, "faults.injected": 0, "faults.unfired": 1}},
		{"dup_fd in a fork: copy_process() fails after perf_event_init_task(); perf_event_free_task() frees the inherited event", inheritFork, "fail dup_fd in app",
			map[string]int64{"tasks": 1, "fork.perf-free-task": 1, "inherit.contexts": 1, "inherit.children": 1, "events.opened": 1, "faults.injected": 1}},
		{"alloc_pid in a fork: the same, after copy_mm() and the copy's cost", inheritFork, "fail alloc_pid in app",
			map[string]int64{"tasks": 1, "fork.perf-free-task": 1, "inherit.contexts": 1, "inherit.children": 1, "events.opened": 1, "faults.injected": 1}},
		{"dup_mm in a thread: a thread shares the mm, the line never fires", "  open ev -e task-clock inherit\n  thread c\n    compute 5us\n  join c\n  close ev\n", "fail dup_mm in app",
			map[string]int64{"tasks": 2, "fork.perf-free-task": 0, "inherit.children": 1, "faults.injected": 0, "faults.unfired": 1}},
		{"no fail line: the fork inherits", "  open ev -e task-clock inherit\n  fork c\n    compute 5us\n  wait\n  close ev\n", "",
			map[string]int64{"tasks": 2, "fork.perf-free-task": 0, "inherit.contexts": 1, "inherit.children": 1, "events.opened": 1, "faults.injected": 0}},
	} {
		t.Run(tc.name, func(t *testing.T) { runFailCase(t, "cpus 1\ntask app\n"+tc.prog+tc.fail+"\n", tc.want) }) // tasks: a failed fork makes none
	}
}

// TestMapRangeFailDeadlock: today perf_mmap() runs perf_mmap_close() under
// event->mmap_mutex, which the close takes again for the event's only
// mapping: the oops names the recursion. A second mapping of the same event
// (event->mmap_count 2) does not take the mutex and is undone cleanly.
func TestMapRangeFailDeadlock(t *testing.T) {
	const prog = "cpus 1\ntask app\n  open ev -e task-clock\n  mmap ev 8\n  munmap ev\n  close ev\n"
	_, r := runSrc(t, prog+"fail remap_pfn_range in app\n")
	res := r.Result()
	if res.Oops == nil || !strings.Contains(res.Oops.Message, "possible recursive locking detected") || !strings.Contains(res.Oops.Message, "event->mmap_mutex") {
		t.Fatalf("oops %+v; want possible recursive locking detected on event->mmap_mutex", res.Oops)
	}
	if !res.Failed {
		t.Error("the oops did not fail a run no outcome expects it in")
	}
	// The oops stated as the expected result does not fail the run.
	_, r = runSrc(t, prog+"fail remap_pfn_range in app\nalways kernel.oops\n")
	if res := r.Result(); res.Oops == nil || res.Failed {
		t.Errorf("always kernel.oops: oops %v, failed %v; want the oops and a run that did not fail", res.Oops, res.Failed)
	}
	// The second mmap of the event fails; its close drops event->mmap_count
	// from 2 without the mutex. locked_vm keeps the 9 pages the second
	// mapping charged: since 0c8a4e4139ad perf_mmap_rb() charges every
	// extra mapping of a buffer and only the last perf_mmap_close()
	// uncharges, once, with or without a failure (the mlock-accounting
	// oracle says so; built-in mmap-extra-locked-vm). Before 0c8a4e4139ad
	// the extra mapping charged nothing.
	const second = "cpus 1\ntask app\n  open ev -e task-clock\n  mmap ev 8\n  mmap ev 8\n  munmap ev\n  close ev\nfail remap_pfn_range in app occurrence 2\n"
	for _, tc := range []struct {
		knob     string
		lockedVM int64
		leak     bool
	}{{"today", 9, true}, {"pre-0c8a4e4139ad", 0, false}} {
		got, r := runSrc(t, second+"kernel mmap-extra-account="+tc.knob+"\n", "errno.ENOMEM", "fd.mmaps", "mmap.locked-vm", "rb.count", "kernel.oops")
		if d := cmp.Diff(map[string]int64{"errno.ENOMEM": 1, "fd.mmaps": 1, "mmap.locked-vm": tc.lockedVM, "rb.count": 0, "kernel.oops": 0}, got); d != "" {
			t.Errorf("mmap-extra-account=%s: a second mapping's failure (-want +got):\n%s", tc.knob, d)
		}
		res := r.Result()
		leaked := len(res.Violations) == 1 && res.Violations[0].Invariant == "mlock-accounting" && strings.Contains(res.Violations[0].Message, "user->locked_vm keeps 9 page(s)")
		if leaked != tc.leak || !tc.leak && len(res.Violations) > 0 || res.Oops != nil {
			t.Errorf("mmap-extra-account=%s: violations %v, oops %v; want the mlock-accounting leak of 9 pages: %v", tc.knob, res.Violations, res.Oops, tc.leak)
		}
	}
}

// TestMapRangeFailAuxIsClean: an AUX area's map_range() failure is undone
// without the recursion, today too: perf_mmap_close() takes rb->aux_mutex
// (perf_mmap_aux()'s guard released it) and event->mmap_count is 2 (the
// data ring maps the event too), so it is dropped without the mutex.
// perf record gives up in its words ("failed to mmap with 12 (Cannot
// allocate memory)"); everything is uncharged and freed.
func TestMapRangeFailAuxIsClean(t *testing.T) {
	got, r := runSrc(t, `cpus 2
pmu intel_pt rate=1000 region=4K
task app cpu0
  repeat 10
    compute 20us
    sleep 1us
record pt: -e intel_pt//u -m 8,16 -- app
fail remap_pfn_range in pt occurrence 2
`, "kernel.oops", "pt.perf.error", "mmap.locked-vm", "rb.count", "faults.injected")
	if d := cmp.Diff(map[string]int64{"kernel.oops": 0, "pt.perf.error": 1, "mmap.locked-vm": 0, "rb.count": 0, "faults.injected": 1}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if res := r.Result(); res.Failed {
		t.Errorf("the run failed: %v %v", res.Oops, res.Violations)
	}
	if msgs := strings.Join(r.Messages(), "\n"); !strings.Contains(msgs, "failed to mmap with 12 (Cannot allocate memory)") {
		t.Errorf("perf's messages:\n%s\nwant its failed AUX mmap", msgs)
	}
}

// TestFailSetupAux: a driver's setup_aux fails after rb_alloc_aux() made
// the AUX pages (unlike site rb_alloc_aux, which fails before them):
// rb_alloc_aux() frees them (__rb_free_aux()), the driver frees what it
// made before its own failure, and perf record gives up ("failed to mmap
// with 12 (Cannot allocate memory)", its words for an AUX area's too).
// Nothing is left: no driver buffer, no AUX pages (aux-pages-lifetime), no
// ring buffer or locked_vm.
func TestFailSetupAux(t *testing.T) {
	const pt = "pmu intel_pt rate=1000 region=4K\ntask app cpu0\n  repeat 10\n    compute 20us\n    sleep 1us\nrecord s: -e intel_pt//u -m 8,16 -- app\n"
	const etm = "pmu cs_etm sink=etr rate=300M\ntask dd cpu0\n  repeat 10\n    compute 20us\n    sleep 1us\nrecord s: -e cs_etm// -m 8,16 -- dd\n"
	const trbe = "pmu cs_etm sink=trbe rate=64M\ntask dd cpu0\n  repeat 10\n    compute 20us\n    sleep 1us\nrecord s: -e cs_etm// -m 8,16 -- dd\n"
	for _, tc := range []struct {
		name, src, fail string
		want            map[string]int64
	}{
		{"pt_buffer_setup_aux, call 1: no struct pt_buffer", pt, "fail pt_buffer_setup_aux in s",
			map[string]int64{"s.perf.error": 1, "pt.buffers": 0, "pt.produced": 0, "mmap.locked-vm": 0, "rb.count": 0, "faults.injected": 1}},
		{"pt_buffer_setup_aux, call 2: the ToPA fails, the driver frees its buffer", pt, "fail pt_buffer_setup_aux in s occurrence 2",
			map[string]int64{"s.perf.error": 1, "pt.buffers": 0, "pt.produced": 0, "mmap.locked-vm": 0, "rb.count": 0, "faults.injected": 1}},
		{"no fail line: perf record traces, its buffer freed at the end", pt, "",
			map[string]int64{"s.perf.error": 0, "pt.buffers": 0, "mmap.locked-vm": 0, "rb.count": 0, "faults.injected": 0}},
		{"etm_setup_aux, call 1: no event data", etm, "fail etm_setup_aux in s",
			map[string]int64{"s.perf.error": 1, "cs.event-data": 0, "cs.periods": 0, "mmap.locked-vm": 0, "rb.count": 0, "faults.injected": 1}},
		{"etm_setup_aux, call 2: the ETR buffer fails, etm_free_aux() frees the event data", etm, "fail etm_setup_aux in s occurrence 2",
			map[string]int64{"s.perf.error": 1, "cs.event-data": 0, "cs.periods": 0, "mmap.locked-vm": 0, "rb.count": 0, "faults.injected": 1}},
		{"etm_setup_aux, call 2 on TRBE: the same unwind", trbe, "fail etm_setup_aux in s occurrence 2",
			map[string]int64{"s.perf.error": 1, "cs.event-data": 0, "cs.periods": 0, "mmap.locked-vm": 0, "rb.count": 0, "faults.injected": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runFailCase(t, "cpus 2\n"+tc.src+tc.fail+"\n", tc.want)
			if msgs := strings.Join(r.Messages(), "\n"); tc.fail != "" && !strings.Contains(msgs, "failed to mmap with 12 (Cannot allocate memory)") {
				t.Errorf("perf's messages:\n%s\nwant its failed mmap (perf 6.1 says the same of an AUX area)", msgs)
			}
		})
	}
}

// TestFailSetFilter: PERF_EVENT_IOC_SET_FILTER's allocations. The filter
// string's copy (perf_event_set_filter()), a tracepoint filter's
// create_filter() (ftrace_profile_set_filter()) and the address filter
// parser's (perf_event_parse_addr_filter()) fail with -ENOMEM, but for a
// filter's perf_addr_filter_new(), whose failure returns the loop's
// -EINVAL. Nothing is installed: a second SET_FILTER of the same string
// succeeds (no EEXIST: event->filter stayed unset) and filters as one
// alone does.
func TestFailSetFilter(t *testing.T) {
	const tp = `task app cpu0
  open tp -e syscalls:sys_enter_close
  ioctl tp SET_FILTER fd == 1000
  ioctl tp SET_FILTER fd == 1000
  syscall close 1000
  syscall close 1001
  syscall close 1000
  read tp
`
	const pt = `pmu intel_pt
task app cpu0
  open pt -e intel_pt//u
  ioctl pt SET_FILTER filter 0x1000/0x100@/usr/local/bin/app
  ioctl pt SET_FILTER filter 0x1000/0x100@/usr/local/bin/app
`
	tpWant := map[string]int64{"errno.ENOMEM": 1, "errno.EEXIST": 0, "read.value": 2, "tp.filtered": 1, "faults.injected": 1}
	for _, tc := range []struct {
		name, src, fail string
		want            map[string]int64
	}{
		{"perf_event_set_filter on a tracepoint: strndup_user() fails, nothing set", tp, "fail perf_event_set_filter in app", tpWant},
		{"ftrace_profile_set_filter: create_filter() fails, event->filter stays unset", tp, "fail ftrace_profile_set_filter in app", tpWant},
		{"no fail line: the second SET_FILTER finds the first's filter", tp, "",
			map[string]int64{"errno.ENOMEM": 0, "errno.EEXIST": 1, "read.value": 2, "tp.filtered": 1, "faults.injected": 0}},
		{"perf_event_set_filter on intel_pt: strndup_user() fails", pt, "fail perf_event_set_filter in app",
			map[string]int64{"errno.ENOMEM": 1, "errno.EINVAL": 0, "addr-filter.set": 1, "faults.injected": 1}},
		{"perf_event_parse_addr_filter, call 1: kstrdup() of the string", pt, "fail perf_event_parse_addr_filter in app",
			map[string]int64{"errno.ENOMEM": 1, "errno.EINVAL": 0, "addr-filter.set": 1, "faults.injected": 1}},
		{"perf_event_parse_addr_filter, call 2: perf_addr_filter_new() fails with -EINVAL", pt, "fail perf_event_parse_addr_filter in app occurrence 2",
			map[string]int64{"errno.ENOMEM": 0, "errno.EINVAL": 1, "addr-filter.set": 1, "faults.injected": 1}},
		{"perf_event_parse_addr_filter, call 3: match_strdup() of the file name", pt, "fail perf_event_parse_addr_filter in app occurrence 3",
			map[string]int64{"errno.ENOMEM": 1, "errno.EINVAL": 0, "addr-filter.set": 1, "faults.injected": 1}},
		{"perf_event_parse_addr_filter: the second SET_FILTER's first call (call 4)", pt, "fail perf_event_parse_addr_filter in app occurrence 4",
			map[string]int64{"errno.ENOMEM": 1, "errno.EINVAL": 0, "addr-filter.set": 1, "faults.injected": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) { runFailCase(t, "cpus 1\n"+tc.src+tc.fail+"\n", tc.want) })
	}
}

// runFailCase runs src and compares the observables want names with it (a
// "tasks" entry is the number of tasks the run made); the run must not
// fail: nothing an error path left behind may break an invariant.
func runFailCase(t *testing.T, src string, want map[string]int64) *Run {
	t.Helper()
	var names []string
	for n := range want {
		if n != "tasks" {
			names = append(names, n)
		}
	}
	got, r := runSrc(t, src, names...)
	if _, ok := want["tasks"]; ok {
		got["tasks"] = int64(len(r.S.Tasks))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("observables (-want +got):\n%s", d)
	}
	if res := r.Result(); res.Failed {
		t.Errorf("the run failed: oops %v, violations %v", res.Oops, res.Violations)
	}
	return r
}
