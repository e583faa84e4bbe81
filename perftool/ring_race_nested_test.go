package perftool

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"perfsim/rb"
	"perfsim/sim"
	"perfsim/simrapid"
	"perfsim/uapi"
)

// nestedRun: a task-context writer puts 6 records into a 1-page buffer; up to 3 NMI
// writers (one sample and one COMM each) interrupt it where in decides. At the end the
// reader drains the buffer. Race (3): records must stay whole and in reservation order.
func nestedRun(in *interrupter, backward bool) (vs []rb.Violation, extra string) {
	flags := rb.RingBufferWritable
	if backward {
		flags = 0
	}
	buf := mustBuffer(1, 0, flags)
	l := &logger{}
	buf.Tracer = l.trace
	const idType = uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME
	task := &rb.SimpleEvent{EventID: 1, Type: uapi.PERF_SAMPLE_IP | idType, IDAll: true}
	nmi := &rb.SimpleEvent{EventID: 2, Type: uapi.PERF_SAMPLE_IP | idType, IDAll: true}
	for i := 0; i < 3; i++ {
		i := i
		in.pending = append(in.pending, func(s rb.Stepper) {
			_ = rb.PerfEventOutput(s, buf, nmi, seqSample(uint64(100+i), i), backward)
			_ = rb.PerfOutputSideband(s, buf, nmi, &rb.Comm{Pid: 9, Tid: 9, Comm: fmt.Sprint("nmi", i)}, &rb.SampleID{Pid: 9, Tid: 9, Time: uint64(i)}, backward)
		})
	}
	for i := 0; i < 6; i++ {
		_ = rb.PerfEventOutput(in, buf, task, seqSample(uint64(i), i%3), backward)
	}
	m, _ := NewMmap(buf, backward)
	m.Tracer = l.trace
	recs, _ := m.ReadAll(rb.NoSteps{})
	for _, r := range recs {
		if _, err := rb.Decode(r, uapi.PERF_SAMPLE_IP|idType|uapi.PERF_SAMPLE_CALLCHAIN, true); err != nil {
			// Samples use seqSample's type, COMMs the event's; try both.
			if _, err2 := rb.Decode(r, uapi.PERF_SAMPLE_IP|idType, true); err2 != nil {
				extra += fmt.Sprintf("record does not parse: %v; ", err)
			}
		}
	}
	if buf.Nest() != 0 || buf.User.DataHead != buf.Head() {
		extra += fmt.Sprintf("nest %d, data_head %#x, head %#x at the end; ", buf.Nest(), buf.User.DataHead, buf.Head())
	}
	vs = rb.Check(l.log, rb.Final{DataSize: buf.DataSize(), Backward: backward, Overwrite: buf.Overwrite(), Head: buf.Head(), Lost: buf.Lost(), Drained: true})
	return vs, extra
}

// TestNestedNMIAtEveryStep delivers one NMI writer at each step point of the task's
// writes in turn (every label, every occurrence), forward and backward.
func TestNestedNMIAtEveryStep(t *testing.T) {
	for _, backward := range []bool{false, true} {
		quiet := &interrupter{}
		nestedRun(quiet, backward)
		seen := map[string]int{}
		for _, label := range quiet.labels {
			seen[label]++
			occ := seen[label]
			t.Run(fmt.Sprintf("backward=%v/%s#%d", backward, label, occ), func(t *testing.T) {
				in := &interrupter{fireAt: label, fireOcc: occ}
				vs, extra := nestedRun(in, backward)
				if len(in.fired) != 1 {
					t.Fatalf("NMI fired at %v, want once at %s", in.fired, label)
				}
				if len(vs) > 0 || extra != "" {
					t.Errorf("violations: %v %s", vs, extra)
				}
			})
		}
		if len(seen) < 6 {
			t.Errorf("only %d distinct step labels: %v", len(seen), seen)
		}
	}
}

func nestedProp(backward bool) func(ch sim.Chooser) string {
	return func(ch sim.Chooser) string {
		in := &interrupter{ch: ch}
		vs, extra := nestedRun(in, backward)
		if len(vs) > 0 || extra != "" {
			return fmt.Sprintf("NMIs at %v: %v %s", in.fired, vs, extra)
		}
		return ""
	}
}

func TestNestedNMIRandomSchedules(t *testing.T) {
	for _, backward := range []bool{false, true} {
		if seed, ds, msg := randomFinds(300, nestedProp(backward)); msg != "" {
			t.Errorf("backward=%v seed %d token %s: %s", backward, seed, sim.EncodeToken(ds), msg)
		}
	}
}

func TestNestedNMIRapid(t *testing.T) {
	for _, backward := range []bool{false, true} {
		prop := nestedProp(backward)
		t.Run(fmt.Sprint("backward=", backward), rapid.MakeCheck(func(t *rapid.T) {
			if msg := prop(&simrapid.Chooser{T: t}); msg != "" {
				t.Fatal(msg)
			}
		}))
	}
}
