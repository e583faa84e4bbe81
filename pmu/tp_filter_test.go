package pmu

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// sched_switch's fields as this machine's format file gives them.
var switchFields = []TracepointField{
	FieldOfDecl("char prev_comm[16]", 8, 16, false),
	FieldOfDecl("pid_t prev_pid", 24, 4, true),
	FieldOfDecl("int prev_prio", 28, 4, true),
	FieldOfDecl("long prev_state", 32, 8, true),
	FieldOfDecl("char next_comm[16]", 40, 16, false),
	FieldOfDecl("pid_t next_pid", 56, 4, true),
	FieldOfDecl("int next_prio", 60, 4, true),
}

func switchRecord(prevComm string, prevPid int32, prevState int64, nextPid int32) []byte {
	rec := make([]byte, 64)
	copy(rec[8:24], prevComm)
	binary.LittleEndian.PutUint32(rec[24:], uint32(prevPid))
	binary.LittleEndian.PutUint32(rec[28:], 120)
	binary.LittleEndian.PutUint64(rec[32:], uint64(prevState))
	binary.LittleEndian.PutUint32(rec[56:], uint32(nextPid))
	binary.LittleEndian.PutUint32(rec[60:], 120)
	return rec
}

// Filters evaluated on one sched_switch record (prev "bash" pid 7, state 1,
// next pid -1): the precedence of && over ||, ! and parentheses, signed
// comparisons, &, and the string matches of ~ (front*, *end, *middle*,
// globs) and ==/!=.
func TestTpFilterMatch(t *testing.T) {
	rec := switchRecord("bash", 7, 1, -1)
	for _, tc := range []struct {
		filter string
		want   bool
	}{
		{"prev_pid == 7", true},
		{"prev_pid != 7", false},
		{"next_pid < 0", true},
		{"next_pid == -1", true},
		{"prev_pid == 1 || prev_pid == 7 && next_pid == 3", false},
		{"prev_pid == 7 || prev_pid == 1 && next_pid == 3", true},
		{"(prev_pid == 7 || prev_pid == 1) && next_pid == 3", false},
		{"!(prev_pid == 7)", false},
		{"!prev_pid == 8", true},
		{"prev_state & 1", true},
		{"prev_state & 2", false},
		{`prev_comm == "bash"`, true},
		{`prev_comm != "bash"`, false},
		{`prev_comm ~ "ba*"`, true},
		{`prev_comm ~ "*sh"`, true},
		{`prev_comm ~ "*as*"`, true},
		{`prev_comm ~ "b?sh"`, true},
		{`prev_comm ~ "!ba*"`, false},
		{`prev_comm ~ "zsh"`, false},
		{"prev_pid >= 0x7 && prev_prio <= 120", true},
		{"prev_pid == 7 &&", true},
	} {
		f, err := parseTpFilter(tc.filter, switchFields)
		if err != nil {
			t.Errorf("%q: %v", tc.filter, err)
			continue
		}
		if got := f.root.eval(rec, nil, nil); got != tc.want {
			t.Errorf("%q: match %v, want %v", tc.filter, got, tc.want)
		}
	}
}

// FuzzParseTpFilter: the filter parser never panics; what it accepts
// evaluates on a record without panicking, and what calc_stack() rejects is
// rejected.
func FuzzParseTpFilter(f *testing.F) {
	for _, s := range []string{"prev_pid == 5", `prev_comm ~ "ba*" || !(next_pid < 3)`, "(a", "a)", `"`, "prev_pid ==", "&&", "!", "prev_pid == 1 &&"} {
		f.Add(s)
	}
	rec := switchRecord("bash", 7, 1, -1)
	f.Fuzz(func(t *testing.T, s string) {
		flt, err := parseTpFilter(s, switchFields)
		if _, cerr := calcStack(s); cerr != nil && err == nil {
			t.Errorf("%q: calc_stack fails (%v) but the filter was accepted", s, cerr)
		}
		if err == nil {
			flt.root.eval(rec, nil, nil)
			flt.root.eval(rec[:10], nil, nil) // a short record: no field read past it
		}
	})
}

// FieldOfDecl reads a format file's declaration as the filter does
// (filter_assign_type()).
func ExampleFieldOfDecl() {
	for _, d := range []string{"char prev_comm[16]", "__data_loc char[] name", "pid_t pid", "const char * fmt"} {
		f := FieldOfDecl(d, 8, 4, false)
		fmt.Println(f.Name, f.Kind)
	}
	// Output:
	// prev_comm 1
	// name 2
	// pid 0
	// fmt 0
}
