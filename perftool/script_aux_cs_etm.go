package perftool

import (
	"sort"

	"perfsim/pmu"
	"perfsim/pmu/coresight"
	"perfsim/rb"
	"perfsim/uapi"
)

// CSETMFollow walks the cs_etm trace of the perf.data through the synthetic
// AArch64 images (coresight.LoopCode) as perf's cs-etm decoder has OpenCSD
// walk it, per trace ID: each PERF_RECORD_AUXTRACE is decoded from a reset
// decoder, formatter frames (ETR; raw trace when the AUX records say
// PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW, a TRBE: the buffer CPU's trace ID) are
// split by source ID, and a barrier (four FSYNCs) resets the decoder. Memory
// is where perf finds it: a kernel address in vmlinux, a user one in the
// image of an exec'd file the thread's process maps at pmu.UserText (its
// MMAP2).
// tools/perf/util/cs-etm.c: cs_etm__get_data_block(), cs_etm__mem_access(); cs-etm-decoder.c: cs_etm_decoder__process_data_block()
func (d *PerfData) CSETMFollow() map[int]*coresight.Trace {
	d.Parsed()
	raw := false
	pidOf := map[uint32]uint32{} // tid -> pid
	mapped := map[uint32]bool{}  // pids mapping an image's text
	for i := range d.Records {
		r := &d.Records[i]
		if a, ok := decodedSideband[*rb.Aux](r); ok && a.Flags&uapi.PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW != 0 {
			raw = true
		}
		if c, ok := decodedSideband[*rb.Comm](r); ok {
			pidOf[c.Tid] = c.Pid
		}
		if t, ok := decodedSideband[*rb.Task](r); ok && t.Fork {
			pidOf[t.Tid] = t.Pid
		}
		if m, ok := decodedSideband[*rb.Mmap](r); ok && m.Start == pmu.UserText && m.Prot&4 != 0 && len(m.Filename) > 0 && m.Filename[0] == '/' {
			mapped[m.Pid] = true
			pidOf[m.Tid] = m.Pid
		}
	}
	code := func(c coresight.Context, ip uint64) bool {
		if !pmu.ImageLoopAt(ip) {
			return false
		}
		if ip >= pmu.KernelText {
			return true
		}
		pid, ok := pidOf[c.CID]
		return ok && mapped[pid]
	}
	out := map[int]*coresight.Trace{}
	trace := func(id int) *coresight.Trace {
		if out[id] == nil {
			out[id] = &coresight.Trace{}
		}
		return out[id]
	}
	for _, c := range d.Auxtrace() {
		if raw {
			trace(int(csTraceID(int(int32(c.Ev.CPU))))).Follow(c.Data, code)
			continue
		}
		streams := map[byte][]byte{}
		follow := func() {
			ids := make([]int, 0, len(streams))
			for id := range streams {
				ids = append(ids, int(id))
			}
			sort.Ints(ids)
			for _, id := range ids {
				trace(id).Follow(streams[byte(id)], code)
			}
			clear(streams)
		}
		var df coresight.Deformatter // the ID in force carries from frame to frame
		for fo := 0; fo+coresight.FrameSize <= len(c.Data); fo += coresight.FrameSize {
			segs, err := df.Frame(c.Data[fo : fo+coresight.FrameSize])
			if err != nil { // a barrier: OCSD_DFRMTR_RESET_ON_4X_FSYNC
				follow()
				continue
			}
			for _, s := range segs {
				streams[s.ID] = append(streams[s.ID], s.Data...)
			}
		}
		follow()
	}
	return out
}
