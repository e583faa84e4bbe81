package cost

import (
	_ "embed"
	"fmt"
	"math"

	"perfsim/sim"
)

//go:embed testdata/reader-wakeups.txt
var readerWakeupsText string

// ReaderWakeupsText is the committed reader calibration
// (testdata/reader-wakeups.txt, calibrate/reader-wakeups.sh's output).
func ReaderWakeupsText() string { return readerWakeupsText }

// readerRings are the -m sizes reader-wakeups.sh records with.
var readerRings = []string{"m1", "m2", "m4"}

// FitReader sets p's ReaderRound and ReaderPerKiB from reader-wakeups.sh's
// figures: how long perf record ran per wake-up (reader.mN.run_ns) against
// the bytes it copied (reader.mN.bytes), for three ring sizes. The least
// squares line run = a + b*bytes gives ReaderPerKiB = 1024*b; ReaderRound is
// a less what the model charges on its own in the same interval, which runs
// from one trace_sched_switch() to the next: a context switch (the part
// after the tracepoint on the way in, the part before it on the way out),
// the workload's perf context switch (perf_event_task_sched_out() on the
// way in; the model charges all of it there), and three system calls (the
// write(2) of the ring's bytes, the FINISHED_ROUND's write(2), the poll(2)
// that sleeps). p's other costs must be set (Fit) first.
func FitReader(p *Profile, m Measurements) error {
	var xs, ys []float64
	for _, r := range readerRings {
		x, okx := m["reader."+r+".bytes"]
		y, oky := m["reader."+r+".run_ns"]
		if !okx || !oky {
			return fmt.Errorf("calibration: no reader.%s.bytes and reader.%s.run_ns (cost/calibrate/reader-wakeups.sh)", r, r)
		}
		xs, ys = append(xs, x), append(ys, y)
	}
	a, b, err := leastSquares(xs, ys)
	if err != nil {
		return fmt.Errorf("calibration: the reader runs copied the same bytes per wake-up: %w", err)
	}
	own := float64(p.ContextSwitch + p.PerfContextSwitch + 3*p.SyscallEntryExit)
	if a-own < 0 || b < 0 {
		return fmt.Errorf("calibration: perf record's wake-ups fit %.0f ns + %.3f ns/byte, less than the %.0f ns the model charges on its own: rerun reader-wakeups.sh", a, b, own)
	}
	p.ReaderRound = sim.Duration(math.Round(a - own))
	p.ReaderPerKiB = sim.Duration(math.Round(b * 1024))
	return nil
}

// leastSquares fits y = a + b*x; xs all equal is an error (no slope).
func leastSquares(xs, ys []float64) (a, b float64, err error) {
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0, 0, fmt.Errorf("nothing to fit")
	}
	b = (n*sxy - sx*sy) / d
	return (sy - b*sx) / n, b, nil
}
