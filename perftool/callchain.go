package perftool

import (
	"strconv"
	"strings"
)

type callchainMode int

const (
	callchainNone callchainMode = iota
	callchainFP
	callchainDWARF
	callchainLBR
)

// callchain mirrors struct callchain_param's record half.
type callchain struct {
	enabled  bool
	mode     callchainMode
	dumpSize uint32 // dwarf stack dump size (default 8192)
	maxStack uint16 // fp,N
	deferred bool   // fp,defer (today's tool)
	modeStr  string
}

// parseCallchain models tools/perf/util/callchain.c: parse_callchain_record().
func parseCallchain(arg, opt string) (*callchain, error) {
	cc := &callchain{enabled: true, dumpSize: 8192, modeStr: arg}
	name, rest, hasRest := strings.Cut(arg, ",")
	switch name {
	case "fp":
		cc.mode = callchainFP
		if hasRest {
			if rest == "defer" {
				cc.deferred = true
			} else if n, err := strconv.ParseUint(rest, 0, 64); err == nil && n < 127 {
				// "if (size < (unsigned) sysctl__max_stack()) param->max_stack = size;"
				cc.maxStack = uint16(n)
			}
		}
	case "dwarf":
		cc.mode = callchainDWARF
		if hasRest {
			// get_stack_size(): round_up(size, 8); 0 or > USHRT_MAX&~7 is an error
			n, err := strconv.ParseUint(rest, 0, 64)
			n = (n + 7) &^ 7
			if err != nil || n == 0 || n > 0xffff&^7 {
				return nil, errf(opt, "callchain: Incorrect stack dump size (max 65528): %s", rest)
			}
			cc.dumpSize = uint32(n)
		}
	case "lbr":
		cc.mode = callchainLBR
	case "no":
		cc.enabled, cc.mode = false, callchainNone
	default:
		return nil, errf(opt, "callchain: Unknown --call-graph option value: %s", arg)
	}
	return cc, nil
}
