package perftool

import (
	"fmt"
	"strings"
	"testing"

	"perfsim/rb"
	"perfsim/sim"
)

// putHandleRun: a task writes 4 records into a forward 1-page buffer; up to 2 NMI
// writers interrupt it where in decides; a reader on another CPU polls (a whole
// perf_mmap__read_init..read_done pass) at every step of the writers. Race (2):
// with the pre-1b038c6e05ff put_handle an NMI between the nest decrement and the
// data_head store makes data_head go backwards under the reader.
func putHandleRun(in *interrupter, old bool) (vs []rb.Violation, m *Mmap) {
	buf := mustBuffer(1, 0, rb.RingBufferWritable)
	buf.Knobs.OldPutHandle = old
	l := &logger{}
	buf.Tracer = l.trace
	m, _ = NewMmap(buf, false)
	m.Tracer = l.trace
	poll := func(string) { _, _ = m.ReadAll(rb.NoSteps{}) }
	in.observe = poll
	task := &rb.SimpleEvent{EventID: 1}
	nmi := &rb.SimpleEvent{EventID: 2}
	for i := 0; i < 2; i++ {
		i := i
		in.pending = append(in.pending, func(s rb.Stepper) {
			_ = rb.PerfEventOutput(s, buf, nmi, seqSample(uint64(100+i), 1), false)
		})
	}
	for i := 0; i < 4; i++ {
		_ = rb.PerfEventOutput(in, buf, task, seqSample(uint64(i), 0), false)
	}
	poll("end")
	vs = rb.Check(l.log, rb.Final{DataSize: buf.DataSize(), Head: buf.Head(), Lost: buf.Lost(), Drained: true})
	return vs, m
}

func TestPutHandleFixedSchedule(t *testing.T) {
	tests := []struct {
		name     string
		old      bool
		wantBugs bool
	}{
		{"pre-1b038c6e05ff", true, true},
		{"today", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Today's code has no nest-dec step; fire at the matching place (after the
			// head is read, before data_head is stored) in both.
			label := "perf_output_put_handle:nest-dec"
			if !tc.old {
				label = "perf_output_put_handle:head-read"
			}
			in := &interrupter{fireAt: label, fireOcc: 1}
			vs, m := putHandleRun(in, tc.old)
			if len(in.fired) != 1 {
				t.Fatalf("NMI fired at %v", in.fired)
			}
			got := hasAny(vs, "data-head-monotonic") && hasAny(vs, "record-accounted-once")
			if got != tc.wantBugs || (!tc.wantBugs && len(vs) > 0) {
				t.Errorf("violations %v, want data_head going back and a record read twice: %v", vs, tc.wantBugs)
			}
			warned := strings.Contains(strings.Join(m.Warnings, "\n"), "failed to keep up")
			if warned != tc.wantBugs {
				t.Errorf("reader warnings %q; want 'failed to keep up': %v", m.Warnings, tc.wantBugs)
			}
		})
	}
}

func putHandleProp(old bool) func(ch sim.Chooser) string {
	return func(ch sim.Chooser) string {
		in := &interrupter{ch: ch}
		if vs, _ := putHandleRun(in, old); len(vs) > 0 {
			return fmt.Sprintf("NMIs at %v: %v", in.fired, vs)
		}
		return ""
	}
}

func TestPutHandleRandomFindsOldBug(t *testing.T) {
	seed, ds, msg := randomFinds(2000, putHandleProp(true))
	if msg == "" {
		t.Fatal("no seed in 2000 showed data_head going backwards with the old put_handle")
	}
	t.Logf("seed %d, token %s: %s", seed, sim.EncodeToken(ds), msg)
	// The token replays the same violation.
	r := sim.NewReplay(ds)
	if again := putHandleProp(true)(r); again != msg || r.Mismatches != 0 {
		t.Errorf("replay gave %q, want %q", again, msg)
	}
	if _, _, msg := randomFinds(300, putHandleProp(false)); msg != "" {
		t.Errorf("today's put_handle: %s", msg)
	}
}

func TestPutHandleRapidFindsOldBug(t *testing.T) {
	found, minimal, msg := rapidFinds("rb-put-handle-old", putHandleProp(true))
	if !found {
		t.Fatal("rapid did not find data_head going backwards with the old put_handle")
	}
	t.Logf("shrunk schedule %s (%d interruptions): %s", sim.EncodeToken(minimal), nonZero(minimal), msg)
	// One NMI at the nest-dec step is the smallest schedule; rapid's shrinker gets
	// within one of it.
	if n := nonZero(minimal); n < 1 || n > 2 {
		t.Errorf("shrunk schedule has %d NMIs, want 1 or 2", n)
	}
	if found, _, msg := rapidFinds("rb-put-handle-today", putHandleProp(false)); found {
		t.Errorf("today's put_handle: %s", msg)
	}
}
