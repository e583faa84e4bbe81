package perftool

import "perfsim/pmu/pt"

// ptDecode decodes intel_pt AUX data with the simulator's packet format: one
// synthetic branch per packet (not intel_pt_get_packet(): see pmu/pt).
func ptDecode(b []byte) ([]AuxBranch, int) {
	ps, bad := pt.DecodePackets(b)
	out := make([]AuxBranch, len(ps))
	for i, p := range ps {
		out[i] = AuxBranch{Time: p.Time, Tid: p.Tid, User: p.User, Seq: p.Seq}
	}
	return out, bad
}

func init() { RegisterAuxDecoder(intelPT.name, ptDecode) }
