package perftool

// The cs_etm struct auxtrace_record callbacks of `perf record -e cs_etm// -S`
// (tools/perf/arch/arm/util/cs-etm.c), plugged into the session's generic AUX
// path (session_aux.go), and what the snapshots held, decoded with
// coresight.Analyzer for the cs.snapshot.* observables and the
// cs-snapshot-no-dup-no-reorder invariant.
//
// On SIGUSR2 perf runs cs_etm_snapshot_start(): evsel__disable() of the cs_etm
// evsel, an ioctl(PERF_EVENT_IOC_DISABLE) on each of its fds, so the event
// running on a CPU is stopped (etm_event_stop(PERF_EF_UPDATE) with
// ctx->is_active set) and its sink's trace lands in that CPU's AUX buffer.
// The main loop then reads every AUX buffer with __auxtrace_mmap__read(): with
// cs_etm_find_snapshot() first under tool knob cs-etm-find-snapshot=
// pre-2f01c200d440 (it was the find_snapshot callback until 2f01c200d440),
// with the generic arithmetic alone today. cs_etm_snapshot_finish() enables
// the evsel again.

import (
	"fmt"

	"perfsim/pmu/coresight"
	"perfsim/sched"
	"perfsim/uapi"
)

// csEtmMmap is the cs_etm hook's state of one AUX mmap (SessionAuxMmap.Priv):
// cs_etm_recording::wrapped[idx] (in AuxtraceMmap) and the session's
// snapshot log, shared by every mmap of the session.
type csEtmMmap struct {
	mm   AuxtraceMmap
	snap *csEtmSnapshots
}

// csEtmSnapshots is what the session's snapshots held.
type csEtmSnapshots struct {
	start   int                 // len(perf.data) when the current snapshot started, -1 when none
	all     *coresight.Analyzer // nil without a cs_etm PMU
	reports []*coresight.Report // one per snapshot, frames seen before counted as dups
}

// csEtmState returns the hook state of mm, creating the session's on first
// use (every cs_etm mmap of the session shares one log).
func csEtmState(ss *Session, mm *SessionAuxMmap) *csEtmMmap {
	if p, ok := mm.Priv.(*csEtmMmap); ok {
		return p
	}
	snap := csEtmLog(ss)
	if snap == nil {
		snap = &csEtmSnapshots{start: -1}
		if dev := coresight.DeviceOf(ss.K); dev != nil {
			snap.all = dev.NewAnalyzer()
		}
	}
	p := &csEtmMmap{mm: AuxtraceMmap{Idx: mm.Idx, CPU: mm.CPU, Len: mm.Len}, snap: snap}
	mm.Priv = p
	return p
}

// csEtmLog returns the session's snapshot log, or nil before the first snapshot.
func csEtmLog(ss *Session) *csEtmSnapshots {
	for _, mm := range ss.AuxMmaps() {
		if p, ok := mm.Priv.(*csEtmMmap); ok {
			return p.snap
		}
	}
	return nil
}

// csEtmEvselIoctl is evsel__disable() / evsel__enable() of the cs_etm evsel
// (-EINVAL without one).
func csEtmEvselIoctl(ss *Session, t *sched.Task, cmd uint64) error {
	aux := ss.R.auxEvsel()
	if aux < 0 || ss.R.Evsels[aux].PMU != csETM.name {
		return fmt.Errorf("perf record: no cs_etm evsel")
	}
	return ss.evselIoctl(t, aux, cmd)
}

// csEtmSnapshotStart is cs_etm_snapshot_start().
// tools/perf/arch/arm/util/cs-etm.c: cs_etm_snapshot_start()
func csEtmSnapshotStart(ss *Session, t *sched.Task) error {
	for _, mm := range ss.AuxMmaps() {
		if mm.PMU == csETM.name {
			csEtmState(ss, mm).snap.start = ss.Data.size()
		}
	}
	return csEtmEvselIoctl(ss, t, uapi.PERF_EVENT_IOC_DISABLE)
}

// csEtmSnapshotFinish is cs_etm_snapshot_finish(), after the model has
// decoded what this snapshot wrote into perf.data.
// tools/perf/arch/arm/util/cs-etm.c: cs_etm_snapshot_finish()
func csEtmSnapshotFinish(ss *Session, t *sched.Task) error {
	if snap := csEtmLog(ss); snap != nil && snap.all != nil && snap.start >= 0 && snap.start <= ss.Data.size() && ss.Data.Kept() {
		var chunks []coresight.Chunk
		if ps, ok := ss.Data.auxtracePayloads(snap.start); ok {
			for _, p := range ps {
				chunks = append(chunks, coresight.Chunk{CPU: int(int32(p.ev.CPU)), Data: p.data, Pieces: p.pieces})
			}
		} else {
			chunks = auxtraceChunks(ss.Data.bytesFrom(snap.start))
		}
		snap.reports = append(snap.reports, snap.all.Analyze(chunks))
		snap.start = -1
	}
	return csEtmEvselIoctl(ss, t, uapi.PERF_EVENT_IOC_ENABLE)
}

// csEtmFindSnapshot is itr->find_snapshot: cs_etm_find_snapshot() before
// 2f01c200d440, nothing today (the area's bytes are not made).
// tools/perf/arch/arm/util/cs-etm.c: cs_etm_find_snapshot() (removed by 2f01c200d440)
func csEtmFindSnapshot(ss *Session, mm *SessionAuxMmap, data func() []byte, head, old *uint64) error {
	if !ss.KnobIs(ToolKnobFindSnapshot, FindSnapshotPre) {
		return nil
	}
	csEtmState(ss, mm).mm.csEtmFindSnapshot(data(), head, old)
	return nil
}

// auxtraceChunks walks a stretch of perf.data and returns the payload of
// each PERF_RECORD_AUXTRACE in it (other records are skipped).
func auxtraceChunks(b []byte) []coresight.Chunk {
	var out []coresight.Chunk
	for off := 0; off+8 <= len(b); {
		size := int(uint16(b[off+6]) | uint16(b[off+7])<<8)
		if size < 8 {
			break
		}
		ev, ok := ParseAuxtraceEvent(b[off:])
		if !ok {
			off += size
			continue
		}
		end := off + size + int(ev.Size)
		if end > len(b) {
			break
		}
		out = append(out, coresight.Chunk{CPU: int(int32(ev.CPU)), Data: b[off+size : end]})
		off = end
	}
	return out
}

// CSEtmSnapshots returns the decoded snapshots of the session's cs_etm AUX
// buffers, one report per SIGUSR2; a frame an earlier snapshot held counts
// as a duplicate.
func (ss *Session) CSEtmSnapshots() []*coresight.Report {
	if snap := csEtmLog(ss); snap != nil {
		return snap.reports
	}
	return nil
}

// lastCSEtmSnapshot is the report of the latest snapshot (nil before one).
func (ss *Session) lastCSEtmSnapshot() *coresight.Report {
	if r := ss.CSEtmSnapshots(); len(r) > 0 {
		return r[len(r)-1]
	}
	return nil
}

func init() {
	RegisterAuxtraceRecord(csETM.name, AuxtraceRecordOps{
		FindSnapshot:   csEtmFindSnapshot,
		SnapshotStart:  csEtmSnapshotStart,
		SnapshotFinish: csEtmSnapshotFinish,
		// ptr->itr.read_finish = auxtrace_record__read_finish; cs_etm_reference()
		// is rand(): left 0 here, the model stays deterministic.
		ReadFinish: auxReadFinish,
	})
	last := func(get func(r *coresight.Report) int64) func(ss *Session) int64 {
		return func(ss *Session) int64 {
			if r := ss.lastCSEtmSnapshot(); r != nil {
				return get(r)
			}
			return 0
		}
	}
	sum := func(get func(r *coresight.Report) int64) func(ss *Session) int64 {
		return func(ss *Session) int64 {
			var n int64
			for _, r := range ss.CSEtmSnapshots() {
				n += get(r)
			}
			return n
		}
	}
	RegisterSessionObservable("cs.snapshot.bytes", "cs_etm AUX trace bytes the latest -S snapshot wrote into perf.data",
		last(func(r *coresight.Report) int64 { return int64(r.Bytes) }))
	RegisterSessionObservable("cs.snapshot.periods", "periods whose trace the latest snapshot holds: bit p-1 for period p (the p-th etm_event_start)",
		last(func(r *coresight.Report) int64 { return int64(r.Periods) }))
	RegisterSessionObservable("cs.snapshot.contiguous", "1 if the latest snapshot's trace is one unbroken stretch (no frame missing between its first and last)",
		last(func(r *coresight.Report) int64 {
			if r.Contiguous() {
				return 1
			}
			return 0
		}))
	RegisterSessionObservable("cs.snapshot.buffers", "AUX buffers the latest snapshot took trace from",
		last(func(r *coresight.Report) int64 { return int64(len(r.PerCPU)) }))
	RegisterSessionObservable("cs.snapshot.dups", "trace frames written into perf.data a second time, over every snapshot",
		sum(func(r *coresight.Report) int64 { return int64(r.Dups) }))
	RegisterSessionObservable("cs.snapshot.out-of-order", "trace frames not after the previous frame of their AUX buffer's chunk, over every snapshot",
		sum(func(r *coresight.Report) int64 { return int64(r.OutOrder) }))
	RegisterSessionObservable("cs.snapshot.count", "cs_etm snapshots decoded", func(ss *Session) int64 { return int64(len(ss.CSEtmSnapshots())) })
}
