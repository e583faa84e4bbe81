package perftool

import (
	"fmt"
	"testing"

	"perfsim/rb"
	"perfsim/sim"
)

// The reader modes of race (1).
const (
	readPerf     = "perf-unpaused" // perf_mmap__read_* on a running buffer
	readPaused   = "perf-paused"   // PAUSE_OUTPUT(1) around the read, as perf record --overwrite does
	readVerified = "verify"        // the copy-verify reader of the seed thread, unpaused
)

// backToBackRun: a backward overwrite 1-page buffer holds 60 records (3360 bytes); the
// reader reads it and, where in decides, is descheduled while a burst of 90 records
// (5040 bytes: the buffer wraps) is written on the buffer's CPU. Race (1) of seed 002.
// (With a buffer that had already wrapped, most steps are in overwrite_rb_find_range,
// and a burst there mostly makes the pass read nothing: the garbage header found at
// the stale start has size 0.)
func backToBackRun(in *interrupter, mode string) (vs []rb.Violation, parseErrors int) {
	buf := mustBuffer(1, 0, 0)
	l := &logger{}
	buf.Tracer = l.trace
	ev := &rb.SimpleEvent{EventID: 1}
	seq := uint64(0)
	write := func(n int) {
		for i := 0; i < n; i++ {
			_ = rb.PerfEventOutput(rb.NoSteps{}, buf, ev, seqSample(seq, int(seq%5)), true)
			seq++
		}
	}
	write(60)
	in.pending = append(in.pending, func(rb.Stepper) { write(90) })
	m, _ := NewMmap(buf, true)
	m.Tracer = l.trace
	var recs [][]byte
	switch mode {
	case readPerf:
		recs, _ = m.ReadAll(in)
	case readPaused:
		_ = buf.PauseOutput(true)
		recs, _ = m.ReadAll(in)
		_ = buf.PauseOutput(false)
	case readVerified:
		recs = m.ReadVerified(in)
	}
	for _, r := range recs {
		if _, err := rb.DecodeSample(r, seqSample(0, 0).Type); err != nil {
			parseErrors++
		}
	}
	vs = rb.Check(l.log, rb.Final{DataSize: buf.DataSize(), Backward: true, Overwrite: true, Head: buf.Head(), Lost: buf.Lost()})
	return vs, parseErrors
}

func backToBackBroken(vs []rb.Violation) bool {
	return hasAny(vs, "read-record-was-written", "read-order", "record-accounted-once")
}

func TestBackToBackFixedSchedule(t *testing.T) {
	// Descheduled after the header of the 5th record: the burst wraps the buffer and
	// the reader copies whatever is there now.
	tests := []struct {
		mode       string
		wantBroken bool
	}{
		{readPerf, true},
		{readPaused, false},
		{readVerified, false},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			label := "perf_mmap__read:header-read"
			if tc.mode == readVerified {
				label = "read_verified:header-copied"
			}
			in := &interrupter{fireAt: label, fireOcc: 5}
			vs, parseErrors := backToBackRun(in, tc.mode)
			if len(in.fired) != 1 {
				t.Fatalf("burst fired at %v", in.fired)
			}
			if backToBackBroken(vs) != tc.wantBroken || (!tc.wantBroken && len(vs) > 0) {
				t.Errorf("violations %v (%d records do not parse); want broken %v", vs, parseErrors, tc.wantBroken)
			}
			t.Logf("%d records do not parse; %v", parseErrors, vs)
		})
	}
}

func backToBackProp(mode string) func(ch sim.Chooser) string {
	return func(ch sim.Chooser) string {
		in := &interrupter{ch: ch}
		if vs, pe := backToBackRun(in, mode); len(vs) > 0 {
			return fmt.Sprintf("burst at %v: %v (%d unparsable)", in.fired, vs, pe)
		}
		return ""
	}
}

func TestBackToBackRandom(t *testing.T) {
	seed, ds, msg := randomFinds(200, backToBackProp(readPerf))
	if msg == "" {
		t.Fatal("no seed showed a torn or stale record with the unpaused reader")
	}
	t.Logf("seed %d token %s: %s", seed, sim.EncodeToken(ds), msg)
	for _, mode := range []string{readPaused, readVerified} {
		if seed, ds, msg := randomFinds(200, backToBackProp(mode)); msg != "" {
			t.Errorf("%s: seed %d token %s: %s", mode, seed, sim.EncodeToken(ds), msg)
		}
	}
}

func TestBackToBackRapid(t *testing.T) {
	found, minimal, msg := rapidFinds("rb-back-to-back-perf", backToBackProp(readPerf))
	if !found {
		t.Fatal("rapid did not find the back-to-back read")
	}
	t.Logf("shrunk schedule %s (%d interruptions): %s", sim.EncodeToken(minimal), nonZero(minimal), msg)
	if nonZero(minimal) != 1 {
		t.Errorf("shrunk schedule has %d bursts, want 1", nonZero(minimal))
	}
	for _, mode := range []string{readPaused, readVerified} {
		if found, _, msg := rapidFinds("rb-back-to-back-"+mode, backToBackProp(mode)); found {
			t.Errorf("%s: %s", mode, msg)
		}
	}
}
