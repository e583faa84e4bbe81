package coresight

import "encoding/binary"

// FrameSize is the size of one synthetic trace frame: a CoreSight formatter
// frame is 16 bytes.
const FrameSize = 16

// frameMagic marks a data frame; barrier frames are the ETR's barrier packet.
const frameMagic = 0xE7

// barrierFrame is CORESIGHT_BARRIER_PKT: four words 0xffffffff, 0xffffffff,
// 0xffffffff, 0x7fffffff (the ETR inserts one where trace was lost).
// drivers/hwtracing/coresight/coresight-priv.h: CORESIGHT_BARRIER_PKT_SIZE
var barrierFrame = [FrameSize]byte{
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
}

// Frame is one decoded data frame.
type Frame struct {
	CPU    int    // the ETM that produced it
	Period int    // 1-based: the n-th etm_event_start() of the session
	Index  uint32 // frame number within its period
	Seq    uint64 // session-wide emission number
}

// putFrame encodes f at b[:FrameSize].
func putFrame(b []byte, f Frame) {
	b[0] = frameMagic
	b[1] = byte(f.CPU)
	binary.LittleEndian.PutUint16(b[2:], uint16(f.Period))
	binary.LittleEndian.PutUint32(b[4:], f.Index)
	binary.LittleEndian.PutUint64(b[8:], f.Seq)
}

// FrameKind says what a 16-byte slot of a trace holds.
type FrameKind uint8

// Frame kinds.
const (
	KindData    FrameKind = iota // a trace frame
	KindBarrier                  // the ETR's barrier packet (trace was lost before it)
	KindZero                     // never written (zeroed AUX pages)
	KindGarbage                  // anything else (a torn or misaligned frame)
)

// DecodeFrame decodes one slot.
func DecodeFrame(b []byte) (Frame, FrameKind) {
	if len(b) < FrameSize {
		return Frame{}, KindGarbage
	}
	if [FrameSize]byte(b[:FrameSize]) == barrierFrame {
		return Frame{}, KindBarrier
	}
	if b[0] == frameMagic {
		return Frame{
			CPU:    int(b[1]),
			Period: int(binary.LittleEndian.Uint16(b[2:])),
			Index:  binary.LittleEndian.Uint32(b[4:]),
			Seq:    binary.LittleEndian.Uint64(b[8:]),
		}, KindData
	}
	for _, x := range b[:FrameSize] {
		if x != 0 {
			return Frame{}, KindGarbage
		}
	}
	return Frame{}, KindZero
}
