package perftool

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// tpValue is an evaluated print-fmt argument: the bits and whether the C
// type it has is signed.
type tpValue struct {
	bits   uint64
	signed bool
}

// tpPrint renders a tracepoint's raw data with its print fmt, as
// libtraceevent's tep_print_event(..., "%s", TEP_PRINT_INFO) does for the
// subset of print fmt syntax the catalogue uses: REC->field, REC->field[i],
// C casts, and %[flags][width][l|ll|h|z]{d,i,u,x,X,o,p} conversions. A print
// fmt it cannot evaluate prints as libtraceevent's fallback, the raw fields.
// tools/lib/traceevent/event-parse.c: pretty_print()
func tpPrint(tp *Tracepoint, raw []byte) string {
	if s, ok := schedTpPrint(tp, raw); ok {
		return s
	}
	if tp.PrintFmt == "" {
		return tpPrintFields(tp, raw)
	}
	fmtStr, args, err := splitPrintFmt(tp.PrintFmt)
	if err != nil {
		return tpPrintFields(tp, raw)
	}
	var b strings.Builder
	ai := 0
	for i := 0; i < len(fmtStr); i++ {
		c := fmtStr[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(fmtStr) && fmtStr[i+1] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		j := i + 1
		for j < len(fmtStr) && strings.IndexByte("-+ #0123456789.", fmtStr[j]) >= 0 {
			j++
		}
		spec := fmtStr[i+1 : j]
		long := 0
		for j < len(fmtStr) && strings.IndexByte("lhz", fmtStr[j]) >= 0 {
			if fmtStr[j] != 'h' {
				long++
			}
			j++
		}
		if j >= len(fmtStr) || ai >= len(args) {
			return tpPrintFields(tp, raw)
		}
		conv := fmtStr[j]
		v, err := evalTpArg(tp, raw, args[ai])
		if err != nil {
			return tpPrintFields(tp, raw)
		}
		ai++
		bits := v.bits
		if long == 0 {
			bits &= 0xffffffff // int / unsigned int
		}
		switch conv {
		case 'd', 'i':
			n := int64(bits)
			if long == 0 {
				n = int64(int32(bits))
			}
			fmt.Fprintf(&b, "%"+spec+"d", n)
		case 'u':
			fmt.Fprintf(&b, "%"+spec+"d", bits)
		case 'x', 'X', 'o':
			fmt.Fprintf(&b, "%"+spec+string(conv), bits)
		case 'p':
			fmt.Fprintf(&b, "0x%x", bits)
		default:
			return tpPrintFields(tp, raw)
		}
		i = j
	}
	return b.String()
}

// splitPrintFmt splits `"fmt", arg, arg` into the format string and the
// top-level comma-separated arguments.
func splitPrintFmt(pf string) (string, []string, error) {
	pf = strings.TrimSpace(pf)
	if len(pf) < 2 || pf[0] != '"' {
		return "", nil, fmt.Errorf("print fmt does not start with a string")
	}
	end := strings.IndexByte(pf[1:], '"')
	if end < 0 {
		return "", nil, fmt.Errorf("unterminated print fmt string")
	}
	fmtStr, rest := pf[1:1+end], strings.TrimSpace(pf[2+end:])
	var args []string
	if rest == "" {
		return fmtStr, nil, nil
	}
	if rest[0] != ',' {
		return "", nil, fmt.Errorf("expected , after the format string")
	}
	rest = rest[1:]
	depth, start := 0, 0
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ',':
			if depth == 0 {
				args = append(args, strings.TrimSpace(rest[start:i]))
				start = i + 1
			}
		}
	}
	return fmtStr, append(args, strings.TrimSpace(rest[start:])), nil
}

// cTypes are the casts the print fmts use: size in bytes and signedness.
var cTypes = map[string]tpValue{
	"unsigned long": {bits: 8}, "long": {bits: 8, signed: true}, "u64": {bits: 8}, "s64": {bits: 8, signed: true},
	"unsigned int": {bits: 4}, "int": {bits: 4, signed: true}, "u32": {bits: 4}, "s32": {bits: 4, signed: true},
}

// evalTpArg evaluates one print fmt argument against the raw record.
func evalTpArg(tp *Tracepoint, raw []byte, e string) (tpValue, error) {
	e = strings.TrimSpace(e)
	if strings.HasPrefix(e, "(") {
		close := matchParen(e)
		if close < 0 {
			return tpValue{}, fmt.Errorf("unbalanced parens in %q", e)
		}
		inner := strings.TrimSpace(e[1:close])
		if ct, ok := cTypes[inner]; ok { // a cast: (type)expr
			v, err := evalTpArg(tp, raw, e[close+1:])
			if err != nil {
				return v, err
			}
			return castTo(v, int(ct.bits), ct.signed), nil
		}
		if close == len(e)-1 {
			return evalTpArg(tp, raw, inner)
		}
		return tpValue{}, fmt.Errorf("cannot evaluate %q", e)
	}
	name, ok := strings.CutPrefix(e, "REC->")
	if !ok {
		return tpValue{}, fmt.Errorf("cannot evaluate %q", e)
	}
	idx := -1
	if k := strings.IndexByte(name, '['); k >= 0 && strings.HasSuffix(name, "]") {
		n, err := strconv.Atoi(name[k+1 : len(name)-1])
		if err != nil {
			return tpValue{}, err
		}
		name, idx = name[:k], n
	}
	for _, f := range tp.Fields {
		fname, n := fieldName(f.Decl)
		if fname != name {
			continue
		}
		off, size := f.Offset, f.Size
		if idx >= 0 {
			if n <= 0 || idx >= n {
				return tpValue{}, fmt.Errorf("index %d out of %s", idx, f.Decl)
			}
			size /= n
			off += idx * size
		}
		if off+size > len(raw) {
			return tpValue{}, fmt.Errorf("field %s past the raw data", name)
		}
		var bits uint64
		switch size {
		case 1:
			bits = uint64(raw[off])
		case 2:
			bits = uint64(binary.LittleEndian.Uint16(raw[off:]))
		case 4:
			bits = uint64(binary.LittleEndian.Uint32(raw[off:]))
		case 8:
			bits = binary.LittleEndian.Uint64(raw[off:])
		default:
			return tpValue{}, fmt.Errorf("field %s has size %d", name, size)
		}
		return castTo(tpValue{bits: bits, signed: f.Signed}, size, f.Signed), nil
	}
	return tpValue{}, fmt.Errorf("no field %q", name)
}

// castTo converts v to a C integer type of size bytes: sign- or zero-extends
// from the source's own width (already 64-bit here) after truncating.
func castTo(v tpValue, size int, signed bool) tpValue {
	b := v.bits
	if size < 8 {
		shift := uint(64 - 8*size)
		if signed {
			b = uint64(int64(b<<shift) >> shift)
		} else {
			b = b << shift >> shift
		}
	}
	return tpValue{bits: b, signed: signed}
}

func matchParen(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// FieldName is the C name of a field declaration: "unsigned long args[6]" is "args".
func FieldName(decl string) string {
	n, _ := fieldName(decl)
	return n
}

// fieldName returns the C name of a field declaration and its array length
// (0 when it is not an array): "unsigned long args[6]" is ("args", 6).
func fieldName(decl string) (string, int) {
	n := 0
	if k := strings.IndexByte(decl, '['); k >= 0 {
		n, _ = strconv.Atoi(strings.TrimSuffix(decl[k+1:], "]"))
		decl = decl[:k]
	}
	decl = strings.TrimSpace(decl)
	if k := strings.LastIndexAny(decl, " *"); k >= 0 {
		decl = decl[k+1:]
	}
	return decl, n
}

// tpPrintFields is libtraceevent's output for an event without a usable
// print fmt: "name=value" for every field, space separated.
// tools/lib/traceevent/event-parse.c: print_event_fields()
func tpPrintFields(tp *Tracepoint, raw []byte) string {
	var out []string
	for _, f := range tp.Fields {
		name, _ := fieldName(f.Decl)
		v, err := evalTpArg(tp, raw, "REC->"+name)
		if err != nil {
			out = append(out, name+"=ARRAY[]")
			continue
		}
		if v.signed {
			out = append(out, fmt.Sprintf("%s=%d", name, int64(v.bits)))
		} else {
			out = append(out, fmt.Sprintf("%s=%d", name, v.bits))
		}
	}
	return strings.Join(out, " ")
}
