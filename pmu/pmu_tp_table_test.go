package pmu

import (
	"strings"
	"testing"
)

// TestTpTableSlotsOnAttach: looking tracepoints up to fire them (a syscall's,
// raw_syscalls', a sched tracepoint by name) makes no slot; the first event
// that attaches (byID) makes the tracepoint's slot, and every reference
// taken before (the syscall cache, the raw_syscalls pair, the names) sees
// it from then on; a tracepoint the catalogue lacks has no slot ever.
func TestTpTableSlotsOnAttach(t *testing.T) {
	infos := []TracepointInfo{
		{System: "raw_syscalls", Name: "sys_enter", ID: 10, RawSize: 68},
		{System: "raw_syscalls", Name: "sys_exit", ID: 11, RawSize: 20},
		{System: "syscalls", Name: "sys_enter_getpid", ID: 20, RawSize: 12},
		{System: "syscalls", Name: "sys_exit_getpid", ID: 21, RawSize: 20},
		{System: "sched", Name: "sched_switch", ID: 30, RawSize: 68},
	}
	var tp tpTable
	tp.init(infos, 2)
	sc := tp.syscall("getpid")
	if sc.enter.idx != 2 || sc.exit.idx != 3 || sc.nr < 0 {
		t.Fatalf("getpid: %+v", *sc)
	}
	name := strings.Clone("sched:sched_switch") // not the constant's bytes
	if s := tp.attached("sched:sched_switch"); s != nil {
		t.Fatal("sched_switch has a slot before any event attached")
	}
	if s := tp.attached("sched:sched_wakeup"); s != nil {
		t.Fatal("a tracepoint the catalogue lacks has a slot")
	}
	if len(tp.slots) != 0 || tp.rawEnter.slot != nil || sc.enter.slot != nil {
		t.Fatalf("lookups made slots: %d, raw enter %p, getpid enter %p", len(tp.slots), tp.rawEnter.slot, sc.enter.slot)
	}
	check := func(what string, got, want *tpSlot) {
		t.Helper()
		if got != want || want == nil {
			t.Errorf("%s: slot %p, want %p", what, got, want)
		}
	}
	enter := tp.byID(20)
	check("getpid enter after attach", tp.syscall("getpid").enter.slot, enter)
	check("getpid enter, the cached sysTPs", sc.enter.slot, enter)
	if sc.exit.slot != nil {
		t.Error("sys_exit_getpid got a slot: no event attached to it")
	}
	raw := tp.byID(10)
	check("raw_syscalls:sys_enter", tp.rawEnter.slot, raw)
	sw := tp.byID(30)
	check("sched_switch by its constant", tp.attached("sched:sched_switch"), sw)
	check("sched_switch by other bytes", tp.attached(name), sw)
	check("byID again", tp.byID(30), sw)
	if tp.byID(99) != nil {
		t.Error("byID of an id the catalogue lacks")
	}
	if len(tp.slots) != 3 {
		t.Errorf("%d slots, want 3 (the tracepoints events attached to)", len(tp.slots))
	}
}
