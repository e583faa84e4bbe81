package coresight

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ETMv4 instruction trace packets as the ETMv4 architecture specification
// (ARM IHI 0064, "Instruction trace packets") defines them and OpenCSD's
// packet processor reads them: what the simulated trace units write and
// ParsePackets reads back.
const (
	pktExtension   = 0x00 // A-sync (0x00 x11, 0x80), overflow (0x00 0x05), discard (0x00 0x03)
	pktTraceInfo   = 0x01
	pktTimestamp   = 0x02 // 0x03: with a cycle count
	pktTraceOn     = 0x04
	pktException   = 0x06
	pktExceptRtn   = 0x07
	pktCtx         = 0x80 // 0x80: same context; 0x81: info byte, VMID, context ID follow
	pktAddrCtx32   = 0x82 // 0x82/0x83: 32-bit address IS0/IS1 with context
	pktAddrCtx64   = 0x85 // 0x85/0x86: 64-bit address IS0/IS1 with context
	pktAddrMatch   = 0x90 // 0x90-0x92: exact match address
	pktAddrShort   = 0x95 // 0x95/0x96
	pktAddrLong32  = 0x9a // 0x9a/0x9b
	pktAddrLong64  = 0x9d // 0x9d/0x9e
	pktAtomF3EEE   = 0xff // atom format 3, E E E: the loop branch taken three times
	asyncLen       = 12
	asyncLast      = 0x80
	tsFullPayload  = 7 // timestamp payload bytes from which OpenCSD takes the value as all 64 bits
	ctxInfoSF      = 1 << 4
	ctxInfoNS      = 1 << 5
	ctxInfoV       = 1 << 6
	ctxInfoC       = 1 << 7
	simCIDBytes    = 4 // TRCIDR2.CIDSIZE of the simulated ETMs: 32-bit context ids
	simVMIDBytes   = 1 // TRCIDR2.VMIDSIZE: 8-bit VMIDs
	unitsPerSync   = 256
	formattedBytes = 14 // trace bytes in a formatter frame that starts with an ID byte
)

// unitsPerSync: etm4_set_default_config() sets TRCSYNCPR to 0xC, a trace
// synchronisation (A-sync, trace info, address and context) every 2^12 bytes,
// 256 units.

// The addresses the trace shows: the traced task spins on a branch to
// itself (`b .`), at a slot per pid in AArch64 user text or kernel text.
const (
	userSpanBase   = 0x400000
	kernelSpanBase = 0xffff800080010000
)

// SpanAddr is the address of the loop task pid runs in the mode.
func SpanAddr(user bool, pid int) uint64 {
	base := uint64(kernelSpanBase)
	if user {
		base = userSpanBase
	}
	return base + uint64(uint32(pid))<<4
}

// ETM config bits (TRCCONFIGR) the encoder follows.
// drivers/hwtracing/coresight/coresight-etm4x-core.c: etm4_parse_event_config()
type etmConfig struct {
	ts   bool // ETM_OPT_TS -> TRCCONFIGR.TS
	ctxt bool // ETM_OPT_CTXTID -> TRCCONFIGR.CID
}

// unitSrc is a run of n units one ETM produced between since and until:
// what the sink needs to write any unit k of it.
type unitSrc struct {
	cpu      int
	index    uint32 // Index of unit 0 in its period
	seq      uint64 // Seq of unit 0
	n        uint64
	since    uint64 // timestamps: the 1 GHz system counter (ns)
	until    uint64
	addr     uint64
	pid      int
	user     bool
	cfg      etmConfig
	ctxFirst bool // unit 0 re-establishes address and context (the mode changed)
}

// tsAt is the timestamp of unit k: the time its last byte left the ETM.
func (s *unitSrc) tsAt(k uint64) uint64 { return unitTS(s.since, s.until, s.n, k) }

// plain reports that unit k is a timestamp and E atoms, not a
// synchronisation or a new address and context.
func (s *unitSrc) plain(k uint64) bool {
	i := uint64(s.index) + k
	return s.cfg.ts && i%unitsPerSync >= 2 && (k != 0 || !s.ctxFirst)
}

func unitTS(since, until, n, k uint64) uint64 {
	return since + mulDiv(k+1, until-since, n)
}

// appendUnit appends the trace bytes of unit k: payload bytes (14 for a
// formatter frame, 16 raw). The stream of a period is: an A-sync and trace
// info every unitsPerSync units from the first, then an address with context
// (the loop's address, EL0/EL1, the pid as context id), then per unit a
// timestamp and E atoms. Packets never straddle units.
func (s *unitSrc) appendUnit(b []byte, k uint64, payload int) []byte {
	start := len(b)
	i := uint64(s.index) + k
	switch {
	case i%unitsPerSync == 0:
		for j := 0; j < asyncLen-1; j++ {
			b = append(b, pktExtension)
		}
		b = append(b, asyncLast)
		// trace info: PLCTL 0 (no sections), or INFO and KEY sections (both
		// 0) to fill a raw unit
		if payload-(len(b)-start) >= 4 {
			b = append(b, pktTraceInfo, 0x03, 0, 0)
		} else {
			b = append(b, pktTraceInfo, 0)
		}
	case i%unitsPerSync == 1 || (k == 0 && s.ctxFirst):
		b = appendAddrCtx(b, s.addr, s.user, s.pid, s.cfg.ctxt)
	default:
		if s.cfg.ts {
			b = appendTimestamp(b, s.tsAt(k))
		}
	}
	for len(b)-start < payload {
		b = append(b, pktAtomF3EEE)
	}
	return b
}

// tsStep walks the timestamps of a run of n units over [since, until]: ts
// is unitTS(since, until, n, k), kept with an add and a remainder instead of
// a 128-bit division per unit.
type tsStep struct {
	k      uint64 // the unit
	ts     uint64 // its timestamp
	n      uint64
	r      uint64 // ((k+1) * (until-since)) mod n
	dq, dr uint64 // (until-since) / n, (until-since) mod n
}

// newTSStep starts a tsStep at unit k (k < n).
func newTSStep(since, until, n, k uint64) tsStep {
	dt := until - since
	q, r := mulDivRem(k+1, dt, n)
	return tsStep{k: k, ts: since + q, n: n, r: r, dq: dt / n, dr: dt % n}
}

// nextTS is the timestamp of the following unit, without moving (r, dr < n:
// (r+dr)/n is 0 or 1).
func (t *tsStep) nextTS() uint64 {
	if t.r+t.dr >= t.n {
		return t.ts + t.dq + 1
	}
	return t.ts + t.dq
}

// next moves to the following unit.
func (t *tsStep) next() {
	t.k++
	t.ts += t.dq
	if t.r += t.dr; t.r >= t.n {
		t.ts++
		t.r -= t.n
	}
}

// unitWriter writes the units of a source one after another (k ascending;
// ts is s.tsAt(k)).
type unitWriter struct {
	s *unitSrc
	tsStep
}

// writer returns a unitWriter at unit k (k < s.n).
func (s *unitSrc) writer(k uint64) unitWriter {
	return unitWriter{s: s, tsStep: newTSStep(s.since, s.until, s.n, k)}
}

// plainTS reports that the unit is a timestamp and E atoms (not a
// synchronisation or a new address and context): the writer's fast path.
func (w *unitWriter) plainTS() bool { return w.s.plain(w.k) }

// putFormatted writes the unit as a formatter frame of trace ID id:
// putFormatted(dst, id, s.appendUnit(nil, k, formattedBytes)).
func (w *unitWriter) putFormatted(dst []byte, id byte) {
	if !w.plainTS() {
		var pay [FrameSize]byte
		putFormatted(dst, id, w.s.appendUnit(pay[:0], w.k, formattedBytes))
		return
	}
	// byte 0 the ID, 1 the header, 2-8 the timestamp, 9-14 E atoms; even
	// bytes keep their bit 0 in byte 15: two 64-bit stores
	ts := w.ts
	t0, t1, t2, t3 := ts&0x7f|0x80, ts>>7&0x7f|0x80, ts>>14&0x7f|0x80, ts>>21&0x7f|0x80
	t4, t5, t6 := ts>>28&0x7f|0x80, ts>>35&0x7f|0x80, ts>>42&0x7f
	lo := uint64(id<<1|1) | pktTimestamp<<8 | (t0&^1)<<16 | t1<<24 | (t2&^1)<<32 | t3<<40 | (t4&^1)<<48 | t5<<56
	aux := (t0&1)<<1 | (t2&1)<<2 | (t4&1)<<3 | (t6&1)<<4 | 1<<5 | 1<<6 | 1<<7
	hi := t6&^1 | plainAtoms | aux<<56
	binary.LittleEndian.PutUint64(dst[:8], lo)
	binary.LittleEndian.PutUint64(dst[8:FrameSize], hi)
}

// plainAtoms are bytes 9-14 of a plain timestamp frame (E atoms, the even
// ones with bit 0 moved to byte 15), in place in its second 64-bit word.
const plainAtoms = uint64(pktAtomF3EEE)<<8 | uint64(pktAtomF3EEE&^1)<<16 | uint64(pktAtomF3EEE)<<24 |
	uint64(pktAtomF3EEE&^1)<<32 | uint64(pktAtomF3EEE)<<40 | uint64(pktAtomF3EEE&^1)<<48

// appendRaw appends the unit as 16 bytes of raw trace:
// s.appendUnit(b, k, FrameSize).
func (w *unitWriter) appendRaw(b []byte) []byte {
	if !w.plainTS() {
		return w.s.appendUnit(b, w.k, FrameSize)
	}
	ts := w.ts
	return append(b, pktTimestamp, byte(ts)|0x80, byte(ts>>7)|0x80, byte(ts>>14)|0x80, byte(ts>>21)|0x80,
		byte(ts>>28)|0x80, byte(ts>>35)|0x80, byte(ts>>42)&0x7f,
		pktAtomF3EEE, pktAtomF3EEE, pktAtomF3EEE, pktAtomF3EEE, pktAtomF3EEE, pktAtomF3EEE, pktAtomF3EEE, pktAtomF3EEE)
}

// appendTimestamp appends a timestamp packet with tsFullPayload bytes: the
// whole value (bits 48:0), so a decoder takes it as is.
func appendTimestamp(b []byte, ts uint64) []byte {
	b = append(b, pktTimestamp)
	for j := 0; j < tsFullPayload; j++ {
		v := byte(ts>>(7*j)) & 0x7f
		if j < tsFullPayload-1 {
			v |= 0x80
		}
		b = append(b, v)
	}
	return b
}

// appendAddrCtx appends a 64-bit IS0 address with context packet.
func appendAddrCtx(b []byte, addr uint64, user bool, pid int, cid bool) []byte {
	b = append(b, pktAddrCtx64, byte(addr>>2)&0x7f, byte(addr>>9)&0x7f)
	for sh := 16; sh < 64; sh += 8 {
		b = append(b, byte(addr>>sh))
	}
	info := byte(ctxInfoSF | ctxInfoNS) // AArch64, non-secure
	if !user {
		info |= 1 // EL1
	}
	if !cid {
		return append(b, info)
	}
	b = append(b, info|ctxInfoC)
	return append(b, byte(pid), byte(pid>>8), byte(pid>>16), byte(pid>>24))
}

// PacketType is a decoded packet's type.
type PacketType uint8

// Packet types ParsePackets knows.
const (
	PktASync PacketType = iota + 1
	PktTraceInfo
	PktTimestamp
	PktTraceOn
	PktContext
	PktAddrCtx
	PktAddress
	PktAddrMatch
	PktAtom
	PktException
	PktExceptRtn
	PktOverflow
	PktDiscard
	PktEvent
)

var pktNames = [...]string{PktASync: "I_ASYNC", PktTraceInfo: "I_TRACE_INFO", PktTimestamp: "I_TIMESTAMP",
	PktTraceOn: "I_TRACE_ON", PktContext: "I_CTXT", PktAddrCtx: "I_ADDR_CTXT_L_64IS0", PktAddress: "I_ADDR",
	PktAddrMatch: "I_ADDR_MATCH", PktAtom: "I_ATOM", PktException: "I_EXCEPT", PktExceptRtn: "I_EXCEPT_RTN",
	PktOverflow: "I_OVERFLOW", PktDiscard: "I_DISCARD", PktEvent: "I_EVENT"}

func (t PacketType) String() string {
	if int(t) < len(pktNames) && pktNames[t] != "" {
		return pktNames[t]
	}
	return fmt.Sprintf("packet(%d)", t)
}

// Packet is one decoded ETMv4 packet.
type Packet struct {
	Type   PacketType
	Off    int // offset in the parsed bytes
	Len    int
	TS     uint64 // timestamp value (the bits sent)
	TSBits int    // how many low bits of the timestamp the packet sent (64: all)
	Addr   uint64 // address (address packets); addresses with 32 bits or fewer update the low bits
	// AddrBits are the low bits of the address an address packet sends (64:
	// all of it)
	AddrBits int
	EL       int    // context: exception level
	Ctxt     bool   // context packet carries info
	CID      uint32 // context id (the pid)
	HasCID   bool
	Atoms    int    // atoms in an atom packet
	E        uint32 // atom pattern, bit 0 the oldest, 1 = E
}

// errTruncated is a packet cut off by the end of the bytes.
var errTruncated = errors.New("etmv4: packet truncated")

// ParsePackets decodes b as an ETMv4 instruction trace stream. Until synced
// it skips bytes up to the first A-sync (as OpenCSD's I_NOT_SYNC); it returns
// the packets and the number of bytes before the first A-sync (when not
// synced), or an error naming the offset and the bad header.
func ParsePackets(b []byte, synced bool) ([]Packet, int, error) {
	var out []Packet
	skipped := 0
	off := 0
	if !synced {
		i := findASync(b)
		if i < 0 {
			return nil, len(b), nil
		}
		skipped, off = i, i
	}
	for off < len(b) {
		p, err := parsePacket(b[off:])
		if err != nil {
			return out, skipped, fmt.Errorf("offset %d: %w", off, err)
		}
		p.Off = off
		out = append(out, p)
		off += p.Len
	}
	return out, skipped, nil
}

// findASync is the offset of the first A-sync in b, -1 if none.
func findASync(b []byte) int {
	zeros := 0
	for i, c := range b {
		switch {
		case c == 0:
			zeros++
		case c == asyncLast && zeros >= asyncLen-1:
			return i - (asyncLen - 1)
		default:
			zeros = 0
		}
	}
	return -1
}

// contField reads a continuation field (7 bits a byte, bit 7 set: more) of
// at most max bytes.
func contField(b []byte, max int) (uint64, int, error) {
	var v uint64
	for i := 0; i < max; i++ {
		if i >= len(b) {
			return 0, 0, errTruncated
		}
		if i == 8 { // the ninth byte of a 64-bit field carries 8 bits
			return v | uint64(b[i])<<56, i + 1, nil
		}
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return v, i + 1, nil
		}
	}
	return v, max, nil
}

func parsePacket(b []byte) (Packet, error) {
	h := b[0]
	need := func(n int) error {
		if len(b) < n {
			return errTruncated
		}
		return nil
	}
	switch {
	case h == pktExtension:
		if err := need(2); err != nil {
			return Packet{}, err
		}
		switch b[1] {
		case 0x05:
			return Packet{Type: PktOverflow, Len: 2}, nil
		case 0x03:
			return Packet{Type: PktDiscard, Len: 2}, nil
		case 0x00:
			if err := need(asyncLen); err != nil {
				return Packet{}, err
			}
			for i := 2; i < asyncLen-1; i++ {
				if b[i] != 0 {
					return Packet{}, fmt.Errorf("etmv4: bad A-sync byte %d: %#02x", i, b[i])
				}
			}
			if b[asyncLen-1] != asyncLast {
				return Packet{}, fmt.Errorf("etmv4: bad A-sync end %#02x", b[asyncLen-1])
			}
			return Packet{Type: PktASync, Len: asyncLen}, nil
		}
		return Packet{}, fmt.Errorf("etmv4: bad extension packet 00 %02x", b[1])
	case h == pktTraceInfo:
		_, n, err := contField(b[1:], 5) // PLCTL
		if err != nil {
			return Packet{}, err
		}
		sects := b[1] & 0x0f
		off := 1 + n
		for s := 0; s < 4; s++ {
			if sects&(1<<s) == 0 {
				continue
			}
			_, m, err := contField(b[off:], 5)
			if err != nil {
				return Packet{}, err
			}
			off += m
		}
		return Packet{Type: PktTraceInfo, Len: off}, nil
	case h == pktTimestamp || h == pktTimestamp|1:
		v, n, err := contField(b[1:], 9)
		if err != nil {
			return Packet{}, err
		}
		bits := 64
		if n < tsFullPayload {
			bits = 7 * n
		}
		off := 1 + n
		if h&1 != 0 { // cycle count: up to 3 bytes
			_, m, err := contField(b[off:], 3)
			if err != nil {
				return Packet{}, err
			}
			off += m
		}
		return Packet{Type: PktTimestamp, Len: off, TS: v, TSBits: bits}, nil
	case h == pktTraceOn:
		return Packet{Type: PktTraceOn, Len: 1}, nil
	case h == pktException:
		if err := need(2); err != nil {
			return Packet{}, err
		}
		if b[1]&0x80 != 0 {
			if err := need(3); err != nil {
				return Packet{}, err
			}
			return Packet{Type: PktException, Len: 3}, nil
		}
		return Packet{Type: PktException, Len: 2}, nil
	case h == pktExceptRtn:
		return Packet{Type: PktExceptRtn, Len: 1}, nil
	case h == pktCtx:
		return Packet{Type: PktContext, Len: 1}, nil
	case h == pktCtx|1:
		p := Packet{Type: PktContext}
		n, err := parseCtx(b[1:], &p)
		p.Len = 1 + n
		return p, err
	case h == pktAddrCtx32, h == pktAddrCtx32+1, h == pktAddrCtx64, h == pktAddrCtx64+1:
		is1 := h == pktAddrCtx32+1 || h == pktAddrCtx64+1
		nb := 4
		if h >= pktAddrCtx64 {
			nb = 8
		}
		if err := need(1 + nb); err != nil {
			return Packet{}, err
		}
		p := Packet{Type: PktAddrCtx, Addr: longAddr(b[1:1+nb], is1), AddrBits: 8 * nb}
		n, err := parseCtx(b[1+nb:], &p)
		p.Len = 1 + nb + n
		return p, err
	case h >= pktAddrMatch && h <= pktAddrMatch+2:
		return Packet{Type: PktAddrMatch, Len: 1}, nil
	case h == pktAddrShort || h == pktAddrShort+1:
		if err := need(2); err != nil {
			return Packet{}, err
		}
		// IS0: bits 8:2 then 16:9; IS1: bits 7:1 then 15:8
		p := Packet{Type: PktAddress, Len: 2}
		sh := uint(2)
		if h == pktAddrShort+1 {
			sh = 1
		}
		p.Addr, p.AddrBits = uint64(b[1]&0x7f)<<sh, 7+int(sh)
		if b[1]&0x80 != 0 {
			if err := need(3); err != nil {
				return Packet{}, err
			}
			p.Len = 3
			p.Addr |= uint64(b[2]) << (7 + sh)
			p.AddrBits += 8
		}
		return p, nil
	case h == pktAddrLong32 || h == pktAddrLong32+1 || h == pktAddrLong64 || h == pktAddrLong64+1:
		nb := 4
		if h >= pktAddrLong64 {
			nb = 8
		}
		if err := need(1 + nb); err != nil {
			return Packet{}, err
		}
		return Packet{Type: PktAddress, Len: 1 + nb, Addr: longAddr(b[1:1+nb], h == pktAddrLong32+1 || h == pktAddrLong64+1), AddrBits: 8 * nb}, nil
	case h >= 0x71 && h <= 0x7f:
		return Packet{Type: PktEvent, Len: 1}, nil
	case h >= 0xc0:
		p := Packet{Type: PktAtom, Len: 1}
		p.Atoms, p.E = atoms(h)
		if p.Atoms == 0 {
			return Packet{}, fmt.Errorf("etmv4: bad atom format 5 header %#02x", h)
		}
		return p, nil
	}
	return Packet{}, fmt.Errorf("etmv4: unsupported or reserved packet header %#02x", h)
}

// parseCtx reads a context info byte and its VMID and context id.
func parseCtx(b []byte, p *Packet) (int, error) {
	if len(b) < 1 {
		return 0, errTruncated
	}
	info := b[0]
	p.Ctxt, p.EL = true, int(info&3)
	n := 1
	if info&ctxInfoV != 0 {
		n += simVMIDBytes
	}
	if info&ctxInfoC != 0 {
		if len(b) < n+simCIDBytes {
			return 0, errTruncated
		}
		p.HasCID = true
		p.CID = uint32(b[n]) | uint32(b[n+1])<<8 | uint32(b[n+2])<<16 | uint32(b[n+3])<<24
		n += simCIDBytes
	}
	if len(b) < n {
		return 0, errTruncated
	}
	return n, nil
}

// longAddr decodes the address bytes of a long address packet.
func longAddr(b []byte, is1 bool) uint64 {
	var v uint64
	if is1 {
		v = uint64(b[0]&0x7f)<<1 | uint64(b[1])<<8
	} else {
		v = uint64(b[0]&0x7f)<<2 | uint64(b[1]&0x7f)<<9
	}
	for i := 2; i < len(b); i++ {
		v |= uint64(b[i]) << (8 * i)
	}
	return v
}

// atoms decodes an atom packet header: count and pattern (bit 0 oldest, 1 = E).
func atoms(h byte) (int, uint32) {
	switch {
	case h >= 0xf8: // format 3
		return 3, uint32(h & 7)
	case h >= 0xf6: // format 1
		return 1, uint32(h & 1)
	case h == 0xf5, h >= 0xd5 && h <= 0xd7: // format 5
		switch (h&0x20)>>3 | h&3 {
		case 5:
			return 5, 0x1e
		case 1:
			return 5, 0
		case 2:
			return 5, 0x0a
		case 3:
			return 5, 0x15
		}
		return 0, 0
	case h >= 0xdc && h <= 0xdf: // format 4
		return 4, [4]uint32{0xe, 0, 0xa, 5}[h&3]
	case h >= 0xd8 && h <= 0xdb: // format 2
		return 2, uint32(h & 3)
	default: // format 6: 0xc0-0xd4, 0xe0-0xf4
		n := int(h&0x1f) + 3
		pat := uint32(1)<<n - 1
		if h&0x20 == 0 {
			pat |= 1 << n
		}
		return n + 1, pat
	}
}
