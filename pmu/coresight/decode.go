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
	near  []int  // inferRunsFull's: per stream (CPU+1), the nearest run
	// inferRuns's scratch: the units without a timestamp, their neighbours
	unknown, next, prev []int
	runs                []unitRun     // reused by decodeRuns
	unitRuns            []unitRun     // infer's units as runs
	pr                  pieceReader   // decodeRunsPieces's (its spans reused)
	lastMemo            [3][4]memoHit // syncUnit's latest of each class (decode_pieces.go)
	// takenUnits counts the units takeUnits took from their description
	// (decode_take.go), not decoding them frame by frame; oneByOne counts
	// the frames decodeRunsOf decoded one at a time (their bytes read).
	// Tests check with them that a described snapshot takes the analytic
	// path.
	takenUnits, oneByOne uint64
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
// then forwards. That is inferRuns over runs of one unit each.
func (dec *Decoder) infer(units []Unit) {
	for i := range units {
		if u := &units[i]; u.Kind == KindData && u.HasTS {
			u.Frame, u.Known = dec.L.Resolve(u.CPU, u.TS)
		}
	}
	dec.inferUnits(units, dec.inferRuns)
}

// inferUnits applies infer, an inference over runs (inferRuns,
// inferRunsFull), to units, each a run of one.
func (dec *Decoder) inferUnits(units []Unit, infer func([]unitRun)) {
	runs := dec.unitRuns[:0]
	for _, u := range units {
		runs = append(runs, unitRun{Unit: u, n: 1, lastTS: u.TS})
	}
	infer(runs)
	for i := range units {
		units[i] = runs[i].Unit
	}
	dec.unitRuns = runs
}

// inferScan is how far inferRuns looks for the neighbour of a unit without
// a timestamp before it leaves the chunk to inferRunsFull.
const inferScan = 64

// resetNear forgets the nearest unit of every stream (a barrier).
func (dec *Decoder) resetNear() {
	for i := range dec.near {
		dec.near[i] = -1
	}
}
