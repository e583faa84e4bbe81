package sim

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

func TestTokenRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := rapid.SliceOf(rapid.IntRange(0, 300)).Draw(t, "decisions")
		// Mostly zeros, as real schedules are.
		for i := range d {
			if d[i] > 20 {
				d[i] = 0
			}
		}
		got, err := DecodeToken(EncodeToken(d))
		if err != nil {
			t.Fatal(err)
		}
		for len(d) > 0 && d[len(d)-1] == 0 {
			d = d[:len(d)-1] // the token ends at the last non-zero decision
		}
		if len(d) == 0 {
			d = nil
		}
		if diff := cmp.Diff(d, got); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
	})
}

// TestTokenTrailingZeros: a list and the same list with trailing zeros (the
// rest of a run a replay answers with the default) have one token, so a
// shrunk schedule and the run that replays it print the same string.
func TestTokenTrailingZeros(t *testing.T) {
	short := EncodeToken([]int{0, 0, 1, 0, 0, 1})
	long := EncodeToken(append([]int{0, 0, 1, 0, 0, 1}, make([]int, 54)...))
	sparse := EncodeSparseToken([]int{2, 5}, []int{1, 1})
	if d := cmp.Diff([]string{short, short}, []string{long, sparse}); d != "" {
		t.Errorf("tokens of one schedule (-want +got):\n%s", d)
	}
	if got := EncodeToken(make([]int, 40)); got != "s2.ANIC740" {
		t.Errorf("40 default decisions: %q, want the empty list's s2.ANIC740", got)
	}
}

func TestTokenCompact(t *testing.T) {
	d := make([]int, 100000)
	d[500], d[90000] = 2, 1
	tok := EncodeToken(d)
	// 12 bytes of stream, 3 of length and 4 of checksum: 26 characters of base64.
	if len(tok) > 30 {
		t.Errorf("token of 100000 decisions with 2 disturbances is %d bytes: %s", len(tok), tok)
	}
}

func TestTokenErrors(t *testing.T) {
	for _, tc := range []struct{ tok, want string }{
		{"x1.AA", `expected it to start with "s2."`},
		{"s1.!!", "illegal base64"},
		{"s1.AA", "zero run without a count"},
		{"s1.gA", "truncated value"},
		{"s2.!!", "illegal base64"},
		{"s2.", "too short"},
		{"s2.BQAC", "too short"},
		{"s2.BQACBAABAs3jZIN", "illegal base64"},    // the last character changed
		{"s2.BQACBAABAs3jZIQ", "checksum mismatch"}, // likewise
		{"s2.BQACBAABAs3jZI", "illegal base64"},     // the last character cut
		{"s2.BQACBAABAs3jZ", "illegal base64"},
		{"s2.BQACBAAB", "checksum mismatch"},
	} {
		_, err := DecodeToken(tc.tok)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeToken(%q) = %v, want error containing %q", tc.tok, err, tc.want)
		}
	}
}

// TestTokenFormat pins the s2 encoding, and that s1 tokens (written before
// the length and checksum) still decode.
func TestTokenFormat(t *testing.T) {
	for _, tc := range []struct {
		d   []int
		tok string
	}{
		{nil, "s2.ANIC740"},
		{[]int{0, 0, 3, 0, 1}, "s2.BQACBAABAs3jZIM"},
		{[]int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}, "s2.CwAKA5Wj4S0"},
	} {
		if got := EncodeToken(tc.d); got != tc.tok {
			t.Errorf("EncodeToken(%v) = %q, want %q", tc.d, got, tc.tok)
		}
		got, err := DecodeToken(tc.tok)
		if err != nil || !cmp.Equal(got, tc.d, cmpopts.EquateEmpty()) {
			t.Errorf("DecodeToken(%q) = %v, %v; want %v", tc.tok, got, err, tc.d)
		}
	}
	for _, tc := range []struct {
		tok string
		d   []int
	}{
		{"s1.", nil},
		{"s1.AAIEAAEC", []int{0, 0, 3, 0, 1}},
		{"s1.AAoD", []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}},
	} {
		got, err := DecodeToken(tc.tok)
		if err != nil || !cmp.Equal(got, tc.d, cmpopts.EquateEmpty()) {
			t.Errorf("DecodeToken(%q) = %v, %v; want %v", tc.tok, got, err, tc.d)
		}
	}
}

// TestTokenCutShort: every proper prefix of a token is an error, never a
// shorter schedule (s1 tokens had no such check: s1.ABYC cut to s1.ABY
// decoded).
func TestTokenCutShort(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := rapid.SliceOf(rapid.IntRange(0, 40)).Draw(t, "decisions")
		for i := range d {
			if d[i] > 5 {
				d[i] = 0
			}
		}
		tok := EncodeToken(d)
		for n := 0; n < len(tok); n++ {
			if got, err := DecodeToken(tok[:n]); err == nil {
				t.Fatalf("%q, cut to %q, decoded to %v", tok, tok[:n], got)
			}
		}
	})
}

func TestReplayChooser(t *testing.T) {
	r := NewReplay([]int{1, 5, 0})
	got := []int{r.Choose(2, "a"), r.Choose(3, "b"), r.Choose(2, "c"), r.Choose(4, "past end")}
	if diff := cmp.Diff([]int{1, 2, 0, 0}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if r.Mismatches != 1 {
		t.Errorf("Mismatches = %d, want 1", r.Mismatches)
	}
}

func TestRandomDeterministic(t *testing.T) {
	a, b := NewRandom(42), NewRandom(42)
	for i := 0; i < 1000; i++ {
		x, y := a.Choose(7, ""), b.Choose(7, "")
		if x != y || x < 0 || x >= 7 {
			t.Fatalf("step %d: %d vs %d", i, x, y)
		}
	}
}

func TestEventQueueOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q EventQueue
		n := rapid.IntRange(0, 60).Draw(t, "n")
		var timers []*Timer
		for i := 0; i < n; i++ {
			tm := NewTimer("t", nil)
			tm.seq = uint64(i)
			q.Add(tm, Time(rapid.IntRange(0, 10).Draw(t, "when")))
			timers = append(timers, tm)
		}
		for i := 0; i < n/3; i++ {
			q.Remove(timers[rapid.IntRange(0, n-1).Draw(t, "rm")])
		}
		var prev *Timer
		for q.Len() > 0 {
			tm := q.PopDue(Never)
			if prev != nil && (tm.When < prev.When || (tm.When == prev.When && tm.seq < prev.seq)) {
				t.Fatalf("popped %d/%d after %d/%d", tm.When, tm.seq, prev.When, prev.seq)
			}
			prev = tm
		}
	})
}

func TestTimeString(t *testing.T) {
	for _, tc := range []struct {
		t    Time
		want string
	}{{0, "0"}, {5, "5ns"}, {5000, "5us"}, {1500 * Microsecond, "1.5ms"}, {2 * Second, "2s"}, {Never, "never"}} {
		if got := tc.t.String(); got != tc.want {
			t.Errorf("%d.String() = %q, want %q", int64(tc.t), got, tc.want)
		}
	}
	if got := Time(1234567890).Stamp(); got != "1.234567890" {
		t.Errorf("Stamp = %q", got)
	}
}

func TestEngineCrashIsOops(t *testing.T) {
	e := NewEngine(nil)
	l := e.AddLane("cpu0", func() { Crash("NULL pointer dereference at %#x", 0x10) })
	e.SetNext(l, 5)
	err := e.Run(Never)
	o, ok := err.(*Oops)
	if !ok || o.Msg != "NULL pointer dereference at 0x10" || o.Time != 5 || o.Lane != 0 {
		t.Fatalf("Run = %#v", err)
	}
	e2 := NewEngine(nil)
	var p *Lane
	l2 := e2.AddLane("cpu0", func() { _ = p.ID })
	e2.SetNext(l2, 1)
	if err := e2.Run(Never); err == nil || !strings.Contains(err.Error(), "model crash") {
		t.Fatalf("Go runtime panic in model code not reported as oops: %v", err)
	}
}

func TestEngineTieIsAChoice(t *testing.T) {
	var order []int
	rec := &Recorder{Inner: NewRandom(3)}
	e := NewEngine(rec)
	for i := 0; i < 3; i++ {
		i := i
		var l *Lane
		l = e.AddLane("x", func() { order = append(order, i); e.SetNext(l, Never) })
		e.SetNext(l, 10)
	}
	if err := e.Run(Never); err != nil {
		t.Fatal(err)
	}
	if len(order) != 3 || len(rec.Decisions) != 2 {
		t.Fatalf("order %v decisions %v", order, rec.Decisions)
	}
	// Replaying the decisions gives the same order.
	var order2 []int
	e2 := NewEngine(NewReplay(rec.Decisions))
	for i := 0; i < 3; i++ {
		i := i
		var l *Lane
		l = e2.AddLane("x", func() { order2 = append(order2, i); e2.SetNext(l, Never) })
		e2.SetNext(l, 10)
	}
	_ = e2.Run(Never)
	if !cmp.Equal(order, order2) {
		t.Errorf("replay order %v, want %v", order2, order)
	}
}

func TestCoroutineKill(t *testing.T) {
	reached := false
	co := NewCoroutine(func() {
		var c *Coroutine
		_ = c
		for {
			reached = true
			coSelf.Yield()
		}
	})
	coSelf = co
	co.Resume()
	co.Kill()
	if !reached || !co.Done() {
		t.Fatalf("reached %v done %v", reached, co.Done())
	}
}

var coSelf *Coroutine
