package pmu

import (
	"encoding/binary"
	"path"
	"strconv"
	"strings"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/uapi"
)

// Tracepoint event filters: PERF_EVENT_IOC_SET_FILTER on a tracepoint event
// parses an ftrace filter expression against the tracepoint's fields (its
// format file) and perf_tp_event() then drops the records it rejects.
// kernel/trace/trace_events_filter.c: ftrace_profile_set_filter(), process_preds(), filter_match_preds()

// TracepointField is one field of a tracepoint's format, as the filter sees
// it (struct ftrace_event_field).
type TracepointField struct {
	Name         string
	Offset, Size int
	Signed       bool
	// Kind: filter_assign_type(): FilterOther (a number), FilterStaticString
	// (char name[N]), FilterDynString (__data_loc char[]).
	Kind int
}

// Field kinds (enum filter_type).
const (
	FilterOther = iota
	FilterStaticString
	FilterDynString
	filterCPU  // the generic CPU/cpu field: smp_processor_id()
	filterComm // the generic COMM/comm field: current->comm
)

// FieldOfDecl builds a field from a format file's declaration ("char
// prev_comm[16]", "__data_loc char[] name", "pid_t pid").
// kernel/trace/trace_events_filter.c: filter_assign_type()
func FieldOfDecl(decl string, offset, size int, signed bool) TracepointField {
	f := TracepointField{Offset: offset, Size: size, Signed: signed}
	name := decl
	if i := strings.LastIndexAny(name, " *"); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	f.Name = name
	switch {
	case strings.Contains(decl, "__data_loc") && strings.Contains(decl, "char"):
		f.Kind = FilterDynString
	case strings.Contains(decl, "[") && strings.Contains(decl, "char"):
		f.Kind = FilterStaticString
	}
	return f
}

// commonFields are struct trace_entry's fields, in every record.
var commonFields = []TracepointField{
	{Name: "common_type", Offset: 0, Size: 2},
	{Name: "common_flags", Offset: 2, Size: 1},
	{Name: "common_preempt_count", Offset: 3, Size: 1},
	{Name: "common_pid", Offset: 4, Size: 4, Signed: true},
}

// filter ops, in the order parse_pred() tries them ("<=" before "<").
const (
	opGlob = iota
	opNE
	opEQ
	opLE
	opLT
	opGE
	opGT
	opBAND
)

var filterOps = []string{"~", "!=", "==", "<=", "<", ">=", ">", "&"}

// tpPred is struct filter_pred.
type tpPred struct {
	field TracepointField
	op    int
	val   uint64
	str   string // the pattern of a string predicate
	match int    // regex type (matchFull...)
	not   bool
}

const (
	matchFull = iota
	matchFront
	matchMiddle
	matchEnd
	matchGlob
)

// tpFilter is struct event_filter: the predicates as an expression tree.
type tpFilter struct {
	text string
	root *filterNode
}

type filterNode struct {
	and, or bool // an && or || of kids
	kids    []*filterNode
	pred    *tpPred
	invert  bool
}

// calc_stack()'s errors, returned as they are: -1, -2, -3.
const (
	errTooManyClose = uapi.EPERM  // TOO_MANY_CLOSE = -1
	errTooManyOpen  = uapi.ENOENT // TOO_MANY_OPEN = -2
	errMissingQuote = uapi.ESRCH  // MISSING_QUOTE = -3
)

// parseTpFilter is create_filter() -> process_preds(): it returns the errno
// the ioctl returns for a bad expression, among them calc_stack()'s and
// predicate_parse()'s raw -1/-2/-3 (EPERM, ENOENT, ESRCH to the caller).
// kernel/trace/trace_events_filter.c: process_preds(), calc_stack(), predicate_parse(), parse_pred()
func parseTpFilter(s string, fields []TracepointField) (*tpFilter, error) {
	nrPreds, err := calcStack(s)
	if err != nil {
		return nil, err
	}
	if nrPreds == 0 {
		return nil, uapi.EINVAL
	}
	p := &filterParser{s: s, fields: fields}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.s) {
		// only a ')' can be left: calc_stack() balanced the rest
		return nil, errTooManyClose
	}
	return &tpFilter{text: s, root: n}, nil
}

// calcStack counts the predicates and checks quotes and parentheses.
// kernel/trace/trace_events_filter.c: calc_stack()
func calcStack(s string) (int, error) {
	isPred, nr, open := false, 0, 1
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isSpace(c) {
			continue
		}
		if quote != 0 {
			if c == quote {
				quote = 0
			}
			continue
		}
		switch c {
		case '\'', '"':
			quote = c
		case '|', '&':
			if i+1 < len(s) && s[i+1] == c {
				isPred = false
				continue
			}
		case '(':
			isPred = false
			open++
			continue
		case ')':
			isPred = false
			if open == 1 {
				return 0, errTooManyClose
			}
			open--
			continue
		}
		if !isPred {
			nr++
			isPred = true
		}
	}
	if quote != 0 {
		return 0, errMissingQuote
	}
	if open != 1 {
		return 0, errTooManyOpen
	}
	return nr, nil
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

type filterParser struct {
	s      string
	i      int
	fields []TracepointField
}

func (p *filterParser) space() {
	for p.i < len(p.s) && isSpace(p.s[p.i]) {
		p.i++
	}
}

func (p *filterParser) atEnd() bool { p.space(); return p.i >= len(p.s) }

// or, and, unary: "&&" binds tighter than "||" (predicate_parse() #7-#10);
// an operator at the very end is accepted and ends the expression, as
// predicate_parse() leaves its pending PROCESS_AND/OR undone.
func (p *filterParser) or() (*filterNode, error) { return p.chain("||", true, p.and) }

func (p *filterParser) and() (*filterNode, error) { return p.chain("&&", false, p.unary) }

// chain parses next (op next)...: one node when there is one operand.
func (p *filterParser) chain(op string, or bool, next func() (*filterNode, error)) (*filterNode, error) {
	first, err := next()
	if err != nil {
		return nil, err
	}
	n := &filterNode{or: or, and: !or, kids: []*filterNode{first}}
	for p.lookOp(op) {
		if p.atEnd() {
			break
		}
		k, err := next()
		if err != nil {
			return nil, err
		}
		n.kids = append(n.kids, k)
	}
	if len(n.kids) == 1 {
		return first, nil
	}
	return n, nil
}

// lookOp consumes op if it is next. After a predicate only ")", the end,
// "&&" or "||" may follow: anything else is predicate_parse()'s
// FILT_ERR_TOO_MANY_PREDS with ret -1 (checked in pred).
func (p *filterParser) lookOp(op string) bool {
	p.space()
	if strings.HasPrefix(p.s[p.i:], op) {
		p.i += len(op)
		return true
	}
	return false
}

func (p *filterParser) unary() (*filterNode, error) {
	p.space()
	if p.i < len(p.s) {
		switch p.s[p.i] {
		case '(':
			p.i++
			n, err := p.or()
			if err != nil {
				return nil, err
			}
			p.space()
			if p.i >= len(p.s) || p.s[p.i] != ')' {
				return nil, errTooManyOpen
			}
			p.i++
			return n, nil
		case '!':
			if p.i+1 >= len(p.s) || (p.s[p.i+1] != '=' && p.s[p.i+1] != '~') { // is_not()
				p.i++
				n, err := p.unary()
				if err != nil {
					return nil, err
				}
				return &filterNode{invert: true, kids: []*filterNode{n}}, nil
			}
		}
	}
	pr, err := p.pred()
	if err != nil {
		return nil, err
	}
	// predicate_parse() #5: only ')', the end, "&&" or "||" may follow.
	p.space()
	if rest := p.s[p.i:]; rest != "" && rest[0] != ')' && !strings.HasPrefix(rest, "&&") && !strings.HasPrefix(rest, "||") {
		return nil, uapi.EPERM // FILT_ERR_TOO_MANY_PREDS, ret = -1
	}
	return &filterNode{pred: pr}, nil
}

// pred parses "FIELD OP VALUE".
// kernel/trace/trace_events_filter.c: parse_pred()
func (p *filterParser) pred() (*tpPred, error) {
	p.space()
	s := p.i
	for p.i < len(p.s) && (isAlnum(p.s[p.i]) || p.s[p.i] == '_') {
		p.i++
	}
	if p.i == s {
		return nil, uapi.EPERM // "if (!len) return -1;"
	}
	f, ok := findField(p.s[s:p.i], p.fields)
	if !ok {
		return nil, uapi.EINVAL // FILT_ERR_FIELD_NOT_FOUND
	}
	p.space()
	op := -1
	for i, o := range filterOps {
		if strings.HasPrefix(p.s[p.i:], o) {
			op = i
			break
		}
	}
	if op < 0 {
		return nil, uapi.EINVAL // FILT_ERR_INVALID_OP
	}
	p.i += len(filterOps[op])
	p.space()
	pr := &tpPred{field: f, op: op}
	isString := f.Kind == FilterStaticString || f.Kind == FilterDynString || f.Kind == filterComm
	switch {
	case p.i < len(p.s) && (p.s[p.i] == '\'' || p.s[p.i] == '"'):
		q := p.s[p.i]
		switch op {
		case opNE:
			pr.not = true
		case opGlob, opEQ:
		default:
			return nil, uapi.EINVAL // FILT_ERR_ILLEGAL_FIELD_OP
		}
		if !isString {
			return nil, uapi.EINVAL // FILT_ERR_EXPECT_DIGIT
		}
		end := strings.IndexByte(p.s[p.i+1:], q)
		if end < 0 {
			return nil, uapi.EINVAL // FILT_ERR_MISSING_QUOTE
		}
		pr.str = p.s[p.i+1 : p.i+1+end]
		p.i += end + 2
		if len(pr.str) >= 256 { // MAX_FILTER_STR_VAL
			return nil, uapi.EINVAL
		}
		if op == opGlob {
			pr.str, pr.match, pr.not = filterParseRegex(pr.str)
		}
	case p.i < len(p.s) && (isDigit(p.s[p.i]) || p.s[p.i] == '-'):
		if isString {
			return nil, uapi.EINVAL // FILT_ERR_EXPECT_STRING
		}
		if op == opGlob {
			return nil, uapi.EINVAL // FILT_ERR_ILLEGAL_FIELD_OP
		}
		s := p.i
		if p.s[p.i] == '-' {
			p.i++
		}
		for p.i < len(p.s) && isAlnum(p.s[p.i]) {
			p.i++
		}
		num := p.s[s:p.i]
		var err error
		if f.Signed || f.Kind == filterCPU {
			var v int64
			v, err = strconv.ParseInt(num, 0, 64) // kstrtoll(num_buf, 0, &val)
			pr.val = uint64(v)
		} else {
			pr.val, err = strconv.ParseUint(num, 0, 64) // kstrtoull()
		}
		if err != nil || len(num) >= 24 {
			return nil, uapi.EINVAL // FILT_ERR_ILLEGAL_INTVAL
		}
		if op == opNE {
			pr.not = true
		}
	default:
		return nil, uapi.EINVAL // FILT_ERR_INVALID_VALUE: "did you forget quotes?"
	}
	return pr, nil
}

func isAlnum(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// findField is trace_find_event_field(): the event's fields, then the common
// ones, then the generic CPU/cpu and COMM/comm.
func findField(name string, fields []TracepointField) (TracepointField, bool) {
	for _, f := range fields {
		if f.Name == name {
			return f, true
		}
	}
	for _, f := range commonFields {
		if f.Name == name {
			return f, true
		}
	}
	switch name {
	case "CPU", "cpu":
		return TracepointField{Name: name, Kind: filterCPU, Size: 4, Signed: true}, true
	case "COMM", "comm":
		return TracepointField{Name: name, Kind: filterComm, Size: taskCommLen}, true
	}
	return TracepointField{}, false
}

// filterParseRegex sorts a ~ pattern into full, front*, *middle*, *end or a
// glob, and a leading '!' inverts it.
// kernel/trace/trace_events_filter.c: filter_parse_regex()
func filterParseRegex(pat string) (string, int, bool) {
	not := false
	if strings.HasPrefix(pat, "!") {
		not, pat = true, pat[1:]
	}
	typ := matchFull
	search := pat
	for i := 0; i < len(pat); i++ {
		switch {
		case pat[i] == '*':
			if i == 0 {
				typ = matchEnd
			} else if i == len(pat)-1 {
				if typ == matchEnd {
					typ = matchMiddle
				} else {
					typ = matchFront
				}
				search = pat[:i]
				if typ == matchMiddle {
					search = pat[1:i]
				}
				return search, typ, not
			} else {
				return pat, matchGlob, not
			}
		case strings.IndexByte("[?\\", pat[i]) >= 0:
			return pat, matchGlob, not
		}
	}
	if typ == matchEnd {
		search = pat[1:]
	}
	return search, typ, not
}

// match is filter_match_preds() on a record.
func (f *tpFilter) match(rec []byte, c *cpu.CPU, cur *sched.Task) bool {
	return f.root.eval(rec, c, cur)
}

func (n *filterNode) eval(rec []byte, c *cpu.CPU, cur *sched.Task) bool {
	switch {
	case n.pred != nil:
		return n.pred.eval(rec, c, cur)
	case n.invert:
		return !n.kids[0].eval(rec, c, cur)
	case n.and:
		for _, k := range n.kids {
			if !k.eval(rec, c, cur) {
				return false
			}
		}
		return true
	default:
		for _, k := range n.kids {
			if k.eval(rec, c, cur) {
				return true
			}
		}
		return false
	}
}

func (pr *tpPred) eval(rec []byte, c *cpu.CPU, cur *sched.Task) bool {
	f := pr.field
	switch f.Kind {
	case filterCPU:
		if c == nil {
			return false
		}
		return compare(pr.op, uint64(int64(c.ID)), pr.val, true, pr.not)
	case filterComm:
		comm := ""
		if cur != nil {
			comm = cur.Comm
		}
		if len(comm) >= taskCommLen {
			comm = comm[:taskCommLen-1]
		}
		return pr.strMatch(comm) != pr.not
	case FilterStaticString:
		if f.Offset+f.Size > len(rec) {
			return false
		}
		b := rec[f.Offset : f.Offset+f.Size]
		if i := strings.IndexByte(string(b), 0); i >= 0 {
			b = b[:i]
		}
		return pr.strMatch(string(b)) != pr.not
	case FilterDynString:
		if f.Offset+4 > len(rec) {
			return false
		}
		item := binary.LittleEndian.Uint32(rec[f.Offset:])
		off, n := int(item&0xffff), int(item>>16)
		if off+n > len(rec) {
			return false
		}
		b := rec[off : off+n]
		if i := strings.IndexByte(string(b), 0); i >= 0 {
			b = b[:i]
		}
		return pr.strMatch(string(b)) != pr.not
	}
	if f.Offset+f.Size > len(rec) {
		return false
	}
	var v uint64
	switch f.Size {
	case 1:
		v = uint64(rec[f.Offset])
		if f.Signed {
			v = uint64(int64(int8(v)))
		}
	case 2:
		v = uint64(binary.LittleEndian.Uint16(rec[f.Offset:]))
		if f.Signed {
			v = uint64(int64(int16(v)))
		}
	case 4:
		v = uint64(binary.LittleEndian.Uint32(rec[f.Offset:]))
		if f.Signed {
			v = uint64(int64(int32(v)))
		}
	case 8:
		v = binary.LittleEndian.Uint64(rec[f.Offset:])
	default:
		return false // select_comparison_fn(): no function for the size
	}
	// The value is truncated to the field's type: (type)pred->val.
	val := pr.val
	if f.Size < 8 {
		mask := uint64(1)<<(8*f.Size) - 1
		val &= mask
		if f.Signed && val&(1<<(8*f.Size-1)) != 0 {
			val |= ^mask
		}
	}
	return compare(pr.op, v, val, f.Signed, pr.not)
}

// compare is the filter_pred_{LT,LE,GT,GE,BAND}_type and filter_pred_N
// (==, != with pred->not) functions.
func compare(op int, a, b uint64, signed, not bool) bool {
	switch op {
	case opEQ, opNE:
		return (a == b) != not
	case opBAND:
		return a&b != 0
	}
	if signed {
		x, y := int64(a), int64(b)
		switch op {
		case opLT:
			return x < y
		case opLE:
			return x <= y
		case opGT:
			return x > y
		default:
			return x >= y
		}
	}
	switch op {
	case opLT:
		return a < b
	case opLE:
		return a <= b
	case opGT:
		return a > b
	default:
		return a >= b
	}
}

// strMatch is the regex_match_* callbacks (before pred->not).
func (pr *tpPred) strMatch(s string) bool {
	switch pr.match {
	case matchFront:
		return strings.HasPrefix(s, pr.str)
	case matchMiddle:
		return strings.Contains(s, pr.str)
	case matchEnd:
		return strings.HasSuffix(s, pr.str)
	case matchGlob:
		ok, _ := path.Match(pr.str, s) // glob_match(): *, ?, [...]
		return ok
	}
	return s == pr.str
}

// perfTpFilterMatch: only top-level events have filters; an inherited event
// uses its parent's.
// kernel/events/core.c: perf_tp_filter_match()
func (e *Event) perfTpFilterMatch(c *cpu.CPU, rec []byte) bool {
	if e.parent != nil {
		e = e.parent
	}
	if e.filter == nil {
		return true
	}
	if !e.filter.match(rec, c, sched.TaskOf(c.Curr())) {
		e.k.stats.tpFiltered++
		return false
	}
	return true
}

// SetFilter is ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter): a tracepoint
// event's ftrace filter (EEXIST if it has one), or address filters for a
// PMU that has them (addr_filter.go); EINVAL for every other event.
// kernel/events/core.c: _perf_ioctl() case PERF_EVENT_IOC_SET_FILTER -> perf_event_set_filter()
func (k *Kernel) SetFilter(t *sched.Task, fd int, filter string) (err error) {
	// The body is annotated up to perf_ioctl:ctx-locked and marked after
	// it (footprint_setup.go): its entry's fragment may be complete.
	k.S.SyscallAnnotated(t, "ioctl", func(t *sched.Task) {
		e, lerr := k.lookup(t, fd)
		if lerr != nil {
			err = lerr
			return
		}
		k.accessEventSetup(t, e, "event->state", cpu.MarkedRead, "perf_ioctl") // kernel/events/core.c: perf_ioctl(): if (READ_ONCE(event->state) <= PERF_EVENT_STATE_REVOKED)
		if e.state <= StateRevoked {
			err = uapi.ENODEV
			return
		}
		if len(filter) >= PageSize { // strndup_user(arg, PAGE_SIZE)
			err = uapi.EINVAL
			return
		}
		var mu *sched.Mutex
		k.accessEventSetup(t, e, "event->ctx", cpu.MarkedRead, "perf_event_ctx_lock_nested") // kernel/events/core.c: perf_event_ctx_lock_nested(): ctx = READ_ONCE(event->ctx)
		if e.ctx != nil {
			mu, _ = k.ctxMutexLocked(t, e.ctx)
			t.Step("perf_ioctl:ctx-locked")
		}
		k.markSetup(t, "perf_event_set_filter") // not annotated: the step point's declaration (footprint_setup.go) vouches for Ioctl's commands only
		err = uapi.EINVAL
		if k.shouldFail(t, "perf_event_set_filter") {
			// "filter_str = strndup_user(arg, PAGE_SIZE); if (IS_ERR(filter_str)) return PTR_ERR(filter_str);"
			err = uapi.ENOMEM
		} else if e.tp != nil { // perf_event_is_tracing()
			// "Beware, here be dragons!!": ctx->mutex is dropped around
			// ftrace_profile_set_filter() (it takes event_mutex).
			if mu != nil {
				k.S.MutexUnlock(t, mu)
			}
			t.Step("perf_event_set_filter:ctx-unlocked")
			err = k.ftraceProfileSetFilter(t, e, filter)
			if mu != nil {
				k.S.MutexLock(t, mu)
			}
		} else if hasAddrFilter(e) {
			err = k.perfEventSetAddrFilter(t, e, filter)
			if err == nil {
				k.afStats.setFilters++
			}
		}
		if mu != nil {
			k.S.MutexUnlock(t, mu)
		}
	})
	return err
}

// ftraceProfileSetFilter parses the filter against the tracepoint's fields.
// create_filter()'s allocations (the struct event_filter, its string, the
// program) may fail (fault injection: site ftrace_profile_set_filter): the
// half-built filter is freed ("free_filter: if (err ...)
// __free_filter(filter);") and event->filter stays unset, -ENOMEM.
// kernel/trace/trace_events_filter.c: ftrace_profile_set_filter()
func (k *Kernel) ftraceProfileSetFilter(t *sched.Task, e *Event, s string) error {
	if e.filter != nil {
		return uapi.EEXIST
	}
	// "err = create_filter(NULL, call, filter_str, false, &filter); if (err) goto free_filter;"
	if k.shouldFail(t, "ftrace_profile_set_filter") {
		return uapi.ENOMEM
	}
	f, err := parseTpFilter(s, e.tp.info.Fields)
	if err != nil {
		return err
	}
	e.filter = f
	return nil
}

func init() {
	RegisterObservable("tp.users", "tracepoint events holding their tracepoint now (perf_trace_event_init()'s perf_refcount, summed over tracepoints)",
		func(k *Kernel) int64 {
			n := 0
			for _, s := range k.tp.slots {
				n += s.users
			}
			return int64(n)
		})
	RegisterObservable("tp.registered", "tracepoints with a perf user now (trace_event_perf.c's total_ref_count: perf_trace_buf[] is allocated while it is not 0)",
		func(k *Kernel) int64 { return int64(k.tp.totalRefCount) })
	RegisterObservable("tp.filtered", "tracepoint records an event's ftrace filter (PERF_EVENT_IOC_SET_FILTER) rejected in perf_tp_event()",
		func(k *Kernel) int64 { return int64(k.stats.tpFiltered) })
	RegisterStepHelp(map[string]string{
		"perf_event_set_filter:ctx-unlocked": "kernel/events/core.c: perf_event_set_filter(): ctx->mutex dropped around ftrace_profile_set_filter() for a tracepoint event (\"here be dragons\")",
	})
}
