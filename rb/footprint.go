package rb

// Footprints: rb never imports the CPU model, so it annotates the accesses
// its code makes through the Stepper it runs in, when that Stepper hears
// them (the *cpu.CPU of every kernel path does: cpu.CPU.Annotate). The kinds
// are numbered as cpu.AccessOp numbers them (pmu's tests check they agree).

// Accessor is a Stepper that hears footprints.
type Accessor interface {
	// Annotate: the running code touches field of obj (op as cpu.AccessOp
	// numbers it) in the kernel function fn.
	Annotate(obj any, field string, op uint8, fn string)
}

// The access kinds rb annotates, numbered as cpu.AccessOp numbers them.
const (
	OpMarkedRead  uint8 = 2 // READ_ONCE(), local_read()
	OpMarkedWrite uint8 = 3 // WRITE_ONCE(), local_set(), local_cmpxchg(), local_add()
)

// access annotates an access by the code s runs, if s hears them.
func access(s Stepper, obj any, field string, op uint8, fn string) {
	if a, ok := s.(Accessor); ok {
		a.Annotate(obj, field, op, fn)
	}
}
