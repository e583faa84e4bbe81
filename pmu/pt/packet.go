package pt

import "encoding/binary"

// PacketSize is the size of one synthetic trace packet.
const PacketSize = 16

// Packet is one synthetic trace packet: a branch the CPU took in mode at time.
type Packet struct {
	User bool
	Seq  uint16
	Tid  uint32
	Time uint64
}

// packetMagic is the first byte of a packet (a PSB stand-in).
const packetMagic = 0x50

// AppendPacket appends the bytes of p.
func AppendPacket(b []byte, p Packet) []byte {
	mode := byte(2)
	if p.User {
		mode = 1
	}
	b = append(b, packetMagic, mode)
	b = binary.LittleEndian.AppendUint16(b, p.Seq)
	b = binary.LittleEndian.AppendUint32(b, p.Tid)
	return binary.LittleEndian.AppendUint64(b, p.Time)
}

// DecodePackets decodes the whole packets in b (a PERF_RECORD_AUX range or an
// AUX sample); bad reports bytes that are not packets (zero padding, a torn
// copy). It is the simulator's stand-in for intel_pt_get_packet().
func DecodePackets(b []byte) (ps []Packet, bad int) {
	for len(b) >= PacketSize {
		if b[0] != packetMagic || (b[1] != 1 && b[1] != 2) {
			bad += PacketSize
			b = b[PacketSize:]
			continue
		}
		ps = append(ps, Packet{User: b[1] == 1, Seq: binary.LittleEndian.Uint16(b[2:]),
			Tid: binary.LittleEndian.Uint32(b[4:]), Time: binary.LittleEndian.Uint64(b[8:])})
		b = b[PacketSize:]
	}
	return ps, bad + len(b)
}
