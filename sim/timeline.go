package sim

import (
	"fmt"
	"strings"
)

// Timeline renders a per-CPU text timeline from the switch records of a trace, in
// the spirit of the diagram in the CoreSight snapshot thread (seed 004):
//
//	CPU0: ______###P1###_________|
//
// Each column is end/width of virtual time; '_' is the idle thread, '#' a task,
// with the task's name written into its run when it fits; '!' marks a column
// where an NMI was taken.
func Timeline(recs []Record, cpus int, end Time, width int, idle func(name string) bool) string {
	if width < 10 {
		width = 10
	}
	if end <= 0 {
		end = 1
	}
	type seg struct {
		from, to Time
		name     string
	}
	segs := make([][]seg, cpus)
	cur := make([]string, cpus)
	since := make([]Time, cpus)
	nmiCol := make([][]bool, cpus)
	for i := range nmiCol {
		nmiCol[i] = make([]bool, width)
	}
	col := func(t Time) int {
		c := int(int64(t) * int64(width) / int64(end))
		if c >= width {
			c = width - 1
		}
		return c
	}
	for i := range recs {
		r := &recs[i]
		if r.CPU < 0 || r.CPU >= cpus {
			continue
		}
		switch r.Kind {
		case KSwitch:
			if cur[r.CPU] != "" && !idle(cur[r.CPU]) {
				segs[r.CPU] = append(segs[r.CPU], seg{since[r.CPU], r.T, cur[r.CPU]})
			}
			cur[r.CPU], since[r.CPU] = r.Detail, r.T
		case KEnter:
			if r.Name == "nmi" && r.T <= end {
				nmiCol[r.CPU][col(r.T)] = true
			}
		}
	}
	var b strings.Builder
	for c := 0; c < cpus; c++ {
		if cur[c] != "" && !idle(cur[c]) {
			segs[c] = append(segs[c], seg{since[c], end, cur[c]})
		}
		row := []byte(strings.Repeat("_", width))
		for _, s := range segs[c] {
			a, z := col(s.from), col(s.to)
			if z <= a {
				z = a + 1
			}
			if z > width {
				z = width
			}
			for k := a; k < z; k++ {
				row[k] = '#'
			}
			if n := len(s.name); n+2 <= z-a {
				off := a + (z-a-n)/2
				copy(row[off:], s.name)
			}
		}
		for k, on := range nmiCol[c] {
			if on {
				row[k] = '!'
			}
		}
		fmt.Fprintf(&b, "CPU%d: %s|\n", c, row)
	}
	return b.String()
}
