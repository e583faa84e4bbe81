package perftool

import "perfsim/pmu/pt"

// ptDecode decodes intel_pt AUX data as Intel PT packets (pt.Decode, from
// the first PSB): a branch for each TIP.PGE (tracing enabled at an IP: "tr
// strt" in perf script --itrace=b), at the time of the TSC before it, its
// mode and task from the IP (pt.SpanOf), with the bytes of the packets up to
// the next TIP.PGE (the trace of that mode); bad counts the packets that do
// not decode and those perf's decoder would need code to follow (a TNT, a
// TIP, a TIP.PGD with no FUP before it: the simulated tasks have no code),
// which are perf's instruction trace errors on a torn stream.
// tools/perf/util/intel-pt-decoder/intel-pt-decoder.c: intel_pt_decode() (the packets, not the instruction walk)
func ptDecode(b []byte) ([]AuxBranch, int) {
	ps, bad := pt.Decode(b)
	var out []AuxBranch
	var tsc uint64
	enabled, fup, inPSB := false, false, false // PacketEn; a FUP since the TIP.PGE; inside PSB+
	var ip uint64
	for _, p := range ps {
		switch p.Kind {
		case pt.KindPSB:
			enabled, fup, inPSB = false, false, true
		case pt.KindPSBEND:
			inPSB = false
		case pt.KindTSC:
			tsc = p.TSC
		case pt.KindTIPPGE:
			user, tid := pt.SpanOf(p.IP)
			out = append(out, AuxBranch{Time: tsc / pt.TSCPerNs, Tid: tid, User: user, IP: p.IP})
			enabled, fup, ip = true, false, p.IP
		case pt.KindFUP:
			switch {
			case inPSB: // PacketEn: where the trace goes on
				enabled, ip = true, p.IP
			case !enabled || p.IP != ip:
				// outside a TIP.PGE's span, or elsewhere than it: perf walks
				// the code to the FUP's IP, and the tasks have none
				bad++
				fup = enabled
			default:
				fup = true
			}
		case pt.KindTIPPGD:
			if enabled && !fup && p.NoIP {
				bad++ // a disable by a branch: perf walks the code to it
			}
			enabled, fup = false, false
		case pt.KindTNT, pt.KindTIP:
			bad++ // a branch to follow through code the tasks do not have ("Failed to get instruction")
		}
		if len(out) > 0 {
			out[len(out)-1].Bytes += p.Len
		}
	}
	return out, bad
}

func init() { RegisterAuxDecoder(intelPT.name, ptDecode) }
