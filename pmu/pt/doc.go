// Package pt models the Intel PT PMU driver (arch/x86/events/intel/pt.c, v6.17;
// the start, stop and marker code read again at linux-next 2026954a57ed,
// 6.19-rc) on the perf core of package pmu and the AUX area of package rb.
//
// The hardware produces trace bytes while tracing is enabled (RTIT_CTL.TraceEn)
// and the CPU runs in a traced mode (attr exclude_user/exclude_kernel), at a
// rate the scenario sets, into the output regions of the AUX area. In full-trace
// mode the driver places an INT marker at the wakeup boundary and a STOP marker
// where the free space ends; reaching one raises the PT PMI (an NMI). In snapshot
// mode (a read-only AUX mapping) the hardware wraps around and there is no PMI.
//
// The trace bytes are Intel PT packets (packet.go, as the SDM vol. 3C
// defines them): each stretch of traced time the model lets the hardware
// write is a PSB+ when due (at enable, then every 2^(11+psb_period) bytes),
// TSC, MODE.Exec, TIP.PGE at the address the task executes at in that mode
// (pmu: TaskIP, a function of the synthetic images, pmu/image.go), then
// iterations of that function's loop (a TNT bit for its conditional branch
// and a TIP for its indirect jump back) between TSC/MTC timing packets, and
// last FUP and TIP.PGD where the loop starts, to the length the rate gives.
// A user address no exec'd image maps gets no iterations (PAD instead: no
// decoder could follow it). perf's own intel_pt decoder walks them through
// the ELF files perftool writes (perf script --symfs DIR --itrace=i0ns);
// Follow (walk.go) is the simulator's decoder, which walks them the same
// way and counts what a torn stream breaks.
//
// An AUX sample (pt_event_snapshot_aux()) copied while the hardware still
// writes (pt-snapshot-stop=pre-d92792a4b26e) is racingCopy: the memcpy reads
// the oldest byte first at copyBytesPerUs while the hardware, from where
// pt_read_offset() found it, overwrites the oldest bytes first at its rate.
// Faster than the copy, it overtakes it and the sample is its output during
// the copy, cut inside a packet at the end (Trace.Cut); perf 6.1's
// intel_pt_find_overlap() starts that sample's decode at its first PSB whose
// TSC is past the previous sample's last PSB+ TSC, and at the cut end
// intel_pt_get_split_packet() finds no next data: "Bad packet"
// (runner TestRealPerfTornAuxSample). Slower, the copy reads only what was
// there before: no tear. No time passes between pt_read_offset() and the
// copy's first read (on hardware a few new bytes could come first; perf
// would decode them only if a whole PSB+ fell among them).
//
// Default behaviour is today's upstream. Knobs select the code before three
// fixes: pt-pause-resume (08c7454ceb94), pt-snapshot-stop (d92792a4b26e),
// pt-wrapped (5b590160d2cf); and one proposed fix: pt-reset-markers.
//
// The STOP and INT markers are placed as pt_buffer_reset_markers() counts
// them, in pages. That count can fall a page short into the region being
// written, putting both markers behind the hardware (TestResetMarkers
// "carry", TestStopMarkerBehindOverwritesUnread, the built-in
// pt-reset-markers-carry): an upstream bug, reported with a proposed patch
// in docs/upstream/pt-reset-markers-carry.md (knob pt-reset-markers=proposed).
//
// IP filtering (addr_filter.go): nr_addr_filters is the "pmu intel_pt
// addr-ranges=N" attribute (CPUID leaf 0x14 subleaf 1 EAX[2:0], 2 by
// default); pt_event_addr_filters_validate() refuses "start" and
// single-address filters and more than N; pt_config() syncs the event's
// ranges (pt_event_addr_filters_sync(), clamped to canonical addresses)
// into RTIT_ADDRn_A/B and ADDRn_CFG. The hardware then writes trace only
// for stretches whose IP is inside a FilterEn range (each stretch is
// bracketed by TIP.PGE and TIP.PGD already) and stops at a TraceStop range
// (RTIT_STATUS.Stopped; the TraceStop packet itself is not written).
// pt.filter-missed is the oracle: trace suppressed where a filter names the
// code.
//
// Not modelled: single-range output; VMX.
package pt
