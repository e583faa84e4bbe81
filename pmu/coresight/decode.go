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
	// infer's scratch: the units without a timestamp, their neighbours
	unknown, next, prev []int
	runs                []unitRun  // reused by decodeRuns
	lastMemo            [3]memoHit // syncUnit's last of each class (decode_pieces.go)
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
	if dec.L == nil || !dec.L.raw {
		// the frame almost every slot of an ETR's trace is: one source, a
		// full timestamp, then atoms
		if id, ts, ok := plainFormatted((*[FrameSize]byte)(b)); ok {
			return dec.formattedUnit(id, ts)
		}
	}
	return dec.decodeUnitBytes(bufCPU, b)
}

// formattedUnit is the unit of a plain formatted frame of trace ID id with
// timestamp ts (plainFormatted's): data of that ID's CPU, garbage for an
// ID no CPU has.
func (dec *Decoder) formattedUnit(id byte, ts uint64) Unit {
	if cpu := cpuOfTraceID(id, dec.CPUs); cpu >= 0 {
		return Unit{Kind: KindData, CPU: cpu, TS: ts, HasTS: true}
	}
	return Unit{Kind: KindGarbage, CPU: -1}
}

// plainFormatted reads a formatter frame that holds the data of one source
// ID (the deformatter's single-source case) and whose data is a timestamp
// with tsFullPayload bytes followed by atoms: decodeUnitBytes's fast path
// without the deformatter. ok false: any other frame.
func plainFormatted(f *[FrameSize]byte) (id byte, ts uint64, ok bool) {
	aux := f[FrameSize-1]
	id = f[0] >> 1
	if f[0]&1 == 0 || aux&1 != 0 || id == 0 || id == 0x7f ||
		(f[2]|f[4]|f[6]|f[8]|f[10]|f[12]|f[14])&1 != 0 || f[1] != pktTimestamp {
		return 0, 0, false
	}
	// The data bytes of Deformatter.Frame's single-source case are f[1],
	// f[2]|aux>>1&1, f[3], f[4]|aux>>2&1, ... f[14]|aux>>7&1 (even bytes have
	// bit 0 clear). The timestamp is data 1..7: contField taking all 7
	// bytes, the last one final; data 8..13 are atoms (>= 0xc0).
	if f[2]&f[3]&f[4]&f[5]&f[6]&f[7]&0x80 == 0 || f[8]&0x80 != 0 ||
		f[9]&f[10]&f[11]&f[12]&f[13]&f[14]&0xc0 != 0xc0 {
		return 0, 0, false
	}
	ts = uint64(f[2]&0x7f|aux>>1&1) | uint64(f[3]&0x7f)<<7 | uint64(f[4]&0x7f|aux>>2&1)<<14 |
		uint64(f[5]&0x7f)<<21 | uint64(f[6]&0x7f|aux>>3&1)<<28 | uint64(f[7]&0x7f)<<35 |
		uint64(f[8]&0x7f|aux>>4&1)<<42
	return id, ts, true
}

// decodeUnitBytes decodes one unit through the deformatter and the packet
// parser: every shape of unit.
func (dec *Decoder) decodeUnitBytes(bufCPU int, b []byte) Unit {
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
	unknown := dec.unknown[:0]
	for i := range units {
		u := &units[i]
		if u.Kind == KindData && u.HasTS {
			u.Frame, u.Known = dec.L.Resolve(u.CPU, u.TS)
		}
		if u.Kind == KindData && !u.Known && u.CPU+1 <= dec.CPUs {
			unknown = append(unknown, i)
		}
	}
	dec.unknown = unknown
	if len(unknown) == 0 || dec.inferNear(units, unknown) {
		return
	}
	dec.inferFull(units)
}

// inferScan is how far inferNear looks for the neighbour of a unit without
// a timestamp before it leaves the chunk to inferFull.
const inferScan = 64

// inferNear is inferFull for chunks whose units without a timestamp have
// their stream's neighbours (or a barrier, or the chunk's end) within
// inferScan units: it looks only around those units. It reports false,
// having changed nothing, when one does not.
func (dec *Decoder) inferNear(units []Unit, unknown []int) bool {
	// the nearest unit of the same stream after (next) and before (prev)
	// each unknown unit, -1 none: what walk's dec.near holds when it
	// reaches it going backwards and forwards
	dec.next, dec.prev = dec.next[:0], dec.prev[:0]
	for _, i := range unknown {
		cpu := units[i].CPU
		nb := func(delta int) (int, bool) {
			for k, n := i+delta, 0; k >= 0 && k < len(units); k, n = k+delta, n+1 {
				if n == inferScan {
					return 0, false
				}
				switch v := &units[k]; {
				case v.Kind == KindBarrier:
					return -1, true
				case v.Kind == KindData && v.CPU == cpu:
					return k, true
				}
			}
			return -1, true
		}
		next, ok1 := nb(+1)
		prev, ok2 := nb(-1)
		if !ok1 || !ok2 {
			return false
		}
		dec.next, dec.prev = append(dec.next, next), append(dec.prev, prev)
	}
	for x := len(unknown) - 1; x >= 0; x-- {
		u := &units[unknown[x]]
		if j := dec.next[x]; !u.Known && j >= 0 && units[j].Known {
			u.Frame, u.Known = dec.L.Step(units[j].Frame, -1)
		}
	}
	for x, i := range unknown {
		u := &units[i]
		if j := dec.prev[x]; !u.Known && j >= 0 && units[j].Known {
			u.Frame, u.Known = dec.L.Step(units[j].Frame, +1)
		}
	}
	return true
}

// inferFull gives each unit without a timestamp the identity of its
// neighbour, walking the whole chunk backwards, then forwards.
func (dec *Decoder) inferFull(units []Unit) {
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
