package coresight

// Unit is one decoded 16-byte slot of an AUX buffer.
type Unit struct {
	Kind  FrameKind
	CPU   int    // the ETM whose trace it is (-1: unknown)
	TS    uint64 // its timestamp (HasTS)
	HasTS bool
	Frame Frame // which unit of the session's trace it is (Known)
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
	pay   []byte
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
		// fast path: a frame of one source
		if b[0]&1 == 0 || b[FrameSize-1]&1 != 0 {
			segs, _, err := Deformat(b, 0)
			if err != nil || len(segs) != 1 {
				return u
			}
			u.CPU = cpuOfTraceID(segs[0].ID, dec.CPUs)
			payload = segs[0].Data
		} else {
			u.CPU = cpuOfTraceID(b[0]>>1, dec.CPUs)
			dec.pay = dec.pay[:0]
			aux := b[FrameSize-1]
			for pos := 1; pos < FrameSize-1; pos++ {
				v := b[pos]
				if pos%2 == 0 {
					if v&1 != 0 {
						return u // an ID change inside a frame the model never writes
					}
					v |= aux >> (pos / 2) & 1
				}
				dec.pay = append(dec.pay, v)
			}
			payload = dec.pay
		}
		if u.CPU < 0 {
			return u
		}
	} else {
		u.CPU = bufCPU
	}
	// fast path: timestamp and atoms
	if len(payload) > tsFullPayload && payload[0] == pktTimestamp && payload[tsFullPayload]&0x80 == 0 {
		ok := true
		for _, c := range payload[1+tsFullPayload:] {
			if c < 0xc0 {
				ok = false
				break
			}
		}
		if ok {
			var ts uint64
			for j := 0; j < tsFullPayload; j++ {
				ts |= uint64(payload[1+j]&0x7f) << (7 * j)
			}
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

// infer resolves the units' timestamps, then gives each unit without one the
// identity of its neighbour in the same CPU's stream (no barrier between).
func (dec *Decoder) infer(units []Unit) {
	for i := range units {
		u := &units[i]
		if u.Kind == KindData && u.HasTS {
			u.Frame, u.Known = dec.L.Resolve(u.CPU, u.TS)
		}
	}
	// backwards: a unit is the one before the next unit of its stream
	if len(dec.near) != dec.CPUs+1 {
		dec.near = make([]int, dec.CPUs+1)
	}
	near := dec.near // CPU+1 -> index of the nearest data unit of that CPU, -1
	reset := func() {
		for i := range near {
			near[i] = -1
		}
	}
	walk := func(i, delta int) {
		u := &units[i]
		if u.Kind == KindBarrier {
			reset()
			return
		}
		if u.Kind != KindData || u.CPU+1 >= len(near) {
			return
		}
		if j := near[u.CPU+1]; !u.Known && j >= 0 && units[j].Known {
			u.Frame, u.Known = dec.L.Step(units[j].Frame, delta)
		}
		near[u.CPU+1] = i
	}
	reset()
	for i := len(units) - 1; i >= 0; i-- {
		walk(i, -1)
	}
	reset()
	for i := range units {
		walk(i, +1)
	}
}
