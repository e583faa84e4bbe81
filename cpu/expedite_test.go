package cpu

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// An expedited irq is taken at the next step point where irqs are on, ahead
// of the irqs pending before it; the others wait for their usual delivery.
func TestExpediteIRQ(t *testing.T) {
	var found, missing bool
	m := boot(t, nil, 1, func(th *Thread) {
		c := th.CPU()
		f := c.LocalIrqSave()
		c.RaiseIRQ(Interrupt{Name: "dev", Fn: func(c *CPU) { note(c, "dev handler") }})
		c.RaiseIRQ(Interrupt{Name: "call_function_single", Fn: func(c *CPU) { note(c, "ipi handler") }})
		found = c.ExpediteIRQ("call_function_single")
		missing = !c.ExpediteIRQ("nothing")
		c.Step("irqs-off") // irqs off: not here
		note(c, "irqs on")
		c.irqsOn = f // local_irq_restore without its own delivery
		c.updateAttn()
		c.Step("label")
		note(c, "after label")
		c.Spend(sim.Microsecond)
		note(c, "after spend")
	})
	defer m.Close()
	if err := m.Run(sim.Never); err != nil {
		t.Fatal(err)
	}
	if !found || !missing {
		t.Errorf("ExpediteIRQ: found %v (want true), missing %v (want true)", found, missing)
	}
	want := []string{"note irqs on ", "enter irq call_function_single", "note ipi handler ", "exit irq call_function_single",
		"note after label ", "enter irq dev", "note dev handler ", "exit irq dev", "note after spend "}
	if diff := cmp.Diff(want, kinds(m.Trace().Records)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// A held irq is not taken where irqs are on, nor during a time advance, until
// it is expedited (the force's label); an irq of another name is taken as
// usual meanwhile. Released without expediting, it is delivered as usual.
func TestHoldIRQ(t *testing.T) {
	m := boot(t, nil, 1, func(th *Thread) {
		c := th.CPU()
		c.HoldIRQ("call_function_single")
		c.HoldIRQ("call_function_single") // holds nest
		c.RaiseIRQ(Interrupt{Name: "call_function_single", Fn: func(c *CPU) { note(c, "ipi handler") }})
		c.RaiseIRQ(Interrupt{Name: "dev", Fn: func(c *CPU) { note(c, "dev handler") }})
		c.Step("before")
		c.Spend(sim.Microsecond)
		note(c, "held "+map[bool]string{true: "yes", false: "no"}[c.Held("call_function_single")])
		c.ExpediteIRQ("call_function_single")
		c.ReleaseIRQ("call_function_single")
		c.Step("label")
		note(c, "after label")
		c.RaiseIRQ(Interrupt{Name: "call_function_single", Fn: func(c *CPU) { note(c, "second ipi") }})
		c.Spend(sim.Microsecond) // still held once
		note(c, "still held")
		c.ReleaseIRQ("call_function_single")
		c.Spend(sim.Microsecond)
		note(c, "end")
	})
	defer m.Close()
	if err := m.Run(sim.Never); err != nil {
		t.Fatal(err)
	}
	want := []string{"enter irq dev", "note dev handler ", "exit irq dev", "note held yes ",
		"enter irq call_function_single", "note ipi handler ", "exit irq call_function_single", "note after label ",
		"note still held ", "enter irq call_function_single", "note second ipi ", "exit irq call_function_single", "note end "}
	if diff := cmp.Diff(want, kinds(m.Trace().Records)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
