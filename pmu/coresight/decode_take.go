package coresight

import "sort"

// Taking described units at once. Decoding a source's units frame by frame
// (decodeRunsOf) resolves each plain unit's timestamp in the Ledger, takes
// the following plain units of the same Ledger run into its run
// (extendRun), and leaves each synchronisation unit (A-sync and trace info,
// address and context: no timestamp) to inferRuns, which gives it the
// identity of the next unit of its stream (backwards first). takeUnits
// works that out from the description alone when the outcome is certain:
//
//   - the Ledger holds the source as one run (same Seq, length, times) and
//     every run of that ETM has distinct timestamps in a time range of its
//     own (Ledger.distinct): Resolve maps each plain unit's timestamp to
//     exactly that unit, whatever its hint;
//   - the frames decode to that ETM's stream: formatted with its trace ID,
//     or raw in that CPU's own buffer; the synchronisation units decode to
//     data units without a timestamp (checked on their bytes, once per
//     shape: syncUnit);
//   - a synchronisation unit is taken only when a plain unit of the same
//     span follows it, so inferRuns would give it its own identity from
//     that neighbour (no barrier can be between).
//
// The units are then one run of consecutive Seqs, which the Analyzer counts
// as it counts the runs frame-by-frame decoding gives (a run's units are
// counted alike whichever run holds them), and the Ledger's hint is left
// where frame-by-frame decoding leaves it: at the last plain unit.

// takeUnits takes units k.. (k = s.fs.k0+j, m whole frames of span s from
// byte off) up to the last plain one, as one run; ok false: the frames
// need decoding one by one.
func (dec *Decoder) takeUnits(bufCPU int, r *pieceReader, s *span, j, off, m uint64, runs []unitRun) ([]unitRun, uint64, bool) {
	ri, ok := dec.ledgerRunOf(bufCPU, s)
	if !ok {
		return runs, 0, false
	}
	src := s.fs.src
	k := s.fs.k0 + j
	if k >= src.n {
		return runs, 0, false
	}
	end := min(k+m, src.n) // units k..end-1
	kp := end - 1          // the last plain unit
	for !src.plain(kp) {
		if kp == k {
			return runs, 0, false
		}
		kp--
	}
	cpu := src.cpu
	for class := range 2 {
		if ku, ok := src.firstSync(k, kp, class); ok {
			if u := dec.syncUnit(bufCPU, r, off+(ku-k)*FrameSize, s, ku); u.Kind != KindData || u.HasTS || u.CPU != cpu {
				return runs, 0, false
			}
		}
	}
	kf := k // the first plain unit
	for !src.plain(kf) {
		kf++
	}
	lr := &dec.L.cpus[cpu][ri]
	runs = append(runs, unitRun{
		Unit: Unit{Kind: KindData, CPU: cpu, TS: src.tsAt(kf), HasTS: true, Frame: lr.frame(cpu, k), Known: true},
		n:    kp - k + 1, lastTS: src.tsAt(kp)})
	dec.L.hint[cpu] = ledgerHint{run: ri, tsStep: newTSStep(lr.since, lr.until, lr.n, kp)}
	dec.L.last[cpu] = ri
	dec.takenUnits += kp - k + 1
	return runs, off + (kp-k)*FrameSize, true
}

// ledgerRunOf is the index of the Ledger run of span s's source when
// takeUnits may take its units (the conditions above), remembered in the
// span.
func (dec *Decoder) ledgerRunOf(bufCPU int, s *span) (int, bool) {
	if s.run == 0 {
		s.run = -1
		if ri, ok := dec.findLedgerRun(bufCPU, s); ok {
			s.run = ri + 1
		}
	}
	return s.run - 1, s.run > 0
}

func (dec *Decoder) findLedgerRun(bufCPU int, s *span) (int, bool) {
	src, l := s.fs.src, dec.L
	cpu := src.cpu
	if s.fs.kind != pieceUnits || s.fs.raw != l.raw || !src.cfg.ts || src.until > tsMask ||
		cpu < 0 || cpu >= dec.CPUs || cpu >= len(l.cpus) || !l.distinct[cpu] {
		return 0, false
	}
	if l.raw && bufCPU != cpu || !l.raw && (traceID(cpu) >= 0x7f || cpuOfTraceID(traceID(cpu), dec.CPUs) != cpu) {
		return 0, false
	}
	runs := l.cpus[cpu]
	ri := sort.Search(len(runs), func(i int) bool { return runs[i].seq+runs[i].n > src.seq })
	if ri == len(runs) {
		return 0, false
	}
	lr := &runs[ri]
	return ri, lr.seq == src.seq && lr.n == src.n && lr.since == src.since && lr.until == src.until
}

// firstSync is the first of units lo..hi of unitKeyOf's class (0: A-sync
// and trace info, 1: address and context), false none.
func (s *unitSrc) firstSync(lo, hi uint64, class int) (uint64, bool) {
	if class == 1 && lo == 0 && s.ctxFirst && uint64(s.index)%unitsPerSync != 0 {
		return 0, true
	}
	k := lo + (unitsPerSync+uint64(class)-(uint64(s.index)+lo)%unitsPerSync)%unitsPerSync
	return k, k <= hi
}
