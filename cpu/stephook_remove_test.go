package cpu

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// TestRemovableStepHook: a hook that removes itself at its first call is
// not called again, while the step point under way still calls the hook
// after it; removing twice does nothing; once no hook is left a CPU's
// step points take the fast path again (attn false).
func TestRemovableStepHook(t *testing.T) {
	m := NewMachine(Config{CPUs: 1}, sim.NewRandom(1))
	defer m.Close()
	var got []string
	var remove func()
	remove = m.AddRemovableStepHook(func(c *CPU, label string) {
		got = append(got, "first "+label)
		remove()
		remove() // a second removal finds nothing
	})
	removeSecond := m.AddRemovableStepHook(func(c *CPU, label string) { got = append(got, "second "+label) })
	th := m.NewThread("t", func(th *Thread) {
		th.Step("a")
		th.Step("b")
		removeSecond()
		if th.CPU().attn {
			t.Errorf("attn still set with no hook left")
		}
		th.Step("c")
		for {
			th.Idle()
		}
	})
	m.CPUs[0].Start(th)
	if err := m.Run(sim.Microsecond); err != nil {
		t.Fatal(err)
	}
	want := []string{"first a", "second a", "second b"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("hook calls (-want +got):\n%s", d)
	}
}
