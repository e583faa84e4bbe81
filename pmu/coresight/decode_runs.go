package coresight

// unitRun is n units of one stream side by side in a buffer, one after
// another in one run of the Ledger (Seq and Index ascending by one): Unit is
// the first. With n > 1 the run is Known and HasTS: TS is the first
// timestamped unit's, lastTS the last's (ascending); a unit without a
// timestamp inside the run (a synchronisation, decode_take.go's takeUnits)
// is the one its neighbours' identities give it. The Analyzer counts a run
// at once instead of unit by unit. A barrier or zero run is n such slots.
type unitRun struct {
	Unit
	n      uint64
	lastTS uint64
}

// last is the identity of the run's last unit.
func (r *unitRun) last() Frame {
	f := r.Frame
	f.Index += uint32(r.n - 1)
	f.Seq += r.n - 1
	return f
}

// continuedBy reports whether u, a data unit whose identity the ledger
// resolved, is the next unit of run p: the same CPU and period, the next
// sequence number and index, a later timestamp.
func (p *unitRun) continuedBy(u *Unit) bool {
	return p.Known && p.HasTS && p.Kind == KindData && p.CPU == u.CPU && u.TS > p.lastTS &&
		p.Frame.CPU == u.Frame.CPU && p.Frame.Period == u.Frame.Period &&
		u.Frame.Seq == p.Frame.Seq+p.n && u.Frame.Index == p.Frame.Index+uint32(p.n)
}

// frameReader is what decodeRunsOf reads a chunk's 16-byte frames from: its
// bytes (byteFrames) or the AUX area's descriptions of them (pieceFrames,
// decode_pieces.go).
type frameReader interface {
	// unit is decodeUnit of the frame at byte off.
	unit(dec *Decoder, bufCPU int, off uint64) Unit
	// plain is plainFormatted of the frame at byte off.
	plain(off uint64) (id byte, ts uint64, ok bool)
	// stretch is how many frames from byte off on extendRun would take,
	// one by one, into run p, whose last unit is unit h.k of Ledger run lr
	// (at most max): 0 when the reader cannot tell without reading them one
	// by one.
	stretch(p *unitRun, lr *ledgerRun, h *ledgerHint, off, max uint64) uint64
	// take appends the runs the frames from byte off decode to when it can
	// tell them without decoding each (decodeRunsOf's result over them is
	// the same), returning the offset of the last frame taken; ok false:
	// nothing taken.
	take(dec *Decoder, bufCPU int, off, total uint64, runs []unitRun) (_ []unitRun, last uint64, ok bool)
}

// byteFrames is a chunk's bytes as a frameReader.
type byteFrames []byte

func (b byteFrames) unit(dec *Decoder, bufCPU int, off uint64) Unit {
	return dec.decodeUnit(bufCPU, b[off:off+FrameSize])
}

func (b byteFrames) plain(off uint64) (byte, uint64, bool) {
	return plainFormatted((*[FrameSize]byte)(b[off : off+FrameSize]))
}

func (byteFrames) stretch(*unitRun, *ledgerRun, *ledgerHint, uint64, uint64) uint64 { return 0 }

func (byteFrames) take(_ *Decoder, _ int, _, _ uint64, runs []unitRun) ([]unitRun, uint64, bool) {
	return runs, 0, false
}

// decodeRuns is Decode grouping the units into runs: the same units, the
// same identities (the same Resolve calls in the same order, the same
// inference from neighbours). The slice is the decoder's until the next
// call.
func (dec *Decoder) decodeRuns(bufCPU int, data []byte) []unitRun {
	return decodeRunsOf(dec, bufCPU, byteFrames(data), uint64(len(data)))
}

// decodeRunsOf is decodeRuns of the total bytes r reads.
func decodeRunsOf[R frameReader](dec *Decoder, bufCPU int, r R, total uint64) []unitRun {
	runs := dec.runs[:0]
	for off := uint64(0); off+FrameSize <= total; off += FrameSize {
		if dec.L != nil {
			var last uint64
			var ok bool
			if runs, last, ok = r.take(dec, bufCPU, off, total, runs); ok {
				off = last
				continue
			}
		}
		u := r.unit(dec, bufCPU, off)
		dec.oneByOne++
		if dec.L != nil && u.Kind == KindData && u.HasTS {
			u.Frame, u.Known = dec.L.Resolve(u.CPU, u.TS)
			if n := len(runs); u.Known && n > 0 {
				p := &runs[n-1]
				if p.continuedBy(&u) {
					p.n++
					p.lastTS = u.TS
					off = extendRun(dec, p, r, off, total)
					continue
				}
			}
		}
		runs = append(runs, unitRun{Unit: u, n: 1, lastTS: u.TS})
		if u.Known && u.HasTS && u.Kind == KindData {
			off = extendRun(dec, &runs[len(runs)-1], r, off, total)
		}
	}
	if dec.L != nil {
		dec.inferRuns(runs)
	}
	dec.runs = runs
	return runs
}

// inferRuns gives each unit without an identity (a run of one) that of its
// neighbour in the same CPU's stream, with no barrier between: the one
// before the nearest unit of its stream after it (the first of that run),
// else the one after the nearest before it (the last of that run). It
// looks only around those units; a neighbour farther than inferScan runs
// leaves the chunk to inferRunsFull.
func (dec *Decoder) inferRuns(runs []unitRun) {
	unknown := dec.unknown[:0]
	for i := range runs {
		if u := &runs[i]; u.Kind == KindData && !u.Known && u.CPU+1 <= dec.CPUs {
			unknown = append(unknown, i)
		}
	}
	dec.unknown = unknown
	if len(unknown) == 0 {
		return
	}
	// the neighbouring run of the same stream after (next) and before
	// (prev) each unknown unit, -1 none; a neighbour farther than inferScan
	// runs is found by walking all the runs instead
	dec.next, dec.prev = dec.next[:0], dec.prev[:0]
	near := true
	for _, i := range unknown {
		next, ok1 := runNeighbour(runs, i, +1)
		prev, ok2 := runNeighbour(runs, i, -1)
		if !ok1 || !ok2 {
			near = false
			break
		}
		dec.next, dec.prev = append(dec.next, next), append(dec.prev, prev)
	}
	if !near {
		dec.inferRunsFull(runs)
		return
	}
	for x := len(unknown) - 1; x >= 0; x-- {
		u := &runs[unknown[x]]
		if j := dec.next[x]; !u.Known && j >= 0 && runs[j].Known {
			u.Frame, u.Known = dec.L.Step(runs[j].Frame, -1)
		}
	}
	for x, i := range unknown {
		u := &runs[i]
		if j := dec.prev[x]; !u.Known && j >= 0 && runs[j].Known {
			u.Frame, u.Known = dec.L.Step(runs[j].last(), +1)
		}
	}
}

// runNeighbour is the index of the nearest run of runs[i]'s stream in
// direction delta (-1: a barrier or the end first), false when it is
// farther than inferScan runs.
func runNeighbour(runs []unitRun, i, delta int) (int, bool) {
	cpu := runs[i].CPU
	for k, n := i+delta, 0; k >= 0 && k < len(runs); k, n = k+delta, n+1 {
		if n == inferScan {
			return 0, false
		}
		switch v := &runs[k]; {
		case v.Kind == KindBarrier:
			return -1, true
		case v.Kind == KindData && v.CPU == cpu:
			return k, true
		}
	}
	return -1, true
}

// inferRunsFull gives each unit without an identity that of its neighbour,
// walking all the runs backwards, then forwards (inferRuns when a neighbour
// is farther than inferScan runs).
func (dec *Decoder) inferRunsFull(runs []unitRun) {
	if len(dec.near) != dec.CPUs+1 {
		dec.near = make([]int, dec.CPUs+1)
	}
	walk := func(i, delta int) {
		u := &runs[i]
		if u.Kind == KindBarrier {
			dec.resetNear()
			return
		}
		if u.Kind != KindData || u.CPU+1 >= len(dec.near) {
			return
		}
		if j := dec.near[u.CPU+1]; !u.Known && j >= 0 && runs[j].Known {
			f := runs[j].Frame
			if delta > 0 {
				f = runs[j].last()
			}
			u.Frame, u.Known = dec.L.Step(f, delta)
		}
		dec.near[u.CPU+1] = i
	}
	dec.resetNear()
	for i := len(runs) - 1; i >= 0; i-- {
		walk(i, -1)
	}
	dec.resetNear()
	for i := range runs {
		walk(i, +1)
	}
}

// extendRun takes the formatted frames after the one at off into run p
// while each is the plain timestamp frame of p's ETM whose timestamp is the
// next unit's of the Ledger run Resolve just placed p's last unit in: what
// decodeUnit, Resolve (its hint) and decodeRunsOf's test would find, without
// building the units. It returns the offset of the last frame taken.
func extendRun[R frameReader](dec *Decoder, p *unitRun, r R, off, total uint64) uint64 {
	if dec.L.raw || p.CPU < 0 || p.CPU >= len(dec.L.hint) || p.Frame.CPU != p.CPU {
		return off
	}
	h := &dec.L.hint[p.CPU]
	if h.run < 0 || dec.L.cpus[p.CPU][h.run].frame(p.CPU, h.k) != p.last() {
		return off
	}
	lr := &dec.L.cpus[p.CPU][h.run]
	id := traceID(p.CPU)
	for off+2*FrameSize <= total && h.k+1 < h.n {
		next := off + FrameSize
		if m := r.stretch(p, lr, h, next, min(h.n-1-h.k, (total-next)/FrameSize)); m > 0 {
			// the frames' timestamps are h.nextTS() on, ascending
			h.tsStep = newTSStep(lr.since, lr.until, lr.n, h.k+m)
			p.n += m
			p.lastTS = h.ts
			off += m * FrameSize
			continue
		}
		fid, ts, ok := r.plain(next)
		if !ok || fid != id || ts != h.nextTS() || ts <= p.lastTS {
			break
		}
		h.next()
		p.n++
		p.lastTS = ts
		off = next
	}
	return off
}
