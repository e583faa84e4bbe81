package cpu

import "slices"

// AddRemovableStepHook installs h as AddStepHook does and returns the
// function that removes it again. A hook that has nothing left to do (every
// forced interleaving fired) removes itself, so the step points of the rest of
// the run take Step's fast path: a hook installed makes every step point on
// every CPU a slow one. Removing is safe from inside h: the step point under
// way still calls the hooks it started with.
func (m *Machine) AddRemovableStepHook(h StepHook) (remove func()) {
	m.stepNext++
	id := m.stepNext
	m.AddStepHook(h)
	m.stepIDs[len(m.stepIDs)-1] = id
	return func() {
		i := slices.Index(m.stepIDs, id)
		if i < 0 {
			return
		}
		// New slices, not a deletion in place: a range over the old ones
		// (stepSlow calling the hooks) goes on unchanged.
		m.stepHooks = slices.Delete(slices.Clone(m.stepHooks), i, i+1)
		m.stepIDs = slices.Delete(slices.Clone(m.stepIDs), i, i+1)
		for _, c := range m.CPUs {
			c.updateAttn()
		}
	}
}
