// Package perftool is the user-space perf tool as the simulator models it,
// apart from the kernel it drives through system calls:
//
//   - perf record's command line to perf_event_attr (record.go, args.go,
//     events.go, evsel_config.go, config.go, pmus.go), with perf 6.1 and
//     today's tool as a knob (perf-version);
//   - the perf record process of a session: open, mmap, SET_OUTPUT, enable on
//     exec, the push loop and its reads, AUX and snapshot handling
//     (session*.go), and the tool's scenario actions and knobs (actions*.go);
//   - the ring readers of tools/lib/perf/mmap.c (ring_reader.go: forward and
//     overwrite, ring_reader_verify.go) and a head/tail reader modelled on
//     simpleperf's (ring_reader_headtail.go);
//   - what perf script prints (script*.go, fprintf.go) and the perf.data files
//     real perf reads (perfdata*.go), with the tracepoint formats
//     (tracepoints.go, perfdata_tracing.go);
//   - the tool's invariants over what it read (session_*invariant*.go).
//
// It imports the kernel model (pmu, the AUX drivers, rb) and the perf ABI
// (uapi); nothing below it imports it.
package perftool
