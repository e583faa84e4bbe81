package rb

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"perfsim/uapi"
)

// auxEv is an AuxEvent that records what the AUX paths asked of it.
type auxEv struct {
	SimpleEvent
	Disabled int
	Records  []Aux
	rb       *Buffer
}

func (e *auxEv) DisableInatomic() { e.Disabled++ }
func (e *auxEv) AuxRecord(s Stepper, head, size, flags uint64) {
	e.Records = append(e.Records, Aux{Offset: head, Size: size, Flags: flags})
	_ = PerfOutputSideband(s, e.rb, e, &Aux{Offset: head, Size: size, Flags: flags}, nil, false)
}

// auxBuffer is a writable 1-page data ring with an nrPages AUX area.
func auxBuffer(t *testing.T, nrPages int, flags int) (*Buffer, *auxEv) {
	t.Helper()
	b := mustBuffer(1, 0, RingBufferWritable)
	ops := &AuxOps{SetupAux: func([]byte, int, bool) any { return "priv" }}
	if err := b.AllocAux(ops, 2, nrPages, 0, flags); err != nil {
		t.Fatal(err)
	}
	b.AuxMmapSet(1)
	return b, &auxEv{rb: b}
}

func TestAllocAuxErrnos(t *testing.T) {
	ok := &AuxOps{SetupAux: func([]byte, int, bool) any { return 1 }}
	fail := &AuxOps{SetupAux: func([]byte, int, bool) any { return nil }}
	for _, tc := range []struct {
		name  string
		ops   *AuxOps
		pages int
		want  error
	}{
		{"no setup_aux", nil, 4, uapi.EOPNOTSUPP},
		{"zero pages", ok, 0, uapi.EINVAL},
		{"negative pages", ok, -1, uapi.EINVAL},
		{"too many pages", ok, 1<<20 + 1, uapi.ENOMEM},
		{"setup_aux fails", fail, 4, uapi.ENOMEM},
		{"ok", ok, 4, nil},
	} {
		b := mustBuffer(1, 0, RingBufferWritable)
		err := b.AllocAux(tc.ops, 2, tc.pages, 0, RingBufferWritable)
		if err != tc.want {
			t.Errorf("%s: AllocAux = %v, want %v", tc.name, err, tc.want)
		}
		if (err == nil) != b.HasAux() {
			t.Errorf("%s: HasAux = %v after %v", tc.name, b.HasAux(), err)
		}
	}
}

func TestAllocAuxWatermark(t *testing.T) {
	type got struct {
		Watermark uint64
		Overwrite bool
		Refcount  int32
		AuxOffset uint64
		AuxSize   uint64
	}
	for _, tc := range []struct {
		flags int
		wm    int64
		want  got
	}{
		{RingBufferWritable, 0, got{8 * PageSize / 2, false, 1, 2 * PageSize, 8 * PageSize}},
		{RingBufferWritable, 1000, got{1000, false, 1, 2 * PageSize, 8 * PageSize}},
		{0, 1000, got{0, true, 1, 2 * PageSize, 8 * PageSize}},
	} {
		b := mustBuffer(1, 0, RingBufferWritable)
		if err := b.AllocAux(&AuxOps{SetupAux: func([]byte, int, bool) any { return 1 }}, 2, 8, tc.wm, tc.flags); err != nil {
			t.Fatal(err)
		}
		g := got{b.AuxWatermark(), b.AuxOverwrite(), b.AuxRefcount(), b.User.AuxOffset, b.User.AuxSize}
		if d := cmp.Diff(tc.want, g); d != "" {
			t.Errorf("flags %d wm %d (-want +got):\n%s", tc.flags, tc.wm, d)
		}
	}
}

func TestAuxOutputBeginRefusals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(b *Buffer)
	}{
		{"aux_mmap_count zero (in perf_mmap_close)", func(b *Buffer) { b.AuxMmapSet(0) }},
		{"aux_refcount zero", func(b *Buffer) { b.aux.refcount = 0 }},
		{"nested (aux_nest)", func(b *Buffer) { b.aux.nest = 1 }},
		{"full: aux_head - aux_tail == size", func(b *Buffer) { b.aux.head = 4 * PageSize }},
	} {
		b, ev := auxBuffer(t, 4, RingBufferWritable)
		tc.setup(b)
		refBefore, auxRefBefore := b.Refcount(), b.AuxRefcount()
		var h AuxHandle
		if p := AuxOutputBegin(NoSteps{}, &h, b, ev); p != nil || h.Event != nil {
			t.Errorf("%s: begin = %v, want nil", tc.name, p)
		}
		if b.Refcount() != refBefore || b.AuxRefcount() != auxRefBefore {
			t.Errorf("%s: refcounts %d/%d, want %d/%d", tc.name, b.Refcount(), b.AuxRefcount(), refBefore, auxRefBefore)
		}
	}
	// The full case disables the event and wakes it.
	b, ev := auxBuffer(t, 4, RingBufferWritable)
	b.aux.head = 4 * PageSize
	var h AuxHandle
	AuxOutputBegin(NoSteps{}, &h, b, ev)
	if ev.Disabled != 1 || ev.Wakeups != 1 || b.AuxNest() != 0 {
		t.Errorf("full: disabled %d wakeups %d nest %d, want 1 1 0", ev.Disabled, ev.Wakeups, b.AuxNest())
	}
	// A buffer without AUX pages.
	plain := mustBuffer(1, 0, RingBufferWritable)
	if AuxOutputBegin(NoSteps{}, &h, plain, ev) != nil || plain.Refcount() != 1 {
		t.Errorf("no AUX area: begin succeeded or leaked a reference")
	}
}

func TestAuxOutputEndRecords(t *testing.T) {
	for _, tc := range []struct {
		name      string
		flags     int    // mapping
		tail      uint64 // user aux_tail
		size      uint64
		setFlags  uint64
		driverPos uint64 // overwrite: handle->head set by the driver
		want      []Aux
		wantHead  uint64
		wantSize  uint64 // handle->size at begin
	}{
		{"commit", RingBufferWritable, 0, 100, 0, 0, []Aux{{0, 100, 0}}, 100, 4*PageSize - 1},
		{"nothing to say", RingBufferWritable, 0, 0, 0, 0, nil, 0, 4*PageSize - 1},
		{"truncated, size 0", RingBufferWritable, 0, 0, uapi.PERF_AUX_FLAG_TRUNCATED, 0, []Aux{{0, 0, uapi.PERF_AUX_FLAG_TRUNCATED}}, 0, 4*PageSize - 1},
		{"partial", RingBufferWritable, 0, 8, uapi.PERF_AUX_FLAG_PARTIAL, 0, []Aux{{0, 8, uapi.PERF_AUX_FLAG_PARTIAL}}, 8, 4*PageSize - 1},
		{"overwrite: only OVERWRITE is not posted", 0, 0, 0, 0, 5000, nil, 5000, 0},
		{"overwrite with size", 0, 0, 5000, 0, 5000, []Aux{{5000, 5000, uapi.PERF_AUX_FLAG_OVERWRITE}}, 5000, 0},
		{"overwrite collision", 0, 0, 0, uapi.PERF_AUX_FLAG_COLLISION, 64, []Aux{{64, 0, uapi.PERF_AUX_FLAG_OVERWRITE | uapi.PERF_AUX_FLAG_COLLISION}}, 64, 0},
	} {
		b, ev := auxBuffer(t, 4, tc.flags)
		b.User.AuxTail = tc.tail
		var h AuxHandle
		if AuxOutputBegin(NoSteps{}, &h, b, ev) == nil {
			t.Fatalf("%s: begin failed", tc.name)
		}
		if h.Size != tc.wantSize {
			t.Errorf("%s: handle->size %d, want %d", tc.name, h.Size, tc.wantSize)
		}
		if b.AuxRefcount() != 2 || b.Refcount() != 2 || b.AuxNest() != 1 {
			t.Errorf("%s: during: aux_refcount %d refcount %d nest %d", tc.name, b.AuxRefcount(), b.Refcount(), b.AuxNest())
		}
		AuxOutputFlag(&h, tc.setFlags)
		h.Head = tc.driverPos
		if err := AuxOutputEnd(NoSteps{}, &h, tc.size); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if d := cmp.Diff(tc.want, ev.Records); d != "" {
			t.Errorf("%s: records (-want +got):\n%s", tc.name, d)
		}
		if b.AuxHead() != tc.wantHead || b.User.AuxHead != tc.wantHead {
			t.Errorf("%s: aux_head %d user %d, want %d", tc.name, b.AuxHead(), b.User.AuxHead, tc.wantHead)
		}
		if b.AuxRefcount() != 1 || b.Refcount() != 1 || b.AuxNest() != 0 || h.Event != nil {
			t.Errorf("%s: after: aux_refcount %d refcount %d nest %d", tc.name, b.AuxRefcount(), b.Refcount(), b.AuxNest())
		}
		// The record is in the data ring as bytes a reader parses.
		if len(tc.want) > 0 {
			d, err := Decode(b.copyOut(0, 32), 0, false)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if diff := cmp.Diff(&tc.want[0], d.Sideband); diff != "" {
				t.Errorf("%s: decoded (-want +got):\n%s", tc.name, diff)
			}
		}
	}
}

func TestAuxOutputFlagRefusesOverwrite(t *testing.T) {
	var h AuxHandle
	if AuxOutputFlag(&h, uapi.PERF_AUX_FLAG_OVERWRITE) || h.AuxFlags != 0 {
		t.Errorf("OVERWRITE accepted: flags %#x", h.AuxFlags)
	}
	if !AuxOutputFlag(&h, uapi.PERF_AUX_FLAG_TRUNCATED|uapi.PERF_AUX_FLAG_PARTIAL) || h.AuxFlags != 5 {
		t.Errorf("flags %#x, want 5", h.AuxFlags)
	}
}

func TestAuxOutputSkip(t *testing.T) {
	b, ev := auxBuffer(t, 4, RingBufferWritable)
	var h AuxHandle
	AuxOutputBegin(NoSteps{}, &h, b, ev)
	if err := AuxOutputSkip(&h, h.Size+1); err != uapi.ENOSPC {
		t.Errorf("skip past room = %v, want ENOSPC", err)
	}
	if err := AuxOutputSkip(&h, 2*PageSize); err != nil {
		t.Fatal(err)
	}
	// 2 pages crosses the watermark (half of 4 pages): a wakeup.
	if b.AuxHead() != 2*PageSize || h.Head != 2*PageSize || ev.Wakeups != 1 || b.AuxWakeup() != 2*PageSize {
		t.Errorf("aux_head %d handle head %d wakeups %d aux_wakeup %d", b.AuxHead(), h.Head, ev.Wakeups, b.AuxWakeup())
	}
}

func TestFreeAuxRefcount(t *testing.T) {
	b, _ := auxBuffer(t, 2, RingBufferWritable)
	freed := 0
	b.aux.freeAux = func(any) { freed++ }
	if err := b.FreeAux(false); err != nil || freed != 1 || b.HasAux() {
		t.Fatalf("last put from the unmap path: err %v freed %d has_aux %v", err, freed, b.HasAux())
	}
	if err := b.FreeAux(false); err == nil {
		t.Errorf("underflow not reported")
	}
	b2, _ := auxBuffer(t, 2, RingBufferWritable)
	if err := b2.FreeAux(true); err == nil {
		t.Errorf("freeing AUX pages in atomic context not reported")
	}
}

func TestOutputCopyAux(t *testing.T) {
	b, ev := auxBuffer(t, 2, RingBufferWritable)
	src := make([]byte, 2*PageSize)
	for i := range src {
		src[i] = byte(i * 7)
	}
	b.AuxWrite(0, src)
	var ah AuxHandle
	AuxOutputBegin(NoSteps{}, &ah, b, ev)
	for _, tc := range []struct{ from, to uint64 }{{0, 100}, {PageSize - 10, PageSize + 30}, {2*PageSize - 8, 2*PageSize + 16}} {
		dst := mustBuffer(4, 0, RingBufferWritable)
		var h Handle
		n := int(tc.to - tc.from)
		if err := OutputBegin(NoSteps{}, &h, dst, nil, ev, (n+7)&^7, false); err != nil {
			t.Fatal(err)
		}
		got, err := OutputCopyAux(NoSteps{}, &ah, &h, tc.from, tc.to)
		if err != nil || got != n {
			t.Fatalf("[%d,%d): copied %d %v", tc.from, tc.to, got, err)
		}
		if d := cmp.Diff(b.AuxCopyOut(tc.from, n), dst.pages()[:n]); d != "" {
			t.Errorf("[%d,%d) (-want +got):\n%s", tc.from, tc.to, d)
		}
	}
}

// Property: whatever the driver commits, aux_head only grows by what was
// committed, the references balance, and every posted record's range starts at
// the previous aux_head.
func TestAuxCommitProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		b := mustBuffer(4, 0, RingBufferWritable)
		if err := b.AllocAux(&AuxOps{SetupAux: func([]byte, int, bool) any { return 1 }}, 5, 4, 0, RingBufferWritable); err != nil {
			rt.Fatal(err)
		}
		b.AuxMmapSet(1)
		ev := &auxEv{rb: b}
		var want uint64
		for i := rapid.IntRange(1, 20).Draw(rt, "n"); i > 0; i-- {
			b.User.AuxTail = rapid.Uint64Range(b.AuxHead()-min(b.AuxHead(), 4*PageSize), b.AuxHead()).Draw(rt, "tail")
			var h AuxHandle
			if AuxOutputBegin(NoSteps{}, &h, b, ev) == nil {
				if b.AuxHead()-b.User.AuxTail < 4*PageSize-1 {
					rt.Fatalf("begin refused with room: head %d tail %d", b.AuxHead(), b.User.AuxTail)
				}
				continue
			}
			size := rapid.Uint64Range(0, h.Size).Draw(rt, "size")
			before := b.AuxHead()
			if err := AuxOutputEnd(NoSteps{}, &h, size); err != nil {
				rt.Fatal(err)
			}
			want += size
			if b.AuxHead() != before+size {
				rt.Fatalf("aux_head %d, want %d", b.AuxHead(), before+size)
			}
			if size > 0 && ev.Records[len(ev.Records)-1].Offset != before {
				rt.Fatalf("record offset %d, want %d", ev.Records[len(ev.Records)-1].Offset, before)
			}
		}
		if b.AuxHead() != want || b.AuxRefcount() != 1 || b.Refcount() != 1 {
			rt.Fatalf("aux_head %d want %d; refcounts %d %d", b.AuxHead(), want, b.AuxRefcount(), b.Refcount())
		}
	})
}

func TestSampleAuxRoundTrip(t *testing.T) {
	s := &Sample{Type: uapi.PERF_SAMPLE_IP | uapi.PERF_SAMPLE_AUX, IP: 0x1234, AuxSize: 16, Aux: []byte("0123456789")}
	b, err := AppendSample(nil, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 8+8+8+16 {
		t.Fatalf("size %d", len(b))
	}
	got, err := DecodeSample(b, s.Type)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]byte("0123456789"), 0, 0, 0, 0, 0, 0)
	if d := cmp.Diff(want, got.Aux); d != "" || got.AuxSize != 16 {
		t.Errorf("aux (-want +got):\n%s size %d", d, got.AuxSize)
	}
	// Written through a handle the same bytes come out.
	rbuf := mustBuffer(1, 0, RingBufferWritable)
	if err := PerfEventOutput(NoSteps{}, rbuf, &SimpleEvent{}, s, false); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(b, rbuf.pages()[:len(b)]); d != "" {
		t.Errorf("handle bytes (-want +got):\n%s", d)
	}
}
