package sched

import (
	"testing"

	"perfsim/cpu"
	"perfsim/sim"
)

func TestSmoke(t *testing.T) {
	m := cpu.NewMachine(cpu.Config{CPUs: 2}, sim.NewRandom(1))
	defer m.Close()
	m.Trace().Keep = true
	s := New(m, DefaultConfig())
	a := s.Spawn("a", 0, Loop(3, Compute(5*sim.Millisecond), Syscall("close")))
	b := s.Spawn("b", 0, Compute(2*sim.Millisecond), Migrate(1), Compute(3*sim.Millisecond), Sleep(1*sim.Millisecond), Compute(1*sim.Millisecond))
	c := s.Spawn("c", MaskOf(0), Compute(7*sim.Millisecond))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	t.Log(m.Trace().Text())
	for _, x := range []*Task{a, b, c} {
		if x.State != Dead {
			t.Errorf("%s not dead", x)
		}
		t.Logf("%s computed %s exited %s ran %s", x, x.Computed, x.Exited, x.Ran)
	}
}
