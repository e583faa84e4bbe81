package coresight

// Unit is one decoded 16-byte slot of an AUX buffer.
type Unit struct {
	CPU   int    // the ETM whose trace it is (-1: unknown)
	TS    uint64 // its timestamp (HasTS)
	Frame Frame  // which unit of the session's trace it is (Known)
	Kind  FrameKind
	HasTS bool
	Known bool
}

// Decoder turns AUX trace back into units: it deformats (ETR) or takes the
// buffer's CPU (TRBE), parses each unit's ETMv4 packets and looks the
// timestamps up in the Ledger; a unit without a full timestamp (the A-sync
// and address units of a synchronisation) is the one its ETM emitted just
// before the next unit of the same stream, or just after the previous.
type Decoder struct {
	L     *Ledger
	CPUs  int
	df    Deformatter
	units []Unit // reused by Decode
	near  []int
}

// NewDecoder returns a decoder of the device's trace.
func (d *Device) NewDecoder() *Decoder { return &Decoder{L: d.ledger, CPUs: d.cfg.CPUs} }

// Decode decodes data, the bytes of the AUX buffer of CPU bufCPU (-1 for a
// per-thread buffer), unit by unit. The slice is the decoder's until the
// next call.
func (dec *Decoder) Decode(bufCPU int, data []byte) []Unit {
	units := dec.units[:0]
	if n := len(data) / FrameSize; cap(units) < n {
		units = make([]Unit, 0, n)
	}
	for off := 0; off+FrameSize <= len(data); off += FrameSize {
		units = append(units, dec.decodeUnit(bufCPU, data[off:off+FrameSize]))
	}
	if dec.L != nil {
		dec.infer(units)
	}
	dec.units = units
	return units
}

func (dec *Decoder) decodeUnit(bufCPU int, b []byte) Unit {
	if [FrameSize]byte(b) == barrierFrame {
		return Unit{Kind: KindBarrier, CPU: -1}
	}
	if [FrameSize]byte(b) == ([FrameSize]byte{}) {
		return Unit{Kind: KindZero, CPU: -1}
	}
	u := Unit{Kind: KindGarbage, CPU: -1}
	payload := b
	if dec.L == nil || !dec.L.raw {
		// a frame of one source; each slot is read on its own (the slots
		// of a snapshot need not follow one another)
		dec.df.ID = 0
		segs, err := dec.df.Frame(b)
		if err != nil || len(segs) != 1 {
			return u
		}
		if u.CPU = cpuOfTraceID(segs[0].ID, dec.CPUs); u.CPU < 0 {
			return u
		}
		payload = segs[0].Data
	} else {
		u.CPU = bufCPU
	}
	// fast path: a full timestamp, then atoms
	if len(payload) > tsFullPayload && payload[0] == pktTimestamp {
		if ts, n, err := contField(payload[1:], tsFullPayload); err == nil && n == tsFullPayload && payload[n]&0x80 == 0 && allAtoms(payload[1+n:]) {
			u.Kind, u.TS, u.HasTS = KindData, ts, true
			return u
		}
	}
	pkts, _, err := ParsePackets(payload, true)
	if err != nil {
		return u
	}
	u.Kind = KindData
	for _, p := range pkts {
		if p.Type == PktTimestamp && p.TSBits == 64 {
			u.TS, u.HasTS = p.TS, true
		}
	}
	return u
}

// allAtoms reports that every byte of b is an atom packet header.
func allAtoms(b []byte) bool {
	for _, c := range b {
		if c < 0xc0 {
			return false
		}
	}
	return true
}

// infer resolves the units' timestamps, then gives each unit without one the
// identity of its neighbour in the same CPU's stream (no barrier between):
// backwards first (a unit is the one before the next unit of its stream),
// then forwards.
func (dec *Decoder) infer(units []Unit) {
	for i := range units {
		u := &units[i]
		if u.Kind == KindData && u.HasTS {
			u.Frame, u.Known = dec.L.Resolve(u.CPU, u.TS)
		}
	}
	if len(dec.near) != dec.CPUs+1 {
		dec.near = make([]int, dec.CPUs+1)
	}
	dec.resetNear()
	for i := len(units) - 1; i >= 0; i-- {
		dec.walk(units, i, -1)
	}
	dec.resetNear()
	for i := range units {
		dec.walk(units, i, +1)
	}
}

// resetNear forgets the nearest unit of every stream (a barrier).
func (dec *Decoder) resetNear() {
	for i := range dec.near {
		dec.near[i] = -1
	}
}

// walk visits units[i] going in direction delta: a unit not yet known is
// the one its ETM emitted delta after the nearest known unit of its stream
// (dec.near: CPU+1 -> that unit's index, -1 none).
func (dec *Decoder) walk(units []Unit, i, delta int) {
	u := &units[i]
	if u.Kind == KindBarrier {
		dec.resetNear()
		return
	}
	if u.Kind != KindData || u.CPU+1 >= len(dec.near) {
		return
	}
	if j := dec.near[u.CPU+1]; !u.Known && j >= 0 && units[j].Known {
		u.Frame, u.Known = dec.L.Step(units[j].Frame, delta)
	}
	dec.near[u.CPU+1] = i
}
