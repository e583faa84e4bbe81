package perftool

import (
	"perfsim/sim"
)

// Values of tool knob cs-etm-find-snapshot.
const (
	FindSnapshotRemoved = "removed"          // today: __auxtrace_mmap__read() alone (2f01c200d440)
	FindSnapshotPre     = "pre-2f01c200d440" // cs_etm_find_snapshot() as of e45c48a9a4d2 (2019) until v5.15
)

// ToolKnobFindSnapshot is the name of the cs-etm snapshot tool knob.
const ToolKnobFindSnapshot = "cs-etm-find-snapshot"

func init() {
	RegisterToolKnob(sim.KnobSpec{
		Name:   ToolKnobFindSnapshot,
		Values: []string{FindSnapshotRemoved, FindSnapshotPre},
		Help: "how perf record -S reads a cs_etm AUX buffer on SIGUSR2: removed (today) lets __auxtrace_mmap__read() take " +
			"(head - old) modulo the buffer size, clamped to the snapshot size; pre-2f01c200d440 first ran cs_etm_find_snapshot(), " +
			"which, once the buffer had wrapped (head >= size, or non-zero bytes in its last 512), took the whole buffer " +
			"(old = head - size) on that and every later snapshot",
		Source: "2f01c200d440 perf cs-etm: Remove callback cs_etm_find_snapshot() (Leo Yan, v5.15; [PATCH v2 2/3] 2021-07-01); " +
			"the callback came from e45c48a9a4d2 perf cs-etm: Properly set the value of 'old' and 'head' in snapshot mode (2019)",
		Package: "perftool",
	})
}

// AuxtraceMmap is the snapshot reader's part of struct auxtrace_mmap for one
// AUX buffer: its index and CPU, its size (len, mask) and mm->prev, plus
// cs-etm's per-index wrapped flag (cs_etm_recording::wrapped[idx]).
type AuxtraceMmap struct {
	Idx     int
	CPU     int
	Len     uint64
	Prev    uint64
	wrapped bool
}

// AuxtraceRead is what one snapshot read of a buffer produced: the
// PERF_RECORD_AUXTRACE's offset and the bytes it carries (empty when
// old == head).
type AuxtraceRead struct {
	Offset uint64
	Data   []byte
}

// csEtmBufferHasWrapped is cs_etm_buffer_has_wrapped(): head past the end,
// or trace in the buffer's last 512 bytes (mmap'ed pages start zeroed).
// tools/perf/arch/arm/util/cs-etm.c: cs_etm_buffer_has_wrapped() (before 2f01c200d440)
func csEtmBufferHasWrapped(buffer []byte, head uint64) bool {
	size := uint64(len(buffer))
	if head >= size {
		return true
	}
	watermark := size - 512
	if head > watermark {
		watermark = head
	}
	watermark &^= 7 // 64-bit transactions
	for _, b := range buffer[watermark:] {
		if b != 0 {
			return true
		}
	}
	return false
}

// csEtmFindSnapshot is cs_etm_find_snapshot(): once the buffer has wrapped,
// take all of it.
// tools/perf/arch/arm/util/cs-etm.c: cs_etm_find_snapshot() (before 2f01c200d440)
func (mm *AuxtraceMmap) csEtmFindSnapshot(data []byte, head, old *uint64) {
	if !mm.wrapped && csEtmBufferHasWrapped(data, *head) {
		mm.wrapped = true
	}
	if !mm.wrapped {
		return
	}
	if *head >= mm.Len {
		*old = *head - mm.Len
	} else {
		*head += mm.Len
		*old = *head - mm.Len
	}
}

// ReadSnapshot is __auxtrace_mmap__read(snapshot = true) for a cs_etm buffer
// whose user page says aux_head = head and whose pages are data:
// cs_etm_find_snapshot() first under knob pre-2f01c200d440, then the size
// from the masked head and old, clamped to snapshotSize, copied as one or two
// pieces ending at head. mm.Prev moves to head.
// tools/perf/util/auxtrace.c: __auxtrace_mmap__read()
func (mm *AuxtraceMmap) ReadSnapshot(head uint64, data []byte, snapshotSize uint64, findSnapshot string) AuxtraceRead {
	old := mm.Prev
	if findSnapshot == FindSnapshotPre {
		mm.csEtmFindSnapshot(data, &head, &old)
	}
	if old == head || mm.Len == 0 || uint64(len(data)) != mm.Len {
		return AuxtraceRead{}
	}
	mask := mm.Len - 1
	headOff, oldOff := head&mask, old&mask
	var size uint64
	if headOff > oldOff {
		size = headOff - oldOff
	} else {
		size = mm.Len - (oldOff - headOff)
	}
	if snapshotSize != 0 && size > snapshotSize {
		size = snapshotSize
	}
	offset := head - size
	var out []byte
	if size > headOff {
		len1 := size - headOff
		out = append(append(out, data[mm.Len-len1:]...), data[:headOff]...)
	} else {
		out = append(out, data[headOff-size:headOff]...)
	}
	mm.Prev = head
	return AuxtraceRead{Offset: offset, Data: out}
}
