package pt

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// PacketSize is the unit the simulated hardware writes trace in: every
// output length is a multiple of it (the trace of a stretch of time is
// padded with PAD packets to it).
const PacketSize = 16

// Intel PT packets as the Intel SDM vol. 3C ("Intel Processor Trace",
// "Packet Descriptions") defines them; what the simulated hardware writes
// and Decode reads back.
const (
	pktPAD      = 0x00
	pktTIPPGD   = 0x01 // TIP.PGD: tracing disabled (low 5 bits; IPBytes in 7:5)
	pktTIP      = 0x0d
	pktTIPPGE   = 0x11 // TIP.PGE: tracing enabled at IP
	pktFUP      = 0x1d // FUP: the IP of an asynchronous event
	pktTSC      = 0x19 // TSC: 7 bytes of the time stamp counter
	pktMTC      = 0x59
	pktMODE     = 0x99 // MODE: leaf in bits 7:5 of the payload (0: MODE.Exec)
	pktExt      = 0x02 // extended packets: second byte
	pktExtPSB   = 0x82 // PSB: 02 82 eight times
	pktExtEND   = 0x23 // PSBEND
	pktExtOVF   = 0xf3 // OVF: internal buffer overflow, packets lost
	pktExtCBR   = 0x03
	pktExtLTNT  = 0xa3
	pktExtPIP   = 0x43
	pktExtTMA   = 0x73
	pktExtVMCS  = 0xc8
	psbLen      = 16
	modeExec64  = 0x01 // MODE.Exec payload: CS.L (64-bit mode)
	ipBytesNone = 0    // IPBytes 000: IP suppressed
	ipBytes16   = 1    // IPBytes 001: IP[15:0], the rest from the last IP
	ipBytes48SX = 3    // IPBytes 011: IP[47:0] sign-extended
)

// TSCPerNs is the simulated machine's TSC rate: 2 GHz, counting from the
// machine's start (perf's TIME_CONV and intel_pt's AUXTRACE_INFO say so).
const TSCPerNs = 2

// PSB is the packet stream boundary: 02 82 repeated eight times.
var PSB = [psbLen]byte{2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82}

// AppendPSBPlus appends a PSB+ with tracing not enabled (PacketEn 0): PSB,
// TSC, PSBEND.
func AppendPSBPlus(b []byte, tsc uint64) []byte {
	b = append(b, PSB[:]...)
	b = AppendTSC(b, tsc)
	return append(b, pktExt, pktExtEND)
}

// AppendTSC appends a TSC packet (the low 56 bits of tsc).
func AppendTSC(b []byte, tsc uint64) []byte {
	b = append(b, pktTSC)
	var v [8]byte
	binary.LittleEndian.PutUint64(v[:], tsc)
	return append(b, v[:7]...)
}

// appendIP appends a packet of the TIP family with IPBytes ipb.
func appendIP(b []byte, typ byte, ipb byte, ip uint64) []byte {
	b = append(b, typ|ipb<<5)
	var v [8]byte
	binary.LittleEndian.PutUint64(v[:], ip)
	return append(b, v[:ipPayload(ipb)]...)
}

func ipPayload(ipb byte) int {
	switch ipb {
	case 0:
		return 0
	case 1:
		return 2
	case 2:
		return 4
	case 3, 4:
		return 6
	case 6:
		return 8
	}
	return -1
}

// AppendTraceSpan appends the packets of a stretch of traced execution in
// one mode at ip, starting at time stamp tsc, n bytes long (at least
// TraceSpanLen(psb)): TSC (with psb, a PSB+ first: the decoder synchronizes
// on it), MODE.Exec, TIP.PGE(ip) (a full 48-bit IP); then, while tracing,
// timing packets (TSC and MTC, at the times tscAt gives for their offsets)
// with a PSB+ carrying MODE.Exec and FUP(ip) at each offset psbAt asks for;
// then PAD, and last FUP(ip) and TIP.PGD: an asynchronous disable at the
// same IP, so a decoder walks no instructions (code it cannot follow).
func AppendTraceSpan(b []byte, n int, tsc, ip uint64, psb bool, tscAt func(off int) uint64, psbAt func(off int) bool) []byte {
	b, _ = AppendLoopSpan(b, n, tsc, ip, psb, false, tscAt, psbAt)
	return b
}

// AppendLoopSpan is AppendTraceSpan for a task executing the loop at ip
// (loop true; pmu.ImageFuncCode: a taken conditional branch, then an
// indirect jump back to ip): after each TSC/MTC pair come itersPerTiming
// iterations, each a one-bit TNT and a TIP(ip) (the TNT flushed before the
// TIP, the IP compressed against the last: IPBytes 001), and the room left
// before FUP and TIP.PGD is iterations too, so the decoder walks iters
// iterations from ip back to ip; a PSB+ (whose FUP is ip, the next
// instruction) falls between iterations.
// arch/x86/events/intel/pt.c: pt_config() (RTIT_CTL.BranchEn: TNT and TIP)
func AppendLoopSpan(b []byte, n int, tsc, ip uint64, psb, loop bool, tscAt func(off int) uint64, psbAt func(off int) bool) ([]byte, int) {
	start := len(b)
	if psb {
		b = AppendPSBPlus(b, tsc)
	} else {
		b = AppendTSC(b, tsc)
	}
	b = append(b, pktMODE, modeExec64)
	b = appendIP(b, pktTIPPGE, ipBytes48SX, ip)
	const tail = 3 + 1 // FUP (IPBytes 001), TIP.PGD
	iters := 0
	for {
		off := len(b) - start
		if psbAt != nil && psbAt(off) {
			if off+psbPlusFUPLen+tail > n {
				break
			}
			b = append(b, PSB[:]...)
			b = AppendTSC(b, tscAt(off))
			b = append(b, pktMODE, modeExec64)
			b = appendIP(b, pktFUP, ipBytes48SX, ip) // PacketEn: the IP in PSB+
			b = append(b, pktExt, pktExtEND)
			continue
		}
		if off+tscMTCLen+tail > n {
			break
		}
		t := tscAt(off)
		b = AppendTSC(b, t)
		b = append(b, pktMTC, byte(t/TSCPerNs/mtcPeriodNs))
		for i := 0; loop && i < itersPerTiming && len(b)-start+iterLen+tail <= n; i++ {
			b = appendIter(b, ip)
			iters++
		}
	}
	for loop && len(b)-start+iterLen+tail <= n {
		b = appendIter(b, ip)
		iters++
	}
	b = append(b, make([]byte, start+n-tail-len(b))...)
	b = appendIP(b, pktFUP, ipBytes16, ip)
	return appendIP(b, pktTIPPGD, ipBytesNone, 0), iters
}

// appendIter appends one iteration of the loop at ip: a short TNT of one
// taken branch (the stop bit at bit 2), then TIP(ip) with IPBytes 001.
func appendIter(b []byte, ip uint64) []byte {
	b = append(b, tnt1Taken)
	return appendIP(b, pktTIP, ipBytes16, ip)
}

// tnt1Taken is a short TNT of one taken branch; iterLen an iteration's
// bytes; itersPerTiming how many follow each TSC/MTC pair of a loop span.
const (
	tnt1Taken      = 0x06
	iterLen        = 1 + 3
	itersPerTiming = 2
)

// psbPlusFUPLen is a PSB+ while tracing: PSB, TSC, MODE.Exec, FUP, PSBEND.
const psbPlusFUPLen = psbLen + 8 + 2 + 7 + 2

// AppendTiming appends n bytes of timing packets while tracing is off:
// TSC and MTC (times from tscAt), a PSB+ where psbAt asks, PAD to n.
func AppendTiming(b []byte, n int, tscAt func(off int) uint64, psbAt func(off int) bool) []byte {
	start := len(b)
	for {
		off := len(b) - start
		if psbAt != nil && psbAt(off) {
			if off+psbPlusLen > n {
				break
			}
			b = AppendPSBPlus(b, tscAt(off))
			continue
		}
		if off+tscMTCLen > n {
			break
		}
		t := tscAt(off)
		b = AppendTSC(b, t)
		b = append(b, pktMTC, byte(t/TSCPerNs/mtcPeriodNs))
	}
	return append(b, make([]byte, start+n-len(b))...)
}

// psbPlusLen is AppendPSBPlus's length.
const psbPlusLen = psbLen + 8 + 2 // PSB, TSC, PSBEND

// tscMTCLen is a TSC packet and an MTC packet.
const tscMTCLen = 8 + 2

// mtcPeriodNs is the MTC period the default config asks for (mtc_period=3:
// every 2^3 ticks of a 25 MHz crystal clock).
const mtcPeriodNs = 8 * 40

// TraceSpanLen is the least length of AppendTraceSpan's packets.
func TraceSpanLen(psb bool) int {
	n := 8 + 2 + 7 + 3 + 1
	if psb {
		n += psbLen + 2
	}
	return n
}

// Kind is a decoded packet's type.
type Kind uint8

// Packet kinds Decode reports.
const (
	KindPAD Kind = iota
	KindPSB
	KindPSBEND
	KindTSC
	KindMTC
	KindCYC
	KindMODE
	KindTNT
	KindTIP
	KindTIPPGE
	KindTIPPGD
	KindFUP
	KindOVF
	KindCBR
	KindPIP
	KindTMA
	KindVMCS
)

// Packet is one decoded Intel PT packet.
type Packet struct {
	Kind Kind
	Off  int    // where it starts in the decoded bytes
	Len  int    // its length
	IP   uint64 // TIP family: the IP (last IP applied); 0 when suppressed
	NoIP bool   // TIP family: IPBytes 000
	TSC  uint64 // TSC
	Raw  uint64 // other payloads (MODE, MTC, CBR, ...)
}

// ErrTruncated is a packet cut by the end of the bytes.
var ErrTruncated = errors.New("truncated packet")

// Decoder decodes a stream of Intel PT packets, keeping the last IP for
// IP compression (reset by PSB).
// tools/perf/util/intel-pt-decoder/intel-pt-pkt-decoder.c: intel_pt_get_packet()
type Decoder struct {
	lastIP uint64
}

// Next decodes the packet at the start of b.
func (d *Decoder) Next(b []byte) (Packet, error) {
	if len(b) == 0 {
		return Packet{}, ErrTruncated
	}
	h := b[0]
	need := func(n int) error {
		if len(b) < n {
			return ErrTruncated
		}
		return nil
	}
	le := binary.LittleEndian
	switch {
	case h == pktPAD:
		return Packet{Kind: KindPAD, Len: 1}, nil
	case h == pktExt:
		if err := need(2); err != nil {
			return Packet{}, err
		}
		switch b[1] {
		case pktExtPSB:
			if err := need(psbLen); err != nil {
				return Packet{}, err
			}
			if [psbLen]byte(b[:psbLen]) != PSB {
				return Packet{}, fmt.Errorf("bad PSB")
			}
			d.lastIP = 0
			return Packet{Kind: KindPSB, Len: psbLen}, nil
		case pktExtEND:
			return Packet{Kind: KindPSBEND, Len: 2}, nil
		case pktExtOVF:
			return Packet{Kind: KindOVF, Len: 2}, nil
		case pktExtCBR:
			if err := need(4); err != nil {
				return Packet{}, err
			}
			return Packet{Kind: KindCBR, Len: 4, Raw: uint64(b[2])}, nil
		case pktExtLTNT:
			if err := need(8); err != nil {
				return Packet{}, err
			}
			return Packet{Kind: KindTNT, Len: 8, Raw: le.Uint64(b) >> 16}, nil
		case pktExtPIP:
			if err := need(8); err != nil {
				return Packet{}, err
			}
			return Packet{Kind: KindPIP, Len: 8, Raw: le.Uint64(b) >> 16}, nil
		case pktExtTMA:
			if err := need(7); err != nil {
				return Packet{}, err
			}
			return Packet{Kind: KindTMA, Len: 7}, nil
		case pktExtVMCS:
			if err := need(7); err != nil {
				return Packet{}, err
			}
			return Packet{Kind: KindVMCS, Len: 7}, nil
		}
		return Packet{}, fmt.Errorf("unknown extended packet 02 %02x", b[1])
	case h == pktTSC:
		if err := need(8); err != nil {
			return Packet{}, err
		}
		return Packet{Kind: KindTSC, Len: 8, TSC: le.Uint64(b[0:8]) >> 8}, nil // the 7 bytes after the header, little endian
	case h == pktMTC:
		if err := need(2); err != nil {
			return Packet{}, err
		}
		return Packet{Kind: KindMTC, Len: 2, Raw: uint64(b[1])}, nil
	case h == pktMODE:
		if err := need(2); err != nil {
			return Packet{}, err
		}
		return Packet{Kind: KindMODE, Len: 2, Raw: uint64(b[1])}, nil
	case h&3 == 3: // CYC: more bytes while bit 2 (then bit 0) is set
		n := 1
		for ext := h&4 != 0; ext; n++ {
			if err := need(n + 1); err != nil {
				return Packet{}, err
			}
			ext = b[n]&1 != 0
		}
		return Packet{Kind: KindCYC, Len: n}, nil
	case h&1 == 0: // short TNT (not PAD, not 02)
		return Packet{Kind: KindTNT, Len: 1, Raw: uint64(h)}, nil
	}
	var kind Kind
	switch h & 0x1f {
	case pktTIP:
		kind = KindTIP
	case pktTIPPGE:
		kind = KindTIPPGE
	case pktTIPPGD:
		kind = KindTIPPGD
	case pktFUP:
		kind = KindFUP
	default:
		return Packet{}, fmt.Errorf("unknown packet %02x", h)
	}
	ipb := h >> 5
	n := ipPayload(ipb)
	if n < 0 {
		return Packet{}, fmt.Errorf("packet %02x: reserved IPBytes %d", h, ipb)
	}
	if err := need(1 + n); err != nil {
		return Packet{}, err
	}
	var v [8]byte
	copy(v[:], b[1:1+n])
	x := le.Uint64(v[:])
	p := Packet{Kind: kind, Len: 1 + n}
	switch ipb {
	case 0:
		p.NoIP = true
		return p, nil
	case 1:
		x = d.lastIP&^0xffff | x
	case 2:
		x = d.lastIP&^0xffffffff | x
	case 3:
		x = uint64(int64(x<<16) >> 16)
	case 4:
		x = d.lastIP&^0xffffffffffff | x
	}
	d.lastIP = x
	p.IP = x
	return p, nil
}

// Decode decodes b from its first PSB on (the bytes before it, where the
// decoder is not synchronized, are skipped), as perf's decoder does. A
// packet that does not decode stops the walk until the next PSB; errs
// counts those (each one an instruction trace error of perf's). A packet
// cut by the end of b ends the walk.
func Decode(b []byte) (ps []Packet, errs int) {
	ps, errs, _ = decode(b)
	return ps, errs
}

// decode is Decode, and whether b ends inside a packet (cut).
func decode(b []byte) (ps []Packet, errs int, cut bool) {
	errs, cut = eachPacket(b, func(p *Packet) { ps = append(ps, *p) })
	return ps, errs, cut
}

// eachPacket is decode handing each packet to fn as it goes (a walk of
// megabytes of trace keeps no slice of its packets): the number of packets
// that did not decode, and whether b ends inside a packet.
func eachPacket(b []byte, fn func(p *Packet)) (errs int, cut bool) {
	var d Decoder
	var p Packet // one for the walk: fn's pointer would move a packet per loop to the heap
	i := syncPSB(b, 0)
	for i < len(b) {
		var err error
		p, err = d.Next(b[i:])
		if errors.Is(err, ErrTruncated) {
			cut = true
			break // the end of the data: the rest comes with the next buffer, if any
		}
		if err != nil {
			errs++
			i = syncPSB(b, i+1)
			continue
		}
		p.Off = i
		fn(&p)
		i += p.Len
	}
	return errs, cut
}

// syncPSB is the offset of the first PSB at or after from, len(b) if none.
func syncPSB(b []byte, from int) int {
	for i := from; i+psbLen <= len(b); i++ {
		if b[i] == pktExt && [psbLen]byte(b[i:i+psbLen]) == PSB {
			return i
		}
	}
	return len(b)
}
