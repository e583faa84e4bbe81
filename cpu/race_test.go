package cpu

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"perfsim/sim"
)

// raceOp is one thing a CPU does at a time in a race script.
type raceOp struct {
	at    sim.Duration // when (from the start of the run)
	cpu   int
	kind  string // "access", "release", "acquire", "ipi" (run handler on target), "irqsave"
	field string
	op    AccessOp
	fn    string
	key   string
	to    int      // ipi: the target CPU
	then  []raceOp // ipi: what the handler does (at, cpu ignored)
	wait  bool     // ipi: the sender waits for the handler's completion (smp_call_function_single)
}

type raceObj struct{}

var theObj = &raceObj{}

// shadowObj is an annotated object that embeds its Shadow; theShadowObj is
// used by every run, so each run's detector finds the last one's cells in it.
type shadowObj struct{ sh Shadow }

var theShadowObj = &shadowObj{}

// runRaceOn runs the script on a machine of n CPUs, each CPU's ops in order
// at their times, with the detector on, the accesses made to obj (theObj or
// theShadowObj) and the keys released and acquired SyncClocks (as locks and
// threads give) or other pointers (looked up in the detector's map), and
// returns the reports' titles and fields.
func runRaceOn(t interface{ Fatal(...any) }, n int, script []raceOp, obj any, syncClocks bool) []string {
	m := NewMachine(Config{CPUs: n}, sim.NewRandom(1))
	defer m.Close()
	d := NewRaceDetector(m)
	d.ShadowOf = func(o any) *Shadow {
		if s, ok := o.(*shadowObj); ok {
			return &s.sh
		}
		return nil
	}
	var got []string
	d.Report = func(r Race) { got = append(got, fmt.Sprintf("%s / %s on %s", r.Funcs[0], r.Funcs[1], r.Field)) }
	keys := map[string]any{}
	key := func(s string) any {
		if keys[s] == nil {
			keys[s] = new(string)
			if syncClocks {
				keys[s] = new(SyncClock)
			}
		}
		return keys[s]
	}
	var do func(c *CPU, th *Thread, o raceOp)
	do = func(c *CPU, th *Thread, o raceOp) {
		switch o.kind {
		case "access":
			c.Access(obj, o.field, o.op, o.fn)
		case "release":
			c.Release(key(o.key))
		case "acquire":
			c.Acquire(key(o.key))
		case "irqsave":
			f := c.LocalIrqSave()
			c.Spend(sim.Nanosecond)
			c.LocalIrqRestore(f)
		case "ipi":
			done := false
			then := o.then
			m.CPUs[o.to].RaiseIRQ(Interrupt{Name: "ipi", Fn: func(rc *CPU) {
				for _, h := range then {
					do(rc, nil, h)
				}
				rc.Release(&done)
				done = true
			}})
			for o.wait && !done {
				th.Spend(10 * sim.Nanosecond)
			}
			if o.wait {
				th.CPU().Acquire(&done)
			}
		}
	}
	for i := 0; i < n; i++ {
		var mine []raceOp
		for _, o := range script {
			if o.cpu == i {
				mine = append(mine, o)
			}
		}
		th := m.NewThread(fmt.Sprintf("t%d", i), func(th *Thread) {
			for _, o := range mine {
				if now := th.CPU().Now(); sim.Time(o.at) > now {
					th.Spend(sim.Time(o.at) - now)
				}
				do(th.CPU(), th, o)
			}
			for {
				th.Idle()
			}
		})
		m.CPUs[i].Start(th)
	}
	if err := m.Run(sim.Never); err != nil {
		t.Fatal(err)
	}
	return got
}

func acc(at sim.Duration, cpu int, field string, op AccessOp, fn string) raceOp {
	return raceOp{at: at, cpu: cpu, kind: "access", field: field, op: op, fn: fn}
}

func rel(at sim.Duration, cpu int, key string) raceOp {
	return raceOp{at: at, cpu: cpu, kind: "release", key: key}
}

func acq(at sim.Duration, cpu int, key string) raceOp {
	return raceOp{at: at, cpu: cpu, kind: "acquire", key: key}
}

const us = sim.Microsecond

func TestRaceHappensBefore(t *testing.T) {
	cases := []struct {
		name   string
		cpus   int
		script []raceOp
		want   []string
	}{
		{"one lock orders the pair", 2, []raceOp{
			acq(1*us, 0, "L"), acc(2*us, 0, "x", PlainRMW, "inc"), rel(3*us, 0, "L"),
			acq(4*us, 1, "L"), acc(5*us, 1, "x", PlainRMW, "dec"), rel(6*us, 1, "L"),
		}, nil},
		{"no lock in common", 2, []raceOp{
			acq(1*us, 0, "L1"), acc(2*us, 0, "x", PlainRMW, "inc"), rel(3*us, 0, "L1"),
			acq(4*us, 1, "L2"), acc(5*us, 1, "x", PlainRMW, "dec"), rel(6*us, 1, "L2"),
		}, []string{"dec / inc on x"}},
		{"the access after the release is not ordered", 2, []raceOp{
			acq(1*us, 0, "L"), rel(2*us, 0, "L"), acc(3*us, 0, "x", PlainRMW, "dec"),
			acq(4*us, 1, "L"), acc(5*us, 1, "x", PlainRMW, "inc"), rel(6*us, 1, "L"),
		}, []string{"dec / inc on x"}},
		{"CPUs past the first word of a cell's filled bits", 20, []raceOp{
			acc(1*us, 17, "x", PlainRMW, "inc"), acq(2*us, 19, "L"), acc(3*us, 3, "x", PlainRead, "peek"),
			acc(4*us, 19, "x", MarkedRead, "peek_once"), acc(5*us, 18, "x", PlainWrite, "set"),
			rel(6*us, 18, "L"), acq(7*us, 17, "L"), acc(8*us, 17, "x", PlainRead, "reread"),
		}, []string{"inc / peek on x", "inc / peek_once on x", "peek / set on x", "inc / set on x"}}, // reread: after set, through L
		{"far apart in time is still a race", 2, []raceOp{
			acc(1*us, 0, "x", PlainRMW, "inc"), acc(500*us, 1, "x", PlainRead, "peek"),
		}, []string{"inc / peek on x"}},
		{"an IPI orders the sender's past before the handler", 2, []raceOp{
			acc(1*us, 0, "x", PlainRMW, "inc"),
			{at: 2 * us, cpu: 0, kind: "ipi", to: 1, then: []raceOp{{kind: "access", field: "x", op: PlainRead, fn: "handler"}}},
		}, nil},
		{"the IPI's completion orders the handler before the waiting sender", 2, []raceOp{
			{at: 1 * us, cpu: 0, kind: "ipi", to: 1, wait: true, then: []raceOp{{kind: "access", field: "x", op: PlainRMW, fn: "handler"}}},
			acc(5*us, 0, "x", PlainRead, "after"),
		}, nil},
		{"without waiting, the handler races the sender's later access", 2, []raceOp{
			{at: 1 * us, cpu: 0, kind: "ipi", to: 1, then: []raceOp{{kind: "access", field: "x", op: PlainRMW, fn: "handler"}}},
			acc(5*us, 0, "x", PlainRead, "after"),
		}, []string{"after / handler on x"}},
		{"local_irq_save orders nothing across CPUs", 2, []raceOp{
			{at: 1 * us, cpu: 0, kind: "irqsave"}, acc(2*us, 0, "x", PlainRMW, "inc"), {at: 3 * us, cpu: 0, kind: "irqsave"},
			{at: 4 * us, cpu: 1, kind: "irqsave"}, acc(5*us, 1, "x", PlainRMW, "dec"),
		}, []string{"dec / inc on x"}},
		{"one CPU, its irq handler included, never races itself", 1, []raceOp{
			acc(1*us, 0, "x", PlainRMW, "inc"),
			{at: 2 * us, cpu: 0, kind: "ipi", to: 0, then: []raceOp{{kind: "access", field: "x", op: PlainRMW, fn: "handler"}}},
		}, nil},
		{"READ_ONCE/WRITE_ONCE pairs are allowed", 2, []raceOp{
			acc(1*us, 0, "x", MarkedWrite, "w"), acc(2*us, 1, "x", MarkedRead, "r"),
		}, nil},
		{"a plain read of a WRITE_ONCE is not", 2, []raceOp{
			acc(1*us, 0, "x", MarkedWrite, "w"), acc(2*us, 1, "x", PlainRead, "r"),
		}, []string{"r / w on x"}},
		{"a plain write is assumed atomic against READ_ONCE", 2, []raceOp{
			acc(1*us, 0, "x", PlainWrite, "w"), acc(2*us, 1, "x", MarkedRead, "r"),
		}, nil},
		{"data_race() is never reported", 2, []raceOp{
			acc(1*us, 0, "x", PlainRMW, "w"), acc(2*us, 1, "x", DataRaceRead, "r"),
		}, nil},
		{"two atomic adds never race", 2, []raceOp{
			acc(1*us, 0, "x", AtomicAdd, "inc"), acc(2*us, 1, "x", AtomicAdd, "add"),
		}, nil},
		{"an atomic add races a plain read", 2, []raceOp{
			acc(1*us, 0, "x", AtomicAdd, "inc"), acc(2*us, 1, "x", PlainRead, "peek"),
		}, []string{"inc / peek on x"}},
		{"two reads never race", 2, []raceOp{
			acc(1*us, 0, "x", PlainRead, "a"), acc(2*us, 1, "x", PlainRead, "b"),
		}, nil},
		{"a lock released by two CPUs: the second's next acquire still gets the first's", 2, []raceOp{
			acc(1*us, 0, "x", PlainRMW, "a"), rel(2*us, 0, "L"),
			rel(3*us, 1, "L"), acq(4*us, 1, "L"), acc(5*us, 1, "x", PlainRMW, "b"),
		}, nil},
		{"a lock taken again by the CPU that released it last", 2, []raceOp{
			acq(1*us, 1, "L"), rel(2*us, 1, "L"), acc(3*us, 0, "x", PlainRMW, "a"),
			acq(4*us, 1, "L"), acc(5*us, 1, "x", PlainRMW, "b"), rel(6*us, 1, "L"),
		}, []string{"a / b on x"}},
		{"ordering is transitive through a third CPU", 3, []raceOp{
			acc(1*us, 0, "x", PlainRMW, "a"), rel(2*us, 0, "L"),
			acq(3*us, 1, "L"), rel(4*us, 1, "M"),
			acq(5*us, 2, "M"), acc(6*us, 2, "x", PlainRMW, "c"),
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, clocks := range []bool{false, true} {
				got := runRaceOn(t, tc.cpus, tc.script, theObj, clocks)
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("reports with SyncClock keys %v (-want +got):\n%s", clocks, diff)
				}
			}
		})
	}
}

// TestRaceProperty: on random scripts of accesses and lock operations on
// several CPUs, a field is reported iff some pair of its accesses is on two
// CPUs, conflicting (a write), not both marked, neither data_race(), and
// unordered by the happens-before a brute force computes (program order per
// CPU and each release to every later acquire of its key, closed
// transitively).
func TestRaceProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		cpus := rapid.IntRange(2, 3).Draw(rt, "cpus")
		n := rapid.IntRange(1, 12).Draw(rt, "n")
		// Up to 8 fields: an object with a Shadow places 6 and finds the
		// others in the detector's map.
		fields := []string{"x", "y", "f2", "f3", "f4", "f5", "f6", "f7"}[:rapid.IntRange(2, 8).Draw(rt, "fields")]
		obj := rapid.SampledFrom([]any{theObj, theShadowObj}).Draw(rt, "obj")
		keys := []string{"K", "L"}
		var script []raceOp
		for i := 0; i < n; i++ {
			at := sim.Duration(i+1) * us // one op per microsecond: a total order in time
			c := rapid.IntRange(0, cpus-1).Draw(rt, "cpu")
			switch rapid.IntRange(0, 3).Draw(rt, "kind") {
			case 0, 1:
				f := rapid.SampledFrom(fields).Draw(rt, "field")
				op := AccessOp(rapid.IntRange(0, int(numAccessOps)-1).Draw(rt, "op"))
				script = append(script, acc(at, c, f, op, fmt.Sprintf("f%d", i)))
			case 2:
				script = append(script, rel(at, c, rapid.SampledFrom(keys).Draw(rt, "key")))
			case 3:
				script = append(script, acq(at, c, rapid.SampledFrom(keys).Draw(rt, "key")))
			}
		}
		// Brute force: hb[i][j] says op i happens before op j.
		hb := make([][]bool, n)
		for i := range hb {
			hb[i] = make([]bool, n)
		}
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				a, b := script[i], script[j]
				if a.cpu == b.cpu || (a.kind == "release" && b.kind == "acquire" && a.key == b.key) {
					hb[i][j] = true
				}
			}
		}
		for k := 0; k < n; k++ {
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					if hb[i][k] && hb[k][j] {
						hb[i][j] = true
					}
				}
			}
		}
		var want []string
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				a, b := script[i], script[j]
				if a.kind != "access" || b.kind != "access" || a.field != b.field || a.cpu == b.cpu || hb[i][j] {
					continue
				}
				if (!a.op.IsWrite() && !b.op.IsWrite()) || (a.op.IsMarked() && b.op.IsMarked()) || a.op.IsIntended() || b.op.IsIntended() {
					continue
				}
				if !slices.Contains(want, a.field) {
					want = append(want, a.field)
				}
			}
		}
		var got []string
		for _, r := range runRaceOn(rt, cpus, script, obj, rapid.Bool().Draw(rt, "syncClocks")) {
			f := r[strings.LastIndex(r, " ")+1:]
			if !slices.Contains(got, f) {
				got = append(got, f)
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if diff := cmp.Diff(want, got); diff != "" {
			rt.Fatalf("fields reported (-want +got):\n%s\nscript: %+v", diff, script)
		}
	})
}

// BenchmarkAccess is the cost of one footprint annotation, with no listener
// (the data-race oracle off) and with the detector on.
func BenchmarkAccess(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			m := NewMachine(Config{CPUs: 2}, sim.NewRandom(1))
			defer m.Close()
			if on {
				NewRaceDetector(m)
			}
			c := m.CPUs[0]
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.Access(theObj, "event->state", PlainRead, "event_sched_out")
			}
		})
	}
}

// TestShadowCopyHasNoCells: a copy of an object that embeds a Shadow is
// another object, with no cells of its own yet, and a Shadow filled in by
// an earlier run's detector holds no cell of this run's.
func TestShadowCopyHasNoCells(t *testing.T) {
	m := NewMachine(Config{CPUs: 2}, sim.NewRandom(1))
	defer m.Close()
	d := NewRaceDetector(m)
	d.ShadowOf = func(o any) *Shadow { return &o.(*shadowObj).sh }
	var got []string
	d.Report = func(r Race) { got = append(got, r.Obj+" "+r.Field) }
	d.Name = func(o any) string {
		if o == theShadowObj {
			return "orig"
		}
		return "copy"
	}
	m.CPUs[0].Access(theShadowObj, "x", PlainRMW, "a")
	cp := *theShadowObj // its Shadow says the cell of x, at the original's address
	m.CPUs[1].Access(&cp, "x", PlainRMW, "b")
	m.CPUs[1].Access(theShadowObj, "x", PlainRMW, "b")
	if diff := cmp.Diff([]string{"orig x"}, got); diff != "" {
		t.Errorf("reports (-want +got):\n%s", diff)
	}
}
