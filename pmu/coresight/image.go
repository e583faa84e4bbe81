package coresight

import "perfsim/pmu"

// The synthetic images on an Arm machine (the one a cs_etm session runs
// on): every function of pmu's images (pmu/image.go: the same slots, the
// same addresses) is the AArch64 loop
//
//	f:	adds x0, x0, #1		// b1000400
//		b.ne f			// 54ffffe1: a conditional branch back, taken (an E atom)
//		brk #0			// d4200000 (never reached: an N atom falls into it)
//		brk #0
//
// so each E atom the ETMv4 encoder writes (atom format 3, EEE) is one
// iteration at the address of the last address packet: LoopInsns
// instructions, LoopBranches taken branch. perftool writes the images as
// EM_AARCH64 ELF files for OpenCSD to read through perf (cs_etm__mem_access()).
const (
	LoopInsns    = 2 // instructions per E atom: adds, b.ne
	LoopBranches = 1 // taken branches per E atom: b.ne
)

// LoopCode is the code of every function of the AArch64 images.
var LoopCode = [pmu.ImageSlotSize]byte{
	0x00, 0x04, 0x00, 0xb1, // adds x0, x0, #1
	0xe1, 0xff, 0xff, 0x54, // b.ne f (imm19 -1)
	0x00, 0x00, 0x20, 0xd4, // brk #0
	0x00, 0x00, 0x20, 0xd4, // brk #0
}

// LoopFill is what fills the AArch64 images' text outside the functions: brk #0.
var LoopFill = []byte{0x00, 0x00, 0x20, 0xd4}
