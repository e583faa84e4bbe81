package rb

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/uapi"
)

// seqSample is a sample whose bytes tell its sequence number; extra callchain entries
// vary its size.
func seqSample(seq uint64, extra int) *Sample {
	cc := make([]uint64, extra)
	for i := range cc {
		cc[i] = seq<<8 | uint64(i)
	}
	return &Sample{Type: uapi.PERF_SAMPLE_IP | uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME | uapi.PERF_SAMPLE_CALLCHAIN,
		IP: 0x400000 + seq, Pid: 100, Tid: 101, Time: seq, Callchain: cc}
}

func sampleBytes(t testing.TB, s *Sample) []byte {
	b, err := AppendSample(nil, s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestForwardOutputBytes(t *testing.T) {
	rb := mustBuffer(1, 0, RingBufferWritable)
	ev := &SimpleEvent{EventID: 1, Type: uapi.PERF_SAMPLE_IP}
	var want []byte
	for i := uint64(0); i < 3; i++ {
		s := seqSample(i, int(i))
		if err := PerfEventOutput(NoSteps{}, rb, ev, s, false); err != nil {
			t.Fatal(err)
		}
		want = append(want, sampleBytes(t, s)...)
	}
	type st struct{ Head, DataHead uint64 }
	if diff := cmp.Diff(st{uint64(len(want)), uint64(len(want))}, st{rb.Head(), rb.User.DataHead}); diff != "" {
		t.Errorf("heads (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, rb.Data()[:len(want)]); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
}

func TestBackwardOutput(t *testing.T) {
	rb := mustBuffer(1, 0, 0)
	ev := &SimpleEvent{}
	a, b := seqSample(1, 0), seqSample(2, 1)
	for _, s := range []*Sample{a, b} {
		if err := PerfEventOutput(NoSteps{}, rb, ev, s, true); err != nil {
			t.Fatal(err)
		}
	}
	// rb->head goes down: -40 then -88; the newest record is at the head.
	var zero uint64
	minus88 := zero - 88
	if rb.Head() != minus88 || rb.User.DataHead != minus88 {
		t.Errorf("head %#x data_head %#x, want -88", rb.Head(), rb.User.DataHead)
	}
	want := append(sampleBytes(t, b), sampleBytes(t, a)...)
	if diff := cmp.Diff(want, rb.Data()[4096-88:]); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
}

func TestPausedAndPagelessDrops(t *testing.T) {
	tests := []struct {
		name      string
		pages     int
		pause     bool
		wantLost  uint64
		wantPause bool
	}{
		{"paused counts lost", 1, true, 2, true},
		{"no pages counts nothing", 0, false, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rb := mustBuffer(tc.pages, 0, RingBufferWritable)
			rb.TogglePaused(tc.pause)
			ev := &SimpleEvent{}
			for i := 0; i < 2; i++ {
				if err := PerfEventOutput(NoSteps{}, rb, ev, seqSample(1, 0), false); !errors.Is(err, uapi.ENOSPC) {
					t.Fatalf("err = %v, want ENOSPC", err)
				}
			}
			type st struct {
				Lost, LostSamples uint64
				Paused            bool
				Head              uint64
			}
			want := st{tc.wantLost, tc.wantLost, tc.wantPause, 0}
			if diff := cmp.Diff(want, st{rb.Lost(), ev.LostSamples, rb.Paused(), rb.Head()}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if err := PerfEventOutput(NoSteps{}, nil, &SimpleEvent{}, seqSample(1, 0), false); !errors.Is(err, uapi.ENOSPC) {
		t.Errorf("no rb: %v, want ENOSPC", err)
	}
}

func TestWakeups(t *testing.T) {
	tests := []struct {
		name         string
		watermark    int64
		wakeupEvents int
		records      int
		wantWakeups  int
	}{
		// 40-byte records, 4096-byte area, default watermark 2048: the 52nd record
		// takes head past 2048 (52*40 = 2080).
		{"watermark half", 0, 0, 52, 1},
		{"watermark half not yet", 0, 0, 51, 0},
		{"wakeup_watermark 400", 400, 0, 25, 2},
		{"wakeup_events 3", 0, 3, 7, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rb := mustBuffer(1, tc.watermark, RingBufferWritable)
			ev := &SimpleEvent{WakeupEvts: tc.wakeupEvents}
			for i := 0; i < tc.records; i++ {
				if err := PerfEventOutput(NoSteps{}, rb, ev, seqSample(uint64(i), 0), false); err != nil {
					t.Fatal(err)
				}
			}
			if ev.Wakeups != tc.wantWakeups {
				t.Errorf("wakeups %d, want %d", ev.Wakeups, tc.wantWakeups)
			}
			if tc.wantWakeups > 0 && rb.Poll != pollIn {
				t.Errorf("rb->poll = %#x, want EPOLLIN|EPOLLRDNORM", rb.Poll)
			}
		})
	}
}

func TestOverwriteIgnoresTail(t *testing.T) {
	rb := mustBuffer(1, 0, 0) // read-only: overwrite
	ev := &SimpleEvent{}
	for i := 0; i < 300; i++ { // 12000 bytes into 4096
		if err := PerfEventOutput(NoSteps{}, rb, ev, seqSample(uint64(i), 0), false); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
	if rb.Lost() != 0 || rb.Head() != 12000 {
		t.Errorf("lost %d head %d, want 0, 12000", rb.Lost(), rb.Head())
	}
}

func TestOutputCopyWithoutHandleDoesNothing(t *testing.T) {
	var h Handle
	if n := OutputCopy(&h, []byte{1, 2, 3}); n != 3 {
		t.Errorf("OutputCopy on a failed handle copied %d", 3-n)
	}
	OutputEnd(NoSteps{}, &h) // must not crash
}

// TestTraceInPlaceSameRecords: a TraceInPlace Tracer is given, for every
// commit, the same bytes a copying one is (records that wrap at the end of
// the data area and PERF_RECORD_LOST pieces among them), while the records
// that lie in one piece are not copied.
func TestTraceInPlaceSameRecords(t *testing.T) {
	type commit struct {
		Pos uint64
		Rec []byte
	}
	run := func(inPlace bool) (log []commit, wrapped, views int) {
		rb := mustBuffer(1, 0, RingBufferWritable)
		rb.TraceInPlace = inPlace
		rb.Tracer = func(e TraceEvent) {
			if e.Kind != TraceCommit {
				return
			}
			off := int(e.Pos & rb.Mask())
			if off+len(e.Rec) > len(rb.Data()) {
				wrapped++
			} else if len(e.Rec) > 0 && &e.Rec[0] == &rb.Data()[off] {
				views++
			}
			log = append(log, commit{e.Pos, append([]byte(nil), e.Rec...)})
		}
		ev := &SimpleEvent{EventID: 1, Type: uapi.PERF_SAMPLE_IP}
		for i := range uint64(600) {
			_ = PerfEventOutput(NoSteps{}, rb, ev, seqSample(i, int(i%7)), false)
			if i%120 < 40 { // the reader keeps up, then falls behind: lost records
				rb.User.DataTail = rb.User.DataHead
			}
		}
		return log, wrapped, views
	}
	copied, cw, cv := run(false)
	inPlace, iw, iv := run(true)
	if diff := cmp.Diff(copied, inPlace); diff != "" {
		t.Errorf("commits (-copied +in place):\n%s", diff)
	}
	lostIn := func(log []commit) int {
		n := 0
		for _, c := range log {
			if h, ok := ParseHeader(c.Rec); ok && h.Type == uapi.PERF_RECORD_LOST {
				n++
			}
		}
		return n
	}
	type shape struct{ Wrapped, Lost, CopiedViews, InPlaceViews int }
	want := shape{Wrapped: cw, Lost: lostIn(copied), CopiedViews: 0, InPlaceViews: len(inPlace) - iw}
	got := shape{iw, lostIn(inPlace), cv, iv}
	if diff := cmp.Diff(want, got); diff != "" || cw == 0 || got.Lost == 0 {
		t.Errorf("commits %d, wrapped %d, lost records %d (want some of each); views (-want +got):\n%s", len(inPlace), cw, got.Lost, diff)
	}
}
