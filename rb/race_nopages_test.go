package rb

import (
	"errors"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"perfsim/sim"
	"perfsim/simrapid"
	"perfsim/uapi"
)

// noPagesRun: a buffer with only the AUX area (nr_pages == 0, 86e7972f690c). A task
// writes 5 records; between writes (and inside them) other CPUs may issue
// PAUSE_OUTPUT(0), rb_toggle_paused(rb, false) from a resume path, or an NMI write.
// Race (4): the buffer stays paused, every write fails, nothing is counted lost.
func noPagesRun(in *interrupter) string {
	rb := mustBuffer(0, 0, RingBufferWritable)
	l := &logger{}
	rb.Tracer = l.trace
	ev := &SimpleEvent{EventID: 1}
	var ioctlErrs []error
	in.pending = []func(Stepper){
		func(Stepper) { ioctlErrs = append(ioctlErrs, rb.PauseOutput(false)) },
		func(Stepper) { rb.TogglePaused(false) },
		func(s Stepper) { _ = PerfEventOutput(s, rb, ev, seqSample(99, 0), false) },
	}
	var problems []string
	for i := 0; i < 5; i++ {
		in.Step("task:between-writes")
		if err := PerfEventOutput(in, rb, ev, seqSample(uint64(i), 0), false); !errors.Is(err, uapi.ENOSPC) {
			problems = append(problems, fmt.Sprintf("write %d: %v, want ENOSPC", i, err))
		}
	}
	for _, err := range ioctlErrs {
		if !errors.Is(err, uapi.EINVAL) {
			problems = append(problems, fmt.Sprintf("PAUSE_OUTPUT(0) = %v, want EINVAL", err))
		}
	}
	if !rb.Paused() || rb.Lost() != 0 || ev.LostSamples != 0 || rb.Head() != 0 {
		problems = append(problems, fmt.Sprintf("paused %v, rb->lost %d, lost_samples %d, head %d", rb.Paused(), rb.Lost(), ev.LostSamples, rb.Head()))
	}
	for _, v := range Check(l.log, Final{Lost: rb.Lost(), Drained: true}) {
		problems = append(problems, v.String())
	}
	if len(problems) > 0 {
		return fmt.Sprintf("interruptions at %v: %v", in.fired, problems)
	}
	return ""
}

func TestNoPagesFixedSchedules(t *testing.T) {
	for occ := 1; occ <= 5; occ++ {
		t.Run(fmt.Sprint("all at write ", occ), func(t *testing.T) {
			in := &interrupter{fireAt: "task:between-writes", fireOcc: occ}
			if msg := noPagesRun(in); msg != "" {
				t.Error(msg)
			}
			if len(in.fired) != 1 {
				t.Errorf("fired %v, want one interruption", in.fired)
			}
		})
	}
}

func TestNoPagesRandomAndRapid(t *testing.T) {
	if seed, ds, msg := randomFinds(300, func(ch sim.Chooser) string { return noPagesRun(&interrupter{ch: ch}) }); msg != "" {
		t.Errorf("seed %d token %s: %s", seed, sim.EncodeToken(ds), msg)
	}
	rapid.Check(t, func(t *rapid.T) {
		if msg := noPagesRun(&interrupter{ch: &simrapid.Chooser{T: t}}); msg != "" {
			t.Fatal(msg)
		}
	})
}
