package cost

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"perfsim/sim"
)

// TestFitPerfMmapRecoversLines: for any costs (whole ns) whose figures lie
// on lines in the ring's pages, FitPerfMmap gives those costs back, whatever
// the 256-page figures (not fitted) say; and a figure set whose rb_alloc()
// comes out below zero (a new ring cheaper than a second mapping) is
// refused, naming it.
func TestFitPerfMmapRecoversLines(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		mapB := rapid.Float64Range(0, 5000).Draw(rt, "map-base")
		mapS := rapid.Float64Range(0, 500).Draw(rt, "map-per-page")
		allocB := rapid.Float64Range(0, 5000).Draw(rt, "alloc-base")
		allocS := rapid.Float64Range(0, 2000).Draw(rt, "alloc-per-page")
		unB := rapid.Float64Range(0, 10000).Draw(rt, "munmap-base")
		unS := rapid.Float64Range(0, 100).Draw(rt, "munmap-per-page")
		m := Measurements{}
		for _, p := range []int{1, 4, 16, 64, 128} {
			x := float64(1 + p)
			m[fmt.Sprintf("perfmmap.shared.%d", p)] = mapB + mapS*x
			m[fmt.Sprintf("perfmmap.new.%d", p)] = mapB + allocB + (mapS+allocS)*x
			m[fmt.Sprintf("perfmmap.unmap.%d", p)] = unB + unS*x
			m[fmt.Sprintf("perfmmap.last.%d", p)] = unB + unS*x
		}
		m["perfmmap.new.256"] = rapid.Float64Range(0, 1e7).Draw(rt, "new-256")
		var p Profile
		if err := FitPerfMmap(&p, m); err != nil {
			rt.Fatalf("FitPerfMmap: %v", err)
		}
		for _, c := range []struct {
			name string
			got  float64
			want float64
		}{
			{"PerfMmapBase", float64(p.PerfMmapBase), mapB}, {"PerfMmapPerPage", float64(p.PerfMmapPerPage), mapS},
			{"RbAllocBase", float64(p.RbAllocBase), allocB}, {"RbAllocPerPage", float64(p.RbAllocPerPage), allocS},
			{"PerfMunmapBase", float64(p.PerfMunmapBase), unB}, {"PerfMunmapPerPage", float64(p.PerfMunmapPerPage), unS},
		} {
			if math.Abs(c.got-c.want) > 1 { // rounded to whole ns (and float error)
				rt.Errorf("%s = %.0f, want %.3f", c.name, c.got, c.want)
			}
		}
		if allocS > 1 {
			for _, pg := range []int{1, 4, 16, 64, 128} {
				m[fmt.Sprintf("perfmmap.new.%d", pg)] = m[fmt.Sprintf("perfmmap.shared.%d", pg)] - allocS*float64(1+pg)
			}
			err := FitPerfMmap(&p, m)
			if err == nil || !strings.HasPrefix(err.Error(), "calibration: rb_alloc() per page comes out at -") {
				rt.Errorf("a new ring cheaper than a second mapping: err = %v", err)
			}
		}
	})
}

// TestFitPerfMmap: the lines through perfmmap.sh's figures, on synthetic
// figures that lie on lines (a mapped ring 2 us + 200 ns a page, a new one
// 1 us + 600 ns a page more, a munmap 3 us + 30 ns a page), and on this
// machine's: a new ring of 1 + 128 pages comes out within 10% of the 106 us
// measured, which the fit's line does not pass through exactly.
func TestFitPerfMmap(t *testing.T) {
	m := Measurements{}
	for _, p := range []int{1, 4, 16, 64, 128, 256} {
		x := float64(1 + p)
		m[fmt.Sprintf("perfmmap.shared.%d", p)] = 2000 + 200*x
		m[fmt.Sprintf("perfmmap.new.%d", p)] = 3000 + 800*x
		m[fmt.Sprintf("perfmmap.unmap.%d", p)] = 3000 + 30*x
		m[fmt.Sprintf("perfmmap.last.%d", p)] = 3000 + 30*x
	}
	m["perfmmap.new.256"] = 1e6 // not fitted
	var got Profile
	if err := FitPerfMmap(&got, m); err != nil {
		t.Fatal(err)
	}
	want := Profile{PerfMmapBase: 2000, PerfMmapPerPage: 200, RbAllocBase: 1000, RbAllocPerPage: 600, PerfMunmapBase: 3000, PerfMunmapPerPage: 30}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("FitPerfMmap (-want +got):\n%s", d)
	}
	if d := newRing(&got, 129); d != 3000+800*129 {
		t.Errorf("a new ring of 129 pages costs %v; want %v", d, sim.Duration(3000+800*129))
	}
	delete(m, "perfmmap.last.64")
	if err := FitPerfMmap(&got, m); err == nil || err.Error() != "calibration: no perfmmap.last.64 (cost/calibrate/perfmmap.sh)" {
		t.Errorf("missing figure: err = %v", err)
	}
	tm := ThisMachine()
	measured, err := ParseMeasurements(perfMmapText)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range perfMmapFitPages {
		want := measured[fmt.Sprintf("perfmmap.new.%d", p)]
		got := float64(newRing(&tm, 1+p))
		if p >= 16 && math.Abs(got-want) > want/10 {
			t.Errorf("a new ring of 1 + %d pages: the fit gives %.0f ns, measured %.0f", p, got, want)
		}
	}
	t.Logf("this machine: mmap of a mapped ring %v + %v/page, rb_alloc %v + %v/page, munmap %v + %v/page",
		tm.PerfMmapBase, tm.PerfMmapPerPage, tm.RbAllocBase, tm.RbAllocPerPage, tm.PerfMunmapBase, tm.PerfMunmapPerPage)
}

// newRing is what pmu's perf_mmap() charges for a new ring of pages pages
// (the user page counted): PerfMmapBase before the hook, rb_alloc(), and
// map_range()'s inserts.
func newRing(p *Profile, pages int) sim.Duration {
	return p.PerfMmapBase + p.RbAlloc(pages) + sim.Duration(pages)*p.PerfMmapPerPage
}
