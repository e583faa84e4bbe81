package pt

// Span is the trace from one TIP.PGE (tracing enabled: perf's "tr strt")
// to the next.
type Span struct {
	TSC   uint64 // of the TSC before the TIP.PGE
	IP    uint64 // the TIP.PGE's
	Bytes int    // of the packets from the TIP.PGE to the next one
	// Iterations of the loop at IP the span's TNT bits walk (a taken
	// branch each).
	Iterations uint64
}

// Trace is what Follow makes of a stream.
type Trace struct {
	Spans []Span
	// Iterations are the loop iterations walked (each a taken jcc and a
	// jmp: --itrace=b's branches); Errors the packets that do
	// not decode and those the walk cannot follow through the code (perf's
	// instruction trace errors).
	Iterations uint64
	Errors     int
	// Cut: the stream ends inside a packet. A stream that ends where the
	// hardware stopped ends on a packet; one a copy cut out of the
	// hardware's output while it wrote need not. perf 6.1 reports such a
	// last packet as "Bad packet" when nothing follows to complete it (an
	// AUX sample: intel_pt_get_split_packet() finds no next data).
	Cut bool
}

// Follow decodes b (Decode) and walks the packets through the code the
// traced tasks execute, as perf's intel_pt decoder walks instructions: at
// every address loopAt accepts there is a loop of the synthetic images
// (pmu.ImageFuncCode: a conditional branch, then an indirect jump back), so
// an iteration is a taken TNT bit at the loop's start and a TIP to a loop.
// Anything else the walk needs code for is an error, as perf reports one: a
// TNT bit where loopAt refuses the address (perf cannot read an instruction
// there), not taken (the loop falls into int3), or while the walk waits at
// the indirect jump for its TIP; a TIP while the walk is at the
// conditional branch, or to an address loopAt refuses; a FUP elsewhere than
// the walk is (the walk reaches a branch first); a TIP.PGD with no FUP
// before it while tracing was enabled (a disable by a branch the loop does
// not have; perf walks TNT and TIP even after a TIP.PGD, from where the
// trace stopped, as when a later lap overwrote unread trace); an OVF. After an
// error the walk waits for the next IP (TIP.PGE, a PSB+'s FUP, a TIP).
// tools/perf/util/intel-pt-decoder/intel-pt-decoder.c: intel_pt_walk_trace(), intel_pt_walk_tnt(), intel_pt_walk_tip(), intel_pt_walk_fup()
func Follow(b []byte, loopAt func(ip uint64) bool) Trace {
	var tr Trace
	var tsc, ip uint64
	// enabled: PacketEn; atJmp: the walk is at the indirect jump (a TNT bit
	// taken); lost: an error left the walk without an IP; fup: a FUP since
	// the TIP.PGE; inPSB: inside PSB+.
	enabled, atJmp, lost, fup, inPSB := false, false, false, false, false
	fail := func() { tr.Errors++; lost = true }
	errs, cut := eachPacket(b, func(p *Packet) {
		switch p.Kind {
		case KindPSB:
			fup, inPSB = false, true
		case KindPSBEND:
			inPSB = false
		case KindTSC:
			tsc = p.TSC
		case KindTIPPGE:
			tr.Spans = append(tr.Spans, Span{TSC: tsc, IP: p.IP})
			enabled, atJmp, lost, fup, ip = true, false, false, false, p.IP
		case KindFUP:
			switch {
			case inPSB: // PacketEn: where the trace goes on
				enabled, atJmp, lost, ip = true, false, false, p.IP
			case enabled && !lost && (atJmp || p.IP != ip):
				fail()
				fup = true
			default:
				fup = enabled
			}
		case KindTIPPGD:
			// A FUP binds a TIP.PGD only while PacketEn; otherwise the
			// decoder walks to the branch that disabled the trace.
			if ip != 0 && !lost && !fup && p.NoIP {
				tr.Errors++
			}
			enabled, atJmp, lost, fup = false, false, false, false
		case KindTNT:
			// Not only while PacketEn: after a TIP.PGD the decoder walks a
			// TNT from where the trace stopped (what unread trace
			// overwritten by a later lap looks like).
			if ip == 0 || lost {
				break
			}
			n, taken := tntBits(*p)
			if atJmp || n != 1 || taken != 1 || !loopAt(ip) {
				fail()
				break
			}
			atJmp = true
		case KindTIP:
			if ip == 0 && !lost {
				break
			}
			switch {
			case lost && !p.NoIP:
				ip, lost = p.IP, false // the walk goes on from the target
			case p.NoIP || !loopAt(p.IP):
				fail()
			case !atJmp:
				fail()
			default:
				ip, atJmp = p.IP, false
				tr.Iterations++
				if len(tr.Spans) > 0 {
					tr.Spans[len(tr.Spans)-1].Iterations++
				}
			}
		case KindOVF:
			tr.Errors++
			enabled, atJmp, lost = false, false, false
		}
		if len(tr.Spans) > 0 {
			tr.Spans[len(tr.Spans)-1].Bytes += p.Len
		}
	})
	tr.Errors += errs
	tr.Cut = cut
	return tr
}

// tntBits are the number of branches a TNT packet carries and how many of
// them were taken: a short TNT's bits below its stop bit (above bit 0), a
// long TNT's 47 bits below its stop bit.
func tntBits(p Packet) (n, taken int) {
	v, low := p.Raw, 1
	if p.Len == 8 {
		low = 0
	}
	stop := -1
	for i := 63; i >= 0; i-- {
		if v>>uint(i)&1 != 0 {
			stop = i
			break
		}
	}
	for i := low; i < stop; i++ {
		n++
		if v>>uint(i)&1 != 0 {
			taken++
		}
	}
	return n, taken
}
