package pt_test

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestAuxMmapSharedBuffer: the mapping rules for a buffer two events share
// (PERF_EVENT_IOC_SET_OUTPUT), step by step on one thread. The data area
// cannot be mapped through the redirected event (d06bf78e55d5); its AUX area
// can, and today refcount_inc() then warns on event->mmap_count (an atomic_t
// before 448f97fba901, so not before 2ab9d830262c either). The AUX pages live
// until the last AUX mapping goes, through whichever event; a new area
// through an event whose PMU has no setup_aux is -EOPNOTSUPP.
func TestAuxMmapSharedBuffer(t *testing.T) {
	for _, knob := range []string{"today", "pre-2ab9d830262c"} {
		t.Run(knob, func(t *testing.T) {
			mc := newMachine(t, sim.NewRandom(1), map[string]string{"aux-mutex": knob})
			var got []string
			note := func(what string, err error, m *pmu.Mapping) {
				s := what + ": ok"
				if err != nil {
					s = what + ": " + err.Error()
				}
				if m != nil {
					s += " aux_mmap_count=" + strconv.Itoa(int(m.RB.AuxMmapCount())) + " aux_pages=" + strconv.Itoa(m.RB.AuxNrPages())
				}
				got = append(got, s)
			}
			mc.s.Spawn("perf", sched.MaskOf(0), sched.Call(func(task *sched.Task) {
				a := ptAttr()
				owner, err := mc.k.PerfEventOpen(task, &a, 0, -1, -1, 0)
				if err != nil {
					t.Fatal(err)
				}
				b := tpAttr(t, "sys_enter_getpid")
				b.Inherit = false // a per-task event on any CPU with inherit cannot be mapped
				other, err := mc.k.PerfEventOpen(task, &b, 0, -1, -1, 0)
				if err != nil {
					t.Fatal(err)
				}
				data, err := mc.k.Mmap(task, owner, 0, 9*4096, pmu.ProtRead|pmu.ProtWrite)
				if err != nil {
					t.Fatal(err)
				}
				data.RB.User.AuxOffset, data.RB.User.AuxSize = 9*4096, 8*4096
				_, err = mc.k.Ioctl(task, other, uapi.PERF_EVENT_IOC_SET_OUTPUT, uint64(owner))
				note("SET_OUTPUT other -> owner", err, nil)
				_, err = mc.k.Mmap(task, other, 0, 9*4096, pmu.ProtRead|pmu.ProtWrite)
				note("data mmap through other", err, nil)
				auxOwner, err := mc.k.Mmap(task, owner, 9, 8*4096, pmu.ProtRead|pmu.ProtWrite)
				note("AUX mmap through owner", err, auxOwner)
				auxOther, err := mc.k.Mmap(task, other, 9, 8*4096, pmu.ProtRead|pmu.ProtWrite)
				note("AUX mmap through other", err, auxOther)
				note("AUX munmap through owner", mc.k.Munmap(task, auxOwner), auxOther)
				note("AUX munmap through other", mc.k.Munmap(task, auxOther), auxOther)
				again, err := mc.k.Mmap(task, other, 9, 8*4096, pmu.ProtRead|pmu.ProtWrite)
				note("AUX mmap through other, no area", err, again)
				warn, _ := mc.k.Observe("mmap.refcount-warn")
				got = append(got, "refcount warnings: "+strconv.Itoa(int(warn)))
			}))
			if err := mc.m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			// Today event->mmap_count of the redirected event stays saturated,
			// so its munmap never detaches it from the buffer and a third
			// mapping reaches rb_alloc_aux() (-EOPNOTSUPP: no setup_aux);
			// before, the count went 1 -> 0 and detached it (-EINVAL: no rb).
			warns, noArea := "1", uapi.EOPNOTSUPP.Error()
			if knob != "today" {
				warns, noArea = "0", uapi.EINVAL.Error()
			}
			want := []string{
				"SET_OUTPUT other -> owner: ok",
				"data mmap through other: " + uapi.EBUSY.Error(),
				"AUX mmap through owner: ok aux_mmap_count=1 aux_pages=8",
				"AUX mmap through other: ok aux_mmap_count=2 aux_pages=8",
				"AUX munmap through owner: ok aux_mmap_count=1 aux_pages=8",
				"AUX munmap through other: ok aux_mmap_count=0 aux_pages=0",
				"AUX mmap through other, no area: " + noArea,
				"refcount warnings: " + warns,
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestMunmapSplit: munmap() of part of a perf mapping. Today every split is
// -EINVAL (perf_mmap_may_split()). Before b024d7b56c77 the new (lower)
// piece's perf_mmap_open() takes an aux_mmap_count for any vm_pgoff != 0 that
// only the piece at aux_pgoff gives back: a hole in the middle of the data
// mapping takes one from 0, and splitting the AUX mapping leaves one behind
// so the last AUX munmap frees nothing.
func TestMunmapSplit(t *testing.T) {
	type result struct {
		DataTail, DataHole, AuxTail, AuxHead, AuxRest string
		CountAfterData, AuxMmapCount                  int32
		AuxPages                                      int
		LockedVM                                      int64
	}
	for _, tc := range []struct {
		knob string
		want result
	}{
		{"today", result{DataTail: "EINVAL", DataHole: "EINVAL", AuxTail: "EINVAL", AuxHead: "EINVAL", AuxRest: "ok",
			CountAfterData: 0, AuxMmapCount: 0, AuxPages: 0, LockedVM: 9}},
		{"pre-b024d7b56c77", result{DataTail: "ok", DataHole: "ok", AuxTail: "ok", AuxHead: "ok", AuxRest: "ok",
			CountAfterData: 1, AuxMmapCount: 2, AuxPages: 8, LockedVM: 9 + 8}},
	} {
		t.Run(tc.knob, func(t *testing.T) {
			mc := newMachine(t, sim.NewRandom(1), map[string]string{"vma-split": tc.knob})
			var got result
			name := func(err error) string {
				if err == nil {
					return "ok"
				}
				return err.(uapi.Errno).Name()
			}
			mc.s.Spawn("perf", sched.MaskOf(0), sched.Call(func(task *sched.Task) {
				a := ptAttr()
				fd, err := mc.k.PerfEventOpen(task, &a, 0, -1, -1, 0)
				if err != nil {
					t.Fatal(err)
				}
				data, err := mc.k.Mmap(task, fd, 0, 9*4096, pmu.ProtRead|pmu.ProtWrite)
				if err != nil {
					t.Fatal(err)
				}
				// The last data page goes before the AUX area exists: the kept
				// lower piece is at vm_pgoff 0 and takes nothing. A hole at page 4
				// then splits [4,8) too, whose new piece [4,5) at vm_pgoff 4
				// takes an aux_mmap_count from 0 that nothing gives back.
				got.DataTail = name(mc.k.MunmapRange(task, data, 8*4096, 4096))
				got.DataHole = name(mc.k.MunmapRange(task, data, 4*4096, 4096))
				got.CountAfterData = data.RB.AuxMmapCount()
				data.RB.User.AuxOffset, data.RB.User.AuxSize = 9*4096, 8*4096
				aux, err := mc.k.Mmap(task, fd, 9, 8*4096, pmu.ProtRead|pmu.ProtWrite)
				if err != nil {
					t.Fatal(err)
				}
				got.AuxTail = name(mc.k.MunmapRange(task, aux, 6*4096, 2*4096)) // pieces [9,15) and [15,17)
				got.AuxHead = name(mc.k.MunmapRange(task, aux, 0, 2*4096))      // [9,11) at aux_pgoff: gives one back
				got.AuxRest = name(mc.k.Munmap(task, aux))
				got.AuxMmapCount, got.AuxPages = data.RB.AuxMmapCount(), data.RB.AuxNrPages()
				got.LockedVM, _ = mc.k.Observe("mmap.locked-vm")
			}))
			if err := mc.m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
