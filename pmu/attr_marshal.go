package pmu

import (
	"encoding/binary"

	"perfsim/uapi"
)

// attrFlagBits lists the bitfield word at offset 40 in bit order, one entry per
// single-bit C bitfield (precise_ip, bits 15-16, is handled apart).
func (a *Attr) attrFlagBits() []struct {
	bit uint
	p   *bool
} {
	return []struct {
		bit uint
		p   *bool
	}{
		{0, &a.Disabled}, {1, &a.Inherit}, {2, &a.Pinned}, {3, &a.Exclusive},
		{4, &a.ExcludeUser}, {5, &a.ExcludeKernel}, {6, &a.ExcludeHV}, {7, &a.ExcludeIdle},
		{8, &a.Mmap}, {9, &a.Comm}, {10, &a.Freq}, {11, &a.InheritStat},
		{12, &a.EnableOnExec}, {13, &a.Task}, {14, &a.Watermark},
		{17, &a.MmapData}, {18, &a.SampleIDAll}, {19, &a.ExcludeHost}, {20, &a.ExcludeGuest},
		{21, &a.ExcludeCallchainKernel}, {22, &a.ExcludeCallchainUser}, {23, &a.Mmap2},
		{24, &a.CommExec}, {25, &a.UseClockid}, {26, &a.ContextSwitch}, {27, &a.WriteBackward},
		{28, &a.Namespaces}, {29, &a.Ksymbol}, {30, &a.BPFEvent}, {31, &a.AuxOutput},
		{32, &a.Cgroup}, {33, &a.TextPoke}, {34, &a.BuildID}, {35, &a.InheritThread},
		{36, &a.RemoveOnExec}, {37, &a.Sigtrap}, {38, &a.DeferCallchain}, {39, &a.DeferOutput},
	}
}

// Flags packs the bitfield word at offset 40 as the kernel's little-endian
// bitfield layout does (first member in bit 0). PreciseIP and Reserved1 are
// masked to their widths (2 and 24 bits).
func (a *Attr) Flags() uint64 {
	var w uint64
	for _, f := range a.attrFlagBits() {
		if *f.p {
			w |= 1 << f.bit
		}
	}
	w |= uint64(a.PreciseIP&3) << 15
	w |= uint64(a.Reserved1&0xffffff) << 40
	return w
}

// SetFlags unpacks the bitfield word at offset 40.
func (a *Attr) SetFlags(w uint64) {
	for _, f := range a.attrFlagBits() {
		*f.p = w&(1<<f.bit) != 0
	}
	a.PreciseIP = uint8(w>>15) & 3
	a.Reserved1 = uint32(w >> 40)
}

// Marshal returns the AttrSize (136) bytes of struct perf_event_attr in the
// little-endian uapi layout. The size field is written as a.Size; a caller
// emulating an older ABI passes b[:a.Size].
func (a *Attr) Marshal() []byte {
	b := make([]byte, uapi.AttrSize)
	le := binary.LittleEndian
	le.PutUint32(b[0:], a.Type)
	le.PutUint32(b[4:], a.Size)
	le.PutUint64(b[8:], a.Config)
	le.PutUint64(b[16:], a.SamplePeriod)
	le.PutUint64(b[24:], a.SampleType)
	le.PutUint64(b[32:], a.ReadFormat)
	le.PutUint64(b[40:], a.Flags())
	le.PutUint32(b[48:], a.WakeupEvents)
	le.PutUint32(b[52:], a.BPType)
	le.PutUint64(b[56:], a.Config1)
	le.PutUint64(b[64:], a.Config2) // VER1 = 72
	le.PutUint64(b[72:], a.BranchSampleType)
	le.PutUint64(b[80:], a.SampleRegsUser) // VER2 = 80
	le.PutUint32(b[88:], a.SampleStackUser)
	le.PutUint32(b[92:], uint32(a.Clockid))
	le.PutUint64(b[96:], a.SampleRegsIntr) // VER3 = 96
	le.PutUint32(b[104:], a.AuxWatermark)  // VER4 = 104
	le.PutUint16(b[108:], a.SampleMaxStack)
	le.PutUint16(b[110:], a.Reserved2)
	le.PutUint32(b[112:], a.AuxSampleSize) // VER5 = 112
	le.PutUint32(b[116:], a.AuxAction())
	le.PutUint64(b[120:], a.SigData) // VER6 = 120
	le.PutUint64(b[128:], a.Config3) // VER7 = 128, VER8 = 136
	return b
}

// decodeAttr reads a full AttrSize buffer (already zero-extended).
func decodeAttr(b []byte) Attr {
	le := binary.LittleEndian
	var a Attr
	a.Type = le.Uint32(b[0:])
	a.Size = le.Uint32(b[4:])
	a.Config = le.Uint64(b[8:])
	a.SamplePeriod = le.Uint64(b[16:])
	a.SampleType = le.Uint64(b[24:])
	a.ReadFormat = le.Uint64(b[32:])
	a.SetFlags(le.Uint64(b[40:]))
	a.WakeupEvents = le.Uint32(b[48:])
	a.BPType = le.Uint32(b[52:])
	a.Config1 = le.Uint64(b[56:])
	a.Config2 = le.Uint64(b[64:])
	a.BranchSampleType = le.Uint64(b[72:])
	a.SampleRegsUser = le.Uint64(b[80:])
	a.SampleStackUser = le.Uint32(b[88:])
	a.Clockid = int32(le.Uint32(b[92:]))
	a.SampleRegsIntr = le.Uint64(b[96:])
	a.AuxWatermark = le.Uint32(b[104:])
	a.SampleMaxStack = le.Uint16(b[108:])
	a.Reserved2 = le.Uint16(b[110:])
	a.AuxSampleSize = le.Uint32(b[112:])
	a.SetAuxAction(le.Uint32(b[116:]))
	a.SigData = le.Uint64(b[120:])
	a.Config3 = le.Uint64(b[128:])
	return a
}

// UnmarshalAttr decodes user memory b the way perf_copy_attr() copies it,
// without perf_copy_attr's semantic checks (CopyAttr adds those):
//   - fewer than 8 bytes to read the size from: EFAULT (get_user fails);
//   - size 0 means PERF_ATTR_SIZE_VER0 (the "ABI compatibility quirk");
//   - size < VER0 or size > PAGE_SIZE: E2BIG;
//   - fewer than size bytes readable: EFAULT (copy_struct_from_user);
//   - size larger than AttrSize with a non-zero byte past AttrSize: E2BIG
//     (copy_struct_from_user -> check_zeroed_user);
//   - size smaller than AttrSize: the missing tail reads as zero.
//
// On E2BIG the kernel also writes sizeof(*attr) back to uattr->size
// (err_size: put_user); the caller models that by storing AttrSize.
// The returned Attr has Size set to the effective size, as the kernel's copy.
//
// kernel/events/core.c: perf_copy_attr() (the copy half)
func UnmarshalAttr(b []byte) (Attr, error) {
	if len(b) < 8 {
		return Attr{}, uapi.EFAULT
	}
	size := binary.LittleEndian.Uint32(b[4:])
	if size == 0 {
		size = uapi.PERF_ATTR_SIZE_VER0
	}
	if size < uapi.PERF_ATTR_SIZE_VER0 || size > PageSize {
		return Attr{}, uapi.E2BIG
	}
	if uint64(len(b)) < uint64(size) {
		return Attr{}, uapi.EFAULT
	}
	for _, c := range b[min(int(size), uapi.AttrSize):size] {
		if c != 0 {
			return Attr{}, uapi.E2BIG
		}
	}
	full := make([]byte, uapi.AttrSize)
	copy(full, b[:min(int(size), uapi.AttrSize)])
	a := decodeAttr(full)
	a.Size = size
	return a, nil
}
