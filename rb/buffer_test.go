package rb

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/uapi"
)

func TestRingBufferInit(t *testing.T) {
	type state struct {
		Watermark         uint64
		Overwrite, Paused bool
		DataSize          uint64
	}
	tests := []struct {
		name      string
		pages     int
		watermark int64
		flags     int
		want      state
	}{
		{"default watermark is half", 4, 0, RingBufferWritable, state{8192, false, false, 16384}},
		{"wakeup_watermark kept", 4, 100, RingBufferWritable, state{100, false, false, 16384}},
		{"wakeup_watermark capped at the size", 1, 1 << 20, RingBufferWritable, state{4096, false, false, 4096}},
		{"read-only mapping overwrites", 1, 0, 0, state{2048, true, false, 4096}},
		{"no data pages: paused for good", 0, 0, RingBufferWritable, state{0, false, true, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rb := mustBuffer(tc.pages, tc.watermark, tc.flags)
			got := state{rb.Watermark, rb.Overwrite(), rb.Paused(), rb.DataSize()}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, pages := range []int{3, -1, 6} {
		if _, err := NewBuffer(pages, 0, 0); !errors.Is(err, uapi.EINVAL) {
			t.Errorf("NewBuffer(%d) = %v, want EINVAL", pages, err)
		}
	}
}

func TestTogglePaused(t *testing.T) {
	tests := []struct {
		name        string
		pages       int
		pause       bool
		wantPaused  bool
		wantIoctlEr error
	}{
		{"pause", 1, true, true, nil},
		{"resume", 1, false, false, nil},
		{"no pages cannot resume", 0, false, true, uapi.EINVAL},
		{"no pages pause", 0, true, true, uapi.EINVAL},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rb := mustBuffer(tc.pages, 0, RingBufferWritable)
			rb.TogglePaused(tc.pause)
			if rb.Paused() != tc.wantPaused {
				t.Errorf("rb_toggle_paused: paused = %v, want %v", rb.Paused(), tc.wantPaused)
			}
			rb2 := mustBuffer(tc.pages, 0, RingBufferWritable)
			err := rb2.PauseOutput(tc.pause)
			if !errors.Is(err, tc.wantIoctlEr) || rb2.Paused() != tc.wantPaused {
				t.Errorf("PAUSE_OUTPUT(%v) = %v, paused %v; want %v, %v", tc.pause, err, rb2.Paused(), tc.wantIoctlEr, tc.wantPaused)
			}
		})
	}
}

func TestRefcount(t *testing.T) {
	rb := mustBuffer(1, 0, 0)
	if !rb.Get() || rb.Refcount() != 2 {
		t.Fatalf("Get: refcount %d, want 2", rb.Refcount())
	}
	var freed []bool
	for i := 0; i < 2; i++ {
		f, err := rb.Put()
		if err != nil {
			t.Fatal(err)
		}
		freed = append(freed, f)
	}
	if diff := cmp.Diff([]bool{false, true}, freed); diff != "" {
		t.Errorf("freed (-want +got):\n%s", diff)
	}
	if rb.Get() {
		t.Error("ring_buffer_get on a dead buffer succeeded")
	}
	_, err := rb.Put()
	var oops *Oops
	if !errors.As(err, &oops) || oops.Func != "ring_buffer_put" {
		t.Errorf("Put below zero = %v, want an oops in ring_buffer_put", err)
	}
	var nilRB *Buffer
	if nilRB.Get() {
		t.Error("Get on a NULL rb succeeded")
	}
	if _, err := nilRB.Put(); !errors.As(err, &oops) {
		t.Errorf("Put on NULL = %v, want an oops", err)
	}
}
