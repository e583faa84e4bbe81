package perftool

import (
	"bytes"
	"encoding/binary"

	"perfsim/sched"
	"perfsim/uapi"
)

// intel_pt's auxtrace_record callbacks (tools/perf/arch/x86/util/intel-pt.c).

// ptSnapshotRef is struct intel_pt_snapshot_ref: a copy of the bytes before
// head at the last snapshot, or the first-wrap flag.
type ptSnapshotRef struct {
	refBuf    []byte
	refOffset uint64
	wrapped   bool
}

// ptRecording is the part of struct intel_pt_recording the snapshot path keeps.
type ptRecording struct {
	initDone       bool
	refBufSize     uint64
	psbPeriodBytes uint64 // intel_pt_psb_period(); 0: unknown
}

func (ss *Session) ptRecording() *ptRecording {
	if ss.aux.pt == nil {
		ss.aux.pt = &ptRecording{}
	}
	return ss.aux.pt
}

// ptSnapshotRefBufSize decides whether wrap detection compares a reference
// copy (snapshots over 64 KiB) or looks for the first wrap.
// tools/perf/arch/x86/util/intel-pt.c: intel_pt_snapshot_ref_buf_size()
func ptSnapshotRefBufSize(snapshotSize, bufSize, psbPeriod uint64) uint64 {
	const maxSize = 256 * 1024
	if snapshotSize <= 64*1024 {
		return 0
	}
	sz := psbPeriod * 2
	if sz == 0 || sz > maxSize {
		sz = maxSize
	}
	if sz >= bufSize || sz >= snapshotSize/2 {
		return 0
	}
	return sz
}

// ptFirstWrap reports trace in the buffer's last 512 u64s (the pages start zeroed).
// tools/perf/arch/x86/util/intel-pt.c: intel_pt_first_wrap()
func ptFirstWrap(data []byte) bool {
	b := len(data) >> 3
	a := max(b-512, 0)
	for i := a; i < b; i++ {
		if binary.LittleEndian.Uint64(data[8*i:]) != 0 {
			return true
		}
	}
	return false
}

// ptCompareRef reports a wrap: head inside the reference window, or the
// window's bytes changed since the last snapshot.
// tools/perf/arch/x86/util/intel-pt.c: intel_pt_compare_ref(), intel_pt_compare_buffers()
func ptCompareRef(ref []byte, refOffset, bufSize uint64, data []byte, head uint64) bool {
	refSize := uint64(len(ref))
	refEnd := refOffset + refSize
	if refEnd > bufSize {
		if head > refOffset || head < refEnd-bufSize {
			return true
		}
	} else if head > refOffset && head < refEnd {
		return true
	}
	if refEnd <= bufSize {
		return !bytes.Equal(ref, data[refOffset:refEnd])
	}
	part := refEnd - bufSize
	return !bytes.Equal(ref[:part], data[refOffset:]) || !bytes.Equal(ref[part:], data[:refSize-part])
}

// ptCopyRef copies the refSize bytes before head into ref.
// tools/perf/arch/x86/util/intel-pt.c: intel_pt_copy_ref()
func ptCopyRef(ref []byte, data []byte, head uint64) {
	n := uint64(len(ref))
	if head >= n {
		copy(ref, data[head-n:head])
		return
	}
	copy(ref, data[:head])
	copy(ref[head:], data[uint64(len(data))-(n-head):])
}

// ptFindSnapshot turns the snapshot-mode aux_head (an offset inside the
// buffer) into the full-trace form __auxtrace_mmap__read() expects (old <
// head): once the buffer has wrapped, the whole buffer ending at head.
// tools/perf/arch/x86/util/intel-pt.c: intel_pt_find_snapshot()
func ptFindSnapshot(ss *Session, mm *SessionAuxMmap, bytes func() []byte, head, old *uint64) error {
	ptr := ss.ptRecording()
	if !ptr.initDone { // intel_pt_snapshot_init()
		ptr.initDone = true
		ptr.psbPeriodBytes = ss.ptPSBPeriod()
		ptr.refBufSize = ptSnapshotRefBufSize(ss.R.auxSnapshotSize(), mm.Len, ptr.psbPeriodBytes)
	}
	ref, _ := mm.Priv.(*ptSnapshotRef)
	if ref == nil {
		ref = &ptSnapshotRef{}
		mm.Priv = ref
	}
	var wrapped bool
	if ptr.refBufSize != 0 {
		if ref.refBuf == nil { // intel_pt_alloc_snapshot_ref()
			ref.refBuf = make([]byte, ptr.refBufSize)
			ref.refOffset = mm.Len - ptr.refBufSize
		}
		// intel_pt_wrapped()
		data := bytes()
		wrapped = ptCompareRef(ref.refBuf, ref.refOffset, mm.Len, data, *head)
		ptCopyRef(ref.refBuf, data, *head)
	} else {
		wrapped = ref.wrapped
		if !wrapped && ptFirstWrap(bytes()) {
			ref.wrapped, wrapped = true, true
		}
	}
	// "In full trace mode 'head' continually increases. However in snapshot
	// mode 'head' is an offset within the buffer."
	if wrapped {
		*old = *head
		*head += mm.Len
	} else {
		*old &= mm.Mask
		if *old > *head {
			*head += mm.Len
		}
	}
	return nil
}

// ptPSBPeriod is the PSB period in bytes from the intel_pt evsel's
// psb_period term (config bits 24-27): 2^(psb_period+11).
// tools/perf/arch/x86/util/intel-pt.c: intel_pt_psb_period()
func (ss *Session) ptPSBPeriod() uint64 {
	for i := range ss.R.Evsels {
		if ss.R.Evsels[i].PMU == intelPT.name {
			f := intelPT.formats["psb_period"]
			return 1 << ((ss.R.Evsels[i].Attr.Config>>f.lo)&0xf + 11)
		}
	}
	return 0
}

// ptSnapshotToggle is intel_pt_snapshot_start() (disable) and
// intel_pt_snapshot_finish() (enable): evsel__disable/enable of the intel_pt evsel.
// tools/perf/arch/x86/util/intel-pt.c: intel_pt_snapshot_start(), intel_pt_snapshot_finish()
func ptSnapshotToggle(cmd uint64) func(ss *Session, t *sched.Task) error {
	return func(ss *Session, t *sched.Task) error {
		for i := range ss.R.Evsels {
			if ss.R.Evsels[i].PMU == intelPT.name {
				return ss.evselIoctl(t, i, cmd)
			}
		}
		return uapi.EINVAL
	}
}

// ptReference is intel_pt_reference(): rdtsc(), here the simulated clock.
// tools/perf/arch/x86/util/intel-pt.c: intel_pt_reference()
func ptReference(ss *Session) uint64 { return uint64(ss.S.M.Now()) }

func init() {
	RegisterAuxtraceRecord(intelPT.name, AuxtraceRecordOps{
		FindSnapshot:   ptFindSnapshot,
		SnapshotStart:  ptSnapshotToggle(uapi.PERF_EVENT_IOC_DISABLE),
		SnapshotFinish: ptSnapshotToggle(uapi.PERF_EVENT_IOC_ENABLE),
		ReadFinish:     auxReadFinish, // ptr->itr.read_finish = auxtrace_record__read_finish
		Reference:      ptReference,
	})
}
