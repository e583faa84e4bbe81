package rb

// Stepper is the simulated execution context a writer or reader runs in. Step is
// called at every place where the real code can be interrupted (an NMI on this CPU)
// or overlapped (a reader or writer on another CPU) and it matters; label names the
// place as "c_function:what-just-happened". The context may run a nested writer to
// completion inside Step (an NMI on top of the interrupted code) or let another actor
// run. rb never imports the CPU model: the CPU implements this interface.
type Stepper interface {
	Step(label string)
}

// NoSteps is a Stepper where nothing ever interrupts: the undisturbed course.
type NoSteps struct{}

// Step implements Stepper.
func (NoSteps) Step(string) {}

// StepAt calls s.Step unless s is NoSteps: the undisturbed course costs a pointer
// compare instead of an indirect call on the writer's fast path.
func StepAt(s Stepper, label string) {
	if _, quiet := s.(NoSteps); !quiet {
		s.Step(label)
	}
}
