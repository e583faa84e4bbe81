package cpu

// PerCPU is a per-CPU variable: one T per CPU, reached through the CPU that runs,
// as DEFINE_PER_CPU / this_cpu_ptr do.
type PerCPU[T any] struct{ v []T }

// NewPerCPU allocates a per-CPU variable on m.
func NewPerCPU[T any](m *Machine) *PerCPU[T] { return &PerCPU[T]{v: make([]T, len(m.CPUs))} }

// Get returns c's instance: this_cpu_ptr() / per_cpu_ptr().
func (p *PerCPU[T]) Get(c *CPU) *T { return &p.v[c.ID] }

// Len returns the number of CPUs.
func (p *PerCPU[T]) Len() int { return len(p.v) }

// At returns CPU i's instance.
func (p *PerCPU[T]) At(i int) *T { return &p.v[i] }
