package runner

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/scenarios"
)

// auxPinnedSrc: mmap-pinned-other-mm's shape on an AUX area. helper (a
// forked child) maps intel_pt's ring and a 512-page AUX area first: with 9
// data pages in locked_vm the AUX area's 263 pages over the user's 258-page
// allowance go to helper's pinned_vm (rb->aux_mmap_locked). parent maps both
// again, helper unmaps and exits, and parent's AUX munmap() is the area's
// last close: atomic64_sub(rb->aux_mmap_locked, &vma->vm_mm->pinned_vm)
// takes the 263 pages from parent's mm.
const auxPinnedSrc = `scenario aux-pinned-other-mm
cpus 2
pmu intel_pt rate=1000 region=4K
kernel data-race=off
task parent cpu0
  open ev -e intel_pt//u
  fork helper
    migrate cpu1
    mmap ev 8
    mmap ev aux 512
    compute 400us
    munmap ev                  # the AUX area (the newest mapping)
    munmap ev
    exit
  sleep 500us                  # past helper's two mmap()s (~0.47ms: the AUX area's ~410us)
  mmap ev 8
  mmap ev aux 512              # shared: nothing pinned
  wait
  munmap ev                    # the AUX area's last close
  munmap ev
  close ev
always fd.errors == 0
always fd.munmaps == 4
`

// TestAuxPinnedOtherMM: the AUX area's pinned charge goes the data ring's
// way (perf_mmap_close()'s AUX branch): today parent's pinned_vm ends at
// -263 and the mlock-accounting oracle reports the close; with
// mmap-pinned-mm=proposed it is taken from helper's mm, which it was
// charged to.
func TestAuxPinnedOtherMM(t *testing.T) {
	f, err := Load(&scenarios.Source{Name: "aux-pinned-other-mm.sim", Src: []byte(auxPinnedSrc)})
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		Knob      string
		PinnedMin int64
		Reports   []string // the oracle's reports made at a close
	}
	var got []result
	for _, knob := range []string{"today", "proposed"} {
		r, res, err := RunOnce(f, Options{Knobs: map[string]string{"mmap-pinned-mm": knob}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed && len(res.Violations) == 0 {
			var b strings.Builder
			res.WriteText(&b, f)
			t.Fatalf("%s:\n%s", knob, b.String())
		}
		v, _ := r.Observe("mmap.pinned-vm-min")
		out := result{Knob: knob, PinnedMin: v, Reports: []string{}}
		for _, x := range res.Violations {
			if x.Invariant == "mlock-accounting" && x.CPU >= 0 {
				_, msg, _ := strings.Cut(x.Message, "perf_mmap_close() ")
				msg, _, _ = strings.Cut(msg, ":")
				out.Reports = append(out.Reports, msg)
			}
		}
		got = append(got, out)
	}
	want := []result{
		{"today", -263, []string{"took the AUX area of event 1's 263 pinned page(s) back from vma->vm_mm->pinned_vm, its own mm's, which another process's mapping of the ring was charged them to"}},
		{"proposed", 0, []string{}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
