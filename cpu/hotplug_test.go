package cpu

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// TestSetOnlineMigratesTimers: cpu1 goes offline at 100ns with two timers
// armed there (due at 300 and 500) and one disarmed; the armed ones fire on
// cpu0 at their times, the disarmed one stays unarmed; an irq raised to the
// offline cpu1 is dropped; back online, a timer armed on it fires there.
func TestSetOnlineMigratesTimers(t *testing.T) {
	var fired []string
	m := NewMachine(Config{CPUs: 2}, nil)
	defer m.Close()
	for _, c := range m.CPUs {
		c.Start(m.NewThread("idle", func(th *Thread) {
			for {
				th.Idle()
			}
		}))
	}
	c0, c1 := m.CPUs[0], m.CPUs[1]
	rec := func(name string) Interrupt {
		return Interrupt{Name: name, Fn: func(c *CPU) { fired = append(fired, name+"@cpu"+string(rune('0'+c.ID))+"@"+c.Now().String()) }}
	}
	a := c1.NewTimer(false, rec("a"))
	b := c1.NewTimer(true, rec("b"))
	idle := c1.NewTimer(false, rec("idle"))
	a.Arm(300)
	b.Arm(500)
	off := c0.NewTimer(false, Interrupt{Name: "down", Fn: func(*CPU) {
		c1.SetOnline(false, c0)
		c1.RaiseIRQ(rec("ipi-to-dead"))
	}})
	off.Arm(100)
	up := c0.NewTimer(false, Interrupt{Name: "up", Fn: func(*CPU) {
		c1.SetOnline(true, nil)
		c1.NewTimer(false, rec("after")).Arm(800)
	}})
	up.Arm(700)
	if err := m.Run(sim.Time(1000)); err != nil {
		t.Fatal(err)
	}
	want := []string{"a@cpu0@300ns", "b@cpu0@500ns", "after@cpu1@800ns"}
	if d := cmp.Diff(want, fired); d != "" {
		t.Errorf("fired (-want +got):\n%s", d)
	}
	if ok, _ := idle.Armed(); ok || idle.CPU() != c0 || a.CPU() != c0 || !c1.Online() {
		t.Errorf("idle armed %v on cpu%d, a on cpu%d, cpu1 online %v", ok, idle.CPU().ID, a.CPU().ID, c1.Online())
	}
}
