package explore

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sim"
)

// TestDPORUntil: dpor trusts a fragment declared complete up to a step
// point (cpu.DeclareCompleteUntil) once it ends there, and only then. Two
// CPUs each run until-test:a, write an object, and go on to a step point,
// three times (the whole tree: 3,432 schedules). Writing objects of their
// own and ending at the declared end (until-test:b), the two CPUs are
// independent: one schedule. Ending elsewhere (until-test:c, itself
// declared complete), the writes count as touching everything: 159
// schedules (2,212 while a fragment that ran no code of its own, such as
// until-test:c's here, counted as dependent with every incomplete one:
// porDependent). Writing one shared object, the writes stay dependent: 20
// schedules (and 19 stopped as equivalent) reach the 20 orders of the six
// writes, one each (57 and 14 before). In every case the distinct final
// states (the order of the writes to each object) are the whole tree's.
func TestDPORUntil(t *testing.T) {
	for _, tc := range []struct {
		name, next            string
		shared                bool
		runs, blocked, states int
	}{
		{"declared end, own objects", "until-test:b", false, 1, 0, 1},
		{"another end, own objects", "until-test:c", false, 159, 0, 1},
		{"declared end, one shared object", "until-test:b", true, 20, 19, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var states map[string]bool
			run := func(ch sim.Chooser, attach func(*cpu.Machine)) {
				m := cpu.NewMachine(cpu.Config{CPUs: 2}, ch)
				defer m.Close()
				logs := map[porShapeObj][]int{}
				for i, c := range m.CPUs {
					obj := porShapeObj("own" + string(rune('0'+i)))
					if tc.shared {
						obj = "shared"
					}
					th := m.NewThread("untiler"+string(rune('0'+i)), func(th *cpu.Thread) {
						for range 3 {
							th.Step("until-test:a")
							th.CPU().Access(obj, "x", cpu.PlainWrite, "test")
							logs[obj] = append(logs[obj], i)
							th.Step(tc.next)
						}
						for {
							th.Idle()
						}
					})
					c.Start(th)
				}
				if attach != nil {
					attach(m)
				}
				if err := m.Run(sim.Never); err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				for _, k := range []porShapeObj{"own0", "own1", "shared"} {
					b.WriteString(string(k) + ":")
					for _, v := range logs[k] {
						b.WriteByte(byte('0' + v))
					}
					b.WriteByte(' ')
				}
				states[b.String()] = true
			}
			states = map[string]bool{}
			full, ex := fullWalk(100000, -1, func(ch sim.Chooser) { run(ch, nil) })
			if !ex {
				t.Fatal("whole tree: not walked")
			}
			wantStates := slices.Sorted(maps.Keys(states))
			states = map[string]bool{}
			s, ex, err := porWalk(100000, run)
			if err != nil || !ex {
				t.Fatalf("dpor: exhausted %v, %v", ex, err)
			}
			if d := cmp.Diff(wantStates, slices.Sorted(maps.Keys(states))); d != "" {
				t.Errorf("final states (-whole tree +dpor):\n%s", d)
			}
			got := []int{full, s.Runs - s.Blocked, s.Blocked, len(wantStates)}
			if d := cmp.Diff([]int{3432, tc.runs, tc.blocked, tc.states}, got); d != "" {
				t.Errorf("whole tree, dpor's schedules, stopped as equivalent, final states (-want +got):\n%s", d)
			}
			t.Logf("whole tree %d schedules, dpor %d (+%d blocked), %d final states", full, s.Runs-s.Blocked, s.Blocked, len(wantStates))
		})
	}
}
