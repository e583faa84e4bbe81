// Package rb models the data ring of Linux kernel/events/ring_buffer.c (with the parts
// of kernel/events/internal.h it needs), the record encoding of kernel/events/core.c
// that goes into it, and the user-space readers of tools/lib/perf/mmap.c.
//
// The data area is a real power-of-two []byte; data_head and data_tail are free-running
// as the kernel keeps them and masked on access, and readers parse those bytes. A torn
// or overwritten record is therefore a real parse failure or a wrong record, never a
// flag set by the writer.
//
// Concurrency is modelled by step points: every writer and reader function takes a
// Stepper and calls Step(label) where the real code can be interrupted (by an NMI on
// the same CPU, or overlapped by a reader on another CPU) and it matters. The simulated
// CPU implements Stepper; it may run a nested writer to completion inside a Step. The
// model itself is single-threaded and deterministic.
//
// Default behaviour is today's upstream (post-v6.19). Earlier behaviour is selected by
// the fields of Knobs, each citing the commit it undoes.
//
// The AUX area (rb->aux_*, perf_aux_output_begin/end/skip/flag, PERF_SAMPLE_AUX) is in
// aux*.go.
package rb
