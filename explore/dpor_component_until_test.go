package explore

import (
	"testing"

	"perfsim/cpu"
	"perfsim/sim"
)

func init() {
	cpu.DeclareCompleteUntil("until-test:a", "until-test:b")
	cpu.DeclareComplete("start:untiler0", "start:untiler1", "until-test:b", "until-test:c")
}

// TestCompWalkUntil: a fragment declared complete up to a step point
// (cpu.DeclareCompleteUntil) is trusted when it ends there, and the
// component-wise walk refuses a run in which it ends at another one, saying
// where.
func TestCompWalkUntil(t *testing.T) {
	for _, tc := range []struct {
		next, refused string
	}{
		{"until-test:b", ""},
		{"until-test:c", "fragment until-test:a ended at until-test:c, not at one of its declared ends [until-test:b] (cpu.DeclareCompleteUntil)"},
	} {
		run := func(ch sim.Chooser, attach func(*cpu.Machine)) {
			m := cpu.NewMachine(cpu.Config{CPUs: 2}, ch)
			defer m.Close()
			for i, c := range m.CPUs {
				obj := porShapeObj("own" + string(rune('0'+i)))
				th := m.NewThread("untiler"+string(rune('0'+i)), func(th *cpu.Thread) {
					th.Step("until-test:a")
					th.CPU().Access(obj, "x", cpu.PlainWrite, "test")
					th.Step(tc.next)
					for {
						th.Idle()
					}
				})
				c.Start(th)
			}
			attach(m)
			if err := m.Run(sim.Never); err != nil {
				t.Fatal(err)
			}
		}
		s, complete := compWalk(10, run)
		if s.Refused != tc.refused || complete != (tc.refused == "") {
			t.Errorf("next %s: complete %v, refused %q; want refused %q", tc.next, complete, s.Refused, tc.refused)
		}
	}
}
