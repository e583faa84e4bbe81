package explore

import (
	"testing"
)

// groupSiblingClose closes a sibling of a sampling group (PERF_SAMPLE_READ,
// read_format GROUP) while the group counts on another CPU: the release's
// perf_remove_from_context() runs __perf_remove_from_context() in that
// CPU's IPI, where perf_group_detach() passes both its step points, then
// the leader is read and closed. No built-in closes a sibling before its
// leader (perf record closes the leader first: its detach has no step
// point).
const groupSiblingClose = `scenario group-sibling-close
title "a group's sibling closed while the group runs on another CPU"

cpus 2

task owner cpu0
  open lead -e cycles/period=40000/ cpu1 read_format=GROUP|ID sample_type=IP|TID|READ
  open sib -e instructions/period=30000/ cpu1 group lead read_format=GROUP|ID
  open sib2 -e page-faults cpu1 group lead read_format=GROUP|ID
  mmap lead 8
  compute 20us
  close sib
  compute 20us
  read lead
  munmap lead
  close lead
  close sib2

task spin cpu1
  compute 80us

never kernel.oops
always fd.opened == 3 && fd.errors == 0
`

// TestWriteAuditGroupDetach: perf_group_detach()'s step points of a
// sibling, declared complete (pmu/footprint_group.go: nr_siblings,
// group_generation, the read_size of each member left, and the return
// through list_del_event() into __perf_remove_from_context()'s code),
// write nothing they do not annotate: on a sibling's close
// (groupSiblingClose), and beside it, the leader's detach (no step point:
// the __perf_remove_from_context fragment's) on the built-ins that close a
// group's leader first (group-leader-close-sample-read, group-read-vs-
// sibling-add) and c2's shape (perf record closes each group's leader,
// then its promoted members). Each run checks the fragments it lists at
// least once.
func TestWriteAuditGroupDetach(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	detach := []string{"perf_group_detach:list_del", "perf_group_detach:nr_siblings"}
	for _, tc := range []struct {
		name string
		src  string   // a scenario's text, or "" for the built-in name
		want []string // the fragments checked at least once
	}{
		{"group-sibling-close", groupSiblingClose, append(detach, "__perf_remove_from_context")},
		{"group-leader-close-sample-read", "", []string{"__perf_remove_from_context"}},
		{"group-read-vs-sibling-add", "", []string{"__perf_remove_from_context"}},
		{"c2", c2Shape, []string{"__perf_remove_from_context"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auditChecked(t, auditScenario(t, tc.name, tc.src), tc.want)
		})
	}
}
