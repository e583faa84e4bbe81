// Package coresight models Arm CoreSight tracing under perf
// (drivers/hwtracing/coresight/): an ETM trace source per CPU
// (coresight-etm4x-core.c), the shared TMC-ETR sink with its own circular
// buffer (coresight-tmc-etr.c), the per-CPU TRBE sink that writes straight into
// the AUX area (coresight-trbe.c), and the perf glue between them and the AUX
// area of the ring buffer (coresight-etm-perf.c: etm_setup_aux,
// etm_event_start, etm_event_stop, etm_event_pause).
//
// Trace bytes are ETMv4 instruction trace (etmv4.go): per period an A-sync,
// trace info and a 64-bit address with context (the task's loop address at
// EL0/EL1, its pid as context id), again every 256 units (TRCSYNCPR 0xC),
// and per 16-byte unit a full timestamp (the 1 GHz counter) and E atoms; the
// ETR stores them in CoreSight formatter frames with the ETM's trace ID
// (formatter.go), the TRBE raw with PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW. The
// Ledger (ledger.go) records what each ETM emitted (period, index, session
// sequence, time), and the Decoder (decode.go) maps a unit's trace ID and
// timestamp back to it, so Analyze can say which periods a snapshot has,
// whether it is contiguous and whether a unit appears twice or out of
// order, from the bytes perf's own decoder (OpenCSD) reads.
//
// The sinks' buffers hold descriptions of their 16-byte slots (frames.go:
// units k0.. of one ETM's run, or barrier packets), and so do the AUX areas
// (the PMU is a pmu.AuxDescriber: rb.Buffer.AuxWriteSource) and perf.data's
// AUXTRACE payloads (perftool/perfdata_lazy.go): the bytes are made only
// when something reads them as bytes (a perf.data file, perf script, a byte
// read of the area). Analyze decodes a described snapshot without making
// its plain units' bytes (decode_pieces.go), a source's units whose
// identities are certain a span at once (decode_take.go), to the same
// report.
//
// PMU (pmu.go) is etm_pmu on a pmu.Kernel: type 9 (perftool's
// TypeCSETM), EXCLUSIVE|ITRACE|AUX_PAUSE, perf_sw_context, no snapshot_aux;
// its Host is the machine's clock, the CPUs' step points and a per-CPU timer
// raising the TRBE interrupt. It registers as "pmu cs_etm sink=etr|trbe
// sink-size=SIZE rate=BYTES_PER_SECOND" with the knobs below, the cs.*
// kernel observables (observables.go), and draws its periods per CPU under
// the machine's --timeline (timeline.go), as seed 004's diagram does. The
// tool side (cs_etm's auxtrace_record callbacks, the cs.snapshot.*
// observables and the cs-snapshot-no-dup-no-reorder invariant) is in
// perftool/session_cs_etm*.go.
//
// The upstream history it models (see knobs.go for the knobs):
//
//   - Leo Yan's "coresight: etm-perf: Correct buffer syncing for snapshot"
//     (RFC 2021-04-28, v1 2021-05-28) made etm_event_stop() skip
//     update_buffer() in snapshot mode unless event->ctx->is_active. Mathieu
//     Poirier objected (a 4 MB AUX buffer behind a 1 MB sink only records
//     1 MB; N:1 topologies), Suzuki doubted it was needed, Denis Nikitin
//     confirmed the tool patch alone fixed the varying size, and Leo dropped it
//     on 2021-06-12. Knob coresight-snapshot-sync=is-active models it.
//   - 2f01c200d440 "perf cs-etm: Remove callback cs_etm_find_snapshot()"
//     (v5.15): before it, the tool's cs_etm_find_snapshot() took the whole AUX
//     buffer (old = head - len) as soon as a buffer had wrapped (head >= len,
//     or non-zero bytes in its last 512), every snapshot thereafter; after it,
//     __auxtrace_mmap__read() takes (head - old) modulo the buffer size,
//     clamped to the snapshot size. That is a tool knob (perftool).
//   - The sinks' snapshot-mode head handling: since 2019 (e45c48a9a4d2's
//     series) the sinks do handle->head += size in snapshot mode. In Sept 2021
//     Suzuki queued Leo's 7be15eef996f "coresight: tmc-etr: Use
//     perf_output_handle::head for AUX ring buffer" (the ETR wrote at
//     etr_perf->head, a copy of handle->head taken in tmc_enable_etr_sink_perf()
//     on every enable; now it writes at handle->head) and ef095e61dc8f
//     "coresight: Update comments for removing cs_etm_find_snapshot()" (comment
//     only). Neither changes what lands where (handle->head cannot move between
//     the sink's enable and its update_buffer() in 2021's driver), so no knob.
//   - v6.16's AUX pause/resume: etm_event_stop(PERF_EF_PAUSE) ->
//     etm_event_pause() updates the buffer of a system sink (abffe22e93d7,
//     0814151bae4b) but not of a per-CPU sink (973f47a9886a), whose own IRQ
//     handler may be committing the same buffer. Knob
//     coresight-pause-percpu-update=update models the version without the skip.
package coresight
