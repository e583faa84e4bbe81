package perftool

import (
	"perfsim/pmu"
	"perfsim/pmu/pt"
)

// ptDecode decodes intel_pt AUX data as Intel PT packets and walks them
// through the synthetic images' code (pt.Follow, from the first PSB): a
// branch for each TIP.PGE (tracing enabled at an IP: "tr strt" in perf
// script --itrace=b), at the time of the TSC before it, its mode from the
// IP, with the bytes of the packets up to the next TIP.PGE and the loop
// iterations its TNT bits walk; bad counts the packets that do not decode
// and those the walk cannot follow, which are perf's instruction trace
// errors on a torn stream.
// tools/perf/util/intel-pt-decoder/intel-pt-decoder.c: intel_pt_decode()
func ptDecode(b []byte) ([]AuxBranch, int) {
	tr := pt.Follow(b, pmu.ImageLoopAt)
	out := make([]AuxBranch, 0, len(tr.Spans))
	for _, s := range tr.Spans {
		out = append(out, AuxBranch{Time: s.TSC / pt.TSCPerNs, User: s.IP < 1<<63, IP: s.IP, Bytes: s.Bytes, Iterations: s.Iterations})
	}
	return out, tr.Errors
}

func init() { RegisterAuxDecoder(intelPT.name, ptDecode) }
