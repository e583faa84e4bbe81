package coresight

// Context is what the trace says the PE runs in: its exception level (0
// user, 1 kernel) and context id (the pid contextidr_thread_switch() wrote).
type Context struct {
	EL  int
	CID uint32
}

// Trace is what Follow makes of the trace of one trace ID.
type Trace struct {
	// Instructions and Branches are those the walk executed: LoopInsns and
	// LoopBranches (a taken b.ne) for each E atom at a loop of the images.
	Instructions, Branches uint64
	// Starts are the walks begun: a first instruction range after the
	// decoder synchronised (perf's "tr strt" branch samples).
	Starts int
	// LastRange: the last element of the last walk was an instruction range
	// (perf synthesizes no branch sample for it: cs_etm__end_block()).
	LastRange bool
	// Skipped are atoms before the decoder knew an address and a context
	// (OpenCSD drops them); NACC the times the walk stopped at an address
	// code refused (OCSD_GEN_TRC_ELEM_ADDR_NACC: perf has no memory there),
	// after which atoms are dropped until the next address.
	Skipped uint64
	NACC    int
	// Errors are packets that do not parse (the decoder resynchronises at
	// the next A-sync) and N atoms (the loop would fall into brk).
	Errors int
	// Tail are the atoms walked after the last timestamp of each stretch
	// (up to a decoder reset, an overflow or the end of the data), and
	// TailStretches the stretches with such atoms: perf 6.1 with OpenCSD
	// 1.3.3 decodes only the first of them (TestRealPerfFollowsCoreSightImages).
	Tail          uint64
	TailStretches int
	// ByIP are the instructions walked per loop address.
	ByIP map[uint64]uint64
}

// Follow decodes b, the ETMv4 trace of one trace ID from a decoder reset
// (a new AUXTRACE buffer, a formatter barrier), and walks it through the
// code of the images as OpenCSD's ETMv4 instruction decoder does: bytes up
// to the first A-sync are not synchronised, then everything up to a trace
// info is ignored; atoms count only once an address and a context are known
// (later A-syncs and trace infos change neither); an address packet sets
// the address, one with context the exception level and context id. At an
// address where code(ctx, ip) finds a loop (LoopCode) an E atom is an
// iteration: LoopInsns instructions ending in the taken b.ne back to ip.
// Where it finds none the walk stops (no memory: ADDR_NACC) until the next
// address. Follow adds to tr.
// decoder/source/etmv4/trc_pkt_decode_etmv4i.cpp: TrcPktDecodeEtmV4I::processPacket(), commitElements(), processAtom()
func (tr *Trace) Follow(b []byte, code func(c Context, ip uint64) bool) {
	if tr.ByIP == nil {
		tr.ByIP = map[uint64]uint64{}
	}
	for off := 0; off < len(b); {
		pkts, skipped, err := ParsePackets(b[off:], false)
		if len(pkts) == 0 && err == nil {
			return // no A-sync: nothing synchronises
		}
		tr.walk(pkts, code)
		if err == nil {
			return
		}
		// a bad packet: the decoder resets and looks for the next A-sync
		tr.Errors++
		next := off + skipped
		if n := len(pkts); n > 0 {
			next = off + pkts[n-1].Off + pkts[n-1].Len
		}
		off = next + 1
	}
}

// walk walks the packets of one synchronised stretch (they start with an
// A-sync).
func (tr *Trace) walk(pkts []Packet, code func(c Context, ip uint64) bool) {
	// the decoder's state: waiting for an A-sync (NO_SYNC, WAIT_SYNC), for a
	// trace info (WAIT_TINFO), decoding (DECODE_PKTS)
	const (
		waitSync = iota
		waitTInfo
		decode
	)
	state := waitSync
	needAddr, needCtxt := true, true // m_need_addr, m_need_ctxt
	var ctx Context
	var ip uint64
	started := false
	var sinceTS uint64 // atoms walked since the last timestamp
	endStretch := func() {
		if sinceTS > 0 {
			tr.Tail += sinceTS
			tr.TailStretches++
		}
		sinceTS = 0
	}
	defer endStretch()
	for _, p := range pkts {
		switch state {
		case waitSync:
			if p.Type == PktASync {
				state = waitTInfo
			}
			continue
		case waitTInfo:
			needAddr, needCtxt = true, true
			if p.Type == PktTraceInfo {
				state = decode
			}
			continue
		}
		switch p.Type {
		case PktTimestamp:
			sinceTS = 0
		case PktOverflow, PktDiscard:
			// discardElements(): back to NO_SYNC
			state = waitSync
			tr.LastRange = false
			endStretch()
		case PktAddrMatch:
			// an address from the history the model's decoder does not keep
			needAddr = true
		case PktAddrCtx, PktContext:
			if p.Ctxt {
				ctx.EL, needCtxt = p.EL, false
				if p.HasCID {
					ctx.CID = p.CID
				}
			}
			if p.Type == PktAddrCtx {
				ip, needAddr = p.Addr, false
			}
		case PktAddress:
			ip, needAddr = p.Addr|ip&^(uint64(1)<<p.AddrBits-1), false
		case PktAtom:
			for i := 0; i < p.Atoms; i++ {
				switch {
				case needAddr || needCtxt:
					tr.Skipped++
				case !code(ctx, ip):
					tr.NACC++
					tr.LastRange = false
					needAddr = true
				case p.E>>i&1 == 0:
					tr.Errors++
					tr.LastRange = false
					needAddr = true
				default:
					if !started {
						started = true
						tr.Starts++
					}
					tr.Instructions += LoopInsns
					tr.Branches += LoopBranches
					tr.ByIP[ip] += LoopInsns
					tr.LastRange = true
					sinceTS++
				}
			}
		}
	}
}
