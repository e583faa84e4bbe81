package cost

import (
	_ "embed"
	"fmt"
	"math"

	"perfsim/sim"
)

//go:embed testdata/perfmmap.txt
var perfMmapText string

// perfMmapFitPages are the ring sizes (data pages) FitPerfMmap fits:
// perfmmap.sh measures 256 too, where a new ring's figure already grows
// faster than its pages and varies several times over between runs (fresh
// guest memory backed by the hypervisor, not the kernel's work).
var perfMmapFitPages = []int{1, 4, 16, 64, 128}

// FitPerfMmap sets p's perf ring costs from perfmmap.sh's figures (CPU ns
// per call for rings of 1 + P pages), each a least-squares line in the
// ring's pages (1 + P):
//
//	PerfMmapBase, PerfMmapPerPage   perfmmap.shared.P: an mmap() of a ring
//	                                already allocated (map_range() alone)
//	RbAllocBase, RbAllocPerPage     perfmmap.new.P less that line: rb_alloc()
//	PerfMunmapBase, PerfMunmapPerPage perfmmap.unmap.P and perfmmap.last.P
//	                                together: a munmap() of a perf mapping
//	                                (the last one's rb_free() is within
//	                                their noise: 0.1-0.5 us here)
func FitPerfMmap(p *Profile, m Measurements) error {
	line := func(keys ...string) (base, slope float64, err error) {
		var xs, ys []float64
		for _, k := range keys {
			for _, pages := range perfMmapFitPages {
				y, ok := m[fmt.Sprintf("perfmmap.%s.%d", k, pages)]
				if !ok {
					return 0, 0, fmt.Errorf("calibration: no perfmmap.%s.%d (cost/calibrate/perfmmap.sh)", k, pages)
				}
				xs, ys = append(xs, float64(1+pages)), append(ys, y)
			}
		}
		return leastSquares(xs, ys) // fit_reader.go; perfMmapFitPages has several sizes
	}
	mapB, mapS, err := line("shared")
	if err != nil {
		return err
	}
	newB, newS, err := line("new")
	if err != nil {
		return err
	}
	unB, unS, err := line("unmap", "last")
	if err != nil {
		return err
	}
	for _, f := range []struct {
		dst  *sim.Duration
		what string
		v    float64
	}{
		{&p.PerfMmapBase, "an mmap() of a mapped ring", mapB},
		{&p.PerfMmapPerPage, "an mmap() of a mapped ring per page", mapS},
		{&p.RbAllocBase, "rb_alloc()", newB - mapB},
		{&p.RbAllocPerPage, "rb_alloc() per page", newS - mapS},
		{&p.PerfMunmapBase, "a munmap() of a perf mapping", unB},
		{&p.PerfMunmapPerPage, "a munmap() of a perf mapping per page", unS},
	} {
		v := math.Round(f.v) // whole ns: a difference of equal figures is 0, whatever the float error
		if v < 0 {
			return fmt.Errorf("calibration: %s comes out at %.1f ns: rerun perfmmap.sh with more repetitions", f.what, f.v)
		}
		*f.dst = sim.Duration(v)
	}
	return nil
}

// RbAlloc is rb_alloc()'s share of a new ring of pages pages.
func (p *Profile) RbAlloc(pages int) sim.Duration {
	return p.RbAllocBase + sim.Duration(pages)*p.RbAllocPerPage
}

// PerfMunmap is what a munmap() of pages pages of a perf mapping costs.
func (p *Profile) PerfMunmap(pages int) sim.Duration {
	return p.PerfMunmapBase + sim.Duration(pages)*p.PerfMunmapPerPage
}
