package coresight

// unitRun is n units of one stream side by side in a buffer: Unit is the
// first; with n > 1 every one has a full timestamp, Resolve placed them one
// after another in one run of the Ledger (Seq, Index and the timestamps
// ascending) and lastTS is the last one's. The Analyzer counts a run at
// once instead of unit by unit.
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

// decodeRuns is Decode grouping the units into runs: the same units, the
// same identities (the same Resolve calls in the same order, the same
// inference from neighbours). The slice is the decoder's until the next
// call.
func (dec *Decoder) decodeRuns(bufCPU int, data []byte) []unitRun {
	runs := dec.runs[:0]
	for off := 0; off+FrameSize <= len(data); off += FrameSize {
		u := dec.decodeUnit(bufCPU, data[off:off+FrameSize])
		if dec.L != nil && u.Kind == KindData && u.HasTS {
			u.Frame, u.Known = dec.L.Resolve(u.CPU, u.TS)
			if n := len(runs); u.Known && n > 0 {
				p := &runs[n-1]
				if p.continuedBy(&u) {
					p.n++
					p.lastTS = u.TS
					off = dec.extendRun(p, data, off)
					continue
				}
			}
		}
		runs = append(runs, unitRun{Unit: u, n: 1, lastTS: u.TS})
		if u.Known && u.HasTS && u.Kind == KindData {
			off = dec.extendRun(&runs[len(runs)-1], data, off)
		}
	}
	if dec.L != nil {
		dec.inferRuns(runs)
	}
	dec.runs = runs
	return runs
}

// inferRuns is infer over runs: a unit without an identity (a run of one)
// takes it from the nearest unit of its stream after it (the first of that
// run), else before it (the last of that run), with no barrier between.
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

// inferRunsFull is inferFull over runs.
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
// decodeUnit, Resolve (its hint) and decodeRuns's test would find, without
// building the units. It returns the offset of the last frame taken.
func (dec *Decoder) extendRun(p *unitRun, data []byte, off int) int {
	if dec.L.raw || p.CPU < 0 || p.CPU >= len(dec.L.hint) || p.Frame.CPU != p.CPU {
		return off
	}
	h := &dec.L.hint[p.CPU]
	if h.run < 0 || dec.L.cpus[p.CPU][h.run].frame(p.CPU, h.k) != p.last() {
		return off
	}
	id := traceID(p.CPU)
	for off+2*FrameSize <= len(data) && h.k+1 < h.n {
		fid, ts, ok := plainFormatted((*[FrameSize]byte)(data[off+FrameSize : off+2*FrameSize]))
		if !ok || fid != id || ts != h.nextTS() || ts <= p.lastTS {
			break
		}
		h.next()
		p.n++
		p.lastTS = ts
		off += FrameSize
	}
	return off
}
