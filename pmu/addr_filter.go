package pmu

import (
	"fmt"
	"strings"

	"perfsim/mm"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// Address range filters: PERF_EVENT_IOC_SET_FILTER on an event whose PMU has
// pmu->nr_addr_filters (Intel PT, CoreSight ETM). The string is parsed into
// a list of filters (perf_event_parse_addr_filter()), checked by the driver
// (pmu->addr_filters_validate), installed on the event (the original's
// list; inherited events use their parent's: perf_event_addr_filters()),
// and resolved into address ranges, one per filter, in each event's
// addr_filter_ranges: a kernel filter is its own range, a file filter the
// part of a mapping of that file in the task's mm. Whenever the ranges
// change (SET_FILTER's perf_event_addr_filters_apply(), an exec's
// perf_event_addr_filters_exec(), an mmap's perf_addr_filters_adjust()),
// event->addr_filters_gen is bumped and an ACTIVE event is restarted on its
// CPU (perf_event_stop(event, 1)); the driver's start calls
// perf_event_addr_filters_sync(), which hands the ranges to
// pmu->addr_filters_sync when the generation moved.

// AddrFilterAction is enum perf_addr_filter_action_t.
type AddrFilterAction int

// include/linux/perf_event.h: enum perf_addr_filter_action_t
const (
	PERF_ADDR_FILTER_ACTION_STOP AddrFilterAction = iota
	PERF_ADDR_FILTER_ACTION_START
	PERF_ADDR_FILTER_ACTION_FILTER
)

func (a AddrFilterAction) String() string {
	return [...]string{"stop", "start", "filter"}[a]
}

// AddrFilter is struct perf_addr_filter: an action on [Offset, Offset+Size)
// of the kernel (Path "") or of the object file at Path (filter->path, an
// offset into the file).
type AddrFilter struct {
	Action AddrFilterAction
	Offset uint64
	Size   uint64
	Path   string
	file   *mm.File // d_inode(filter->path.dentry)
}

// AddrFilterRange is struct perf_addr_filter_range: where a filter applies
// in the address space now ({0, 0}: a file filter whose file is not mapped).
type AddrFilterRange struct{ Start, Size uint64 }

// addrFiltersHead is struct perf_addr_filters_head.
type addrFiltersHead struct {
	list          []AddrFilter
	nrFileFilters int
}

// eventAddrFilters is what struct perf_event keeps of address filters.
type eventAddrFilters struct {
	head   addrFiltersHead   // event->addr_filters (the original's only)
	ranges []AddrFilterRange // event->addr_filter_ranges, nr_addr_filters long
	gen    uint64            // event->addr_filters_gen
	hwGen  uint64            // event->hw.addr_filters_gen
	// setting counts PERF_EVENT_IOC_SET_FILTER calls in progress on the
	// original (the oracles' notion of "the new filter is not in force
	// yet": the ioctl has not returned)
	setting int
}

// AddrFilterPMU is implemented by a PMU with address filters: struct pmu's
// nr_addr_filters, addr_filters_validate and addr_filters_sync.
type AddrFilterPMU interface {
	// NrAddrFilters is pmu->nr_addr_filters (0: none; SET_FILTER EINVAL).
	NrAddrFilters() int
	// AddrFiltersValidate is pmu->addr_filters_validate: the driver's
	// verdict on a parsed list, before it replaces the event's.
	AddrFiltersValidate(filters []AddrFilter) error
	// AddrFiltersSync is pmu->addr_filters_sync: load the event's ranges
	// into the driver's configuration (under the filters' lock).
	AddrFiltersSync(e *Event)
}

// hasAddrFilter is has_addr_filter(): the PMU has address filters.
// kernel/events/core.c: has_addr_filter()
func hasAddrFilter(e *Event) bool {
	ap, ok := e.pmu.(AddrFilterPMU)
	return ok && ap.NrAddrFilters() > 0
}

// addrFilters is perf_event_addr_filters(): the parent's list for an
// inherited event.
// include/linux/perf_event.h: perf_event_addr_filters()
func (e *Event) addrFilters() *addrFiltersHead {
	if e.parent != nil {
		return &e.parent.af.head
	}
	return &e.af.head
}

// AddrFilterSetting reports whether a PERF_EVENT_IOC_SET_FILTER of e's
// address filters (its parent's, for an inherited event) has not returned
// yet: until it has, the hardware may still trace with the old ones.
func (e *Event) AddrFilterSetting() bool {
	if e.parent != nil {
		return e.parent.af.setting > 0
	}
	return e.af.setting > 0
}

// AddrFilters returns the filters in force for e (its parent's for an
// inherited event), in the order they were given.
func (e *Event) AddrFilters() []AddrFilter { return e.addrFilters().list }

// AddrFilterRanges returns e's addr_filter_ranges: one per filter, where
// each applies now.
func (e *Event) AddrFilterRanges() []AddrFilterRange {
	return e.af.ranges[:min(len(e.af.ranges), len(e.addrFilters().list))]
}

// perfEventAllocAddrFilters allocates addr_filter_ranges; an inherited
// event copies its parent's ("they are valid until exec() even if the mm is
// not shared with the parent"; not before 18736eef1213, knob
// addr-filter-clone, when the child had none and traced nothing until an
// exec or mmap set them), and the generation is 1 to force the first sync.
// kernel/events/core.c: perf_event_alloc() "if (has_addr_filter(event))"
func (k *Kernel) perfEventAllocAddrFilters(e *Event) {
	if !hasAddrFilter(e) {
		return
	}
	n := e.pmu.(AddrFilterPMU).NrAddrFilters()
	e.af.ranges = make([]AddrFilterRange, n)
	if e.parent != nil && !k.KnobIs("addr-filter-clone", "pre-18736eef1213") {
		copy(e.af.ranges, e.parent.af.ranges)
	}
	e.af.gen = 1 // "force hw sync on the address filters"
}

// PerfEventAddrFiltersSync is perf_event_addr_filters_sync(), for a
// driver's start: pmu->addr_filters_sync when the ranges changed since the
// last sync.
// kernel/events/core.c: perf_event_addr_filters_sync()
func (k *Kernel) PerfEventAddrFiltersSync(e *Event) {
	if !hasAddrFilter(e) {
		return
	}
	if e.af.gen != e.af.hwGen {
		e.pmu.(AddrFilterPMU).AddrFiltersSync(e)
		e.af.hwGen = e.af.gen
		k.afStats.syncs++
	}
}

// AddrFilterError is a filter string perf_event_parse_addr_filter() refuses:
// the errno, and where (for the tests and the fuzz target; the kernel says
// only the errno).
type AddrFilterError struct {
	Errno uapi.Errno
	Token string // the token that failed ("" at the end of the string)
}

func (e *AddrFilterError) Error() string {
	if e.Token == "" {
		return fmt.Sprintf("address filter: %v at the end of the string", e.Errno)
	}
	return fmt.Sprintf("address filter: %v at %q", e.Errno, e.Token)
}

// Unwrap gives the errno.
func (e *AddrFilterError) Unwrap() error { return e.Errno }

// The if_tokens of perf_event_parse_addr_filter(), in match order.
const (
	ifActFilter = iota
	ifActStart
	ifActStop
	ifSrcFile       // %u/%u@%s
	ifSrcKernel     // %u/%u
	ifSrcFileAddr   // %u@%s
	ifSrcKernelAddr // %u
	ifActNone       = -1
)

// simpleStrtoul is simple_strtoul(s, &end, 0): the value and the bytes
// read (0: no digits; the radix prefix 0x counts only with a hex digit
// after it). It does not check overflow.
// lib/vsprintf.c: simple_strtoull() -> lib/kstrtox.c: _parse_integer_fixup_radix()
func simpleStrtoul(s string) (uint64, int) {
	base, i := uint64(10), 0
	if len(s) > 0 && s[0] == '0' {
		base = 8
		if len(s) > 2 && s[1]|0x20 == 'x' && isXDigit(s[2]) {
			base, i = 16, 2
		}
	}
	start := i
	var v uint64
	for ; i < len(s); i++ {
		d := digitVal(s[i])
		if d >= base {
			break
		}
		v = v*base + d
	}
	if i == start {
		return 0, 0
	}
	return v, i
}

// kstrtoul is kstrtoul(s, 0, &v) on the digits simple_strtoul read: ERANGE
// when the value does not fit in 64 bits.
// lib/kstrtox.c: _kstrtoull()
func kstrtoul(s string) (uint64, error) {
	base, i := uint64(10), 0
	if len(s) > 0 && s[0] == '0' {
		base = 8
		if len(s) > 2 && s[1]|0x20 == 'x' && isXDigit(s[2]) {
			base, i = 16, 2
		}
	}
	if i == len(s) {
		return 0, uapi.EINVAL
	}
	var v uint64
	for ; i < len(s); i++ {
		d := digitVal(s[i])
		if d >= base {
			return 0, uapi.EINVAL
		}
		if v > (^uint64(0)-d)/base {
			return 0, uapi.ERANGE
		}
		v = v*base + d
	}
	return v, nil
}

func isXDigit(c byte) bool { return digitVal(c) < 16 }

func digitVal(c byte) uint64 {
	switch {
	case c >= '0' && c <= '9':
		return uint64(c - '0')
	case c|0x20 >= 'a' && c|0x20 <= 'f':
		return uint64(c|0x20-'a') + 10
	}
	return 99
}

// matchToken is match_token(s, if_tokens, args): the first pattern of the
// table s matches, and the argument strings (%u, %u, %s).
// lib/parser.c: match_token() -> match_one()
func matchToken(s string) (int, []string) {
	switch s {
	case "filter":
		return ifActFilter, nil
	case "start":
		return ifActStart, nil
	case "stop":
		return ifActStop, nil
	}
	// %u: simple_strtoul must read something
	_, n1 := simpleStrtoul(s)
	if n1 == 0 {
		return ifActNone, nil
	}
	a1, rest := s[:n1], s[n1:]
	if strings.HasPrefix(rest, "/") {
		if _, n2 := simpleStrtoul(rest[1:]); n2 > 0 {
			a2, rest2 := rest[1:1+n2], rest[1+n2:]
			if len(rest2) > 1 && rest2[0] == '@' { // "%s": not empty
				return ifSrcFile, []string{a1, a2, rest2[1:]}
			}
			if rest2 == "" {
				return ifSrcKernel, []string{a1, a2}
			}
		}
		return ifActNone, nil
	}
	if len(rest) > 1 && rest[0] == '@' {
		return ifSrcFileAddr, []string{a1, rest[1:]}
	}
	if rest == "" {
		return ifSrcKernelAddr, []string{a1}
	}
	return ifActNone, nil
}

// ParseAddrFilter is the grammar of perf_event_parse_addr_filter(): tokens
// separated by space, comma or newline; each filter an action (filter,
// start, stop) and a source (ADDR[/SIZE] for the kernel, ADDR[/SIZE]@FILE
// for an object file; numbers in C notation: 0x hex, 0 octal); "filter"
// needs a size. EINVAL for a bad string, ERANGE for a number over 64 bits.
// taskCtx false is a CPU-wide event: a file filter is EOPNOTSUPP. lookup
// is kern_path(): the file of a path, an errno (ENOENT), or EINVAL for one
// that is no regular file; nil takes every path as a regular file.
// kernel/events/core.c: perf_event_parse_addr_filter()
func ParseAddrFilter(s string, taskCtx bool, lookup func(path string) (*mm.File, error)) ([]AddrFilter, int, error) {
	return parseAddrFilter(s, taskCtx, lookup, nil)
}

// parseAddrFilter is ParseAddrFilter whose allocations may fail: fails
// (nil: none fails) is asked at each, in the kernel's order: the string's
// kstrdup(), each filter's perf_addr_filter_new() as its definition
// begins, each file source's match_strdup() of the file name. A failure
// is -ENOMEM (-EINVAL for perf_addr_filter_new(): ret still holds the
// loop's -EINVAL) and takes the function's fail: path, free_filters_list()
// of the filters made so far (the model's filters hold no path to put).
// kernel/events/core.c: perf_event_parse_addr_filter()
func parseAddrFilter(s string, taskCtx bool, lookup func(path string) (*mm.File, error), fails func() bool) ([]AddrFilter, int, error) {
	const (
		stateAction = iota
		stateSource
		stateEnd
	)
	var filters []AddrFilter
	var f *AddrFilter
	state, kernel, nrFile := stateAction, false, 0
	fail := func(err error, tok string) ([]AddrFilter, int, error) {
		return nil, 0, &AddrFilterError{Errno: err.(uapi.Errno), Token: tok}
	}
	allocFails := func() bool { return fails != nil && fails() }
	if allocFails() { // "orig = fstr = kstrdup(fstr, GFP_KERNEL); if (!fstr) return -ENOMEM;"
		return fail(uapi.ENOMEM, "")
	}
	for _, tok := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\n' }) {
		if state == stateAction {
			// "ret = -EINVAL; ... filter = perf_addr_filter_new(event, filters); if (!filter) goto fail;":
			// the allocation's failure returns the loop's -EINVAL, not -ENOMEM
			if allocFails() {
				return fail(uapi.EINVAL, tok)
			}
			filters = append(filters, AddrFilter{}) // perf_addr_filter_new()
			f = &filters[len(filters)-1]
		}
		token, args := matchToken(tok)
		switch token {
		case ifActFilter, ifActStart, ifActStop:
			if state != stateAction {
				return fail(uapi.EINVAL, tok)
			}
			f.Action = [...]AddrFilterAction{PERF_ADDR_FILTER_ACTION_FILTER, PERF_ADDR_FILTER_ACTION_START, PERF_ADDR_FILTER_ACTION_STOP}[token]
			state = stateSource
		case ifSrcKernelAddr, ifSrcKernel, ifSrcFileAddr, ifSrcFile:
			kernel = token == ifSrcKernelAddr || token == ifSrcKernel
			if state != stateSource {
				return fail(uapi.EINVAL, tok)
			}
			var err error
			if f.Offset, err = kstrtoul(args[0]); err != nil {
				return fail(err, tok)
			}
			if token == ifSrcKernel || token == ifSrcFile {
				if f.Size, err = kstrtoul(args[1]); err != nil {
					return fail(err, tok)
				}
			}
			if !kernel {
				if allocFails() { // "filename = match_strdup(&args[fpos]); if (!filename) { ret = -ENOMEM; goto fail; }"
					return fail(uapi.ENOMEM, tok)
				}
				f.Path = args[len(args)-1]
			}
			state = stateEnd
		default:
			return fail(uapi.EINVAL, tok)
		}
		if state != stateEnd {
			continue
		}
		// "ACTION "filter" must have a non-zero length region specified."
		if f.Action == PERF_ADDR_FILTER_ACTION_FILTER && f.Size == 0 {
			return fail(uapi.EINVAL, tok)
		}
		if !kernel {
			// "For now, we only support file-based filters in per-task events"
			if !taskCtx {
				return fail(uapi.EOPNOTSUPP, tok)
			}
			if lookup != nil {
				file, err := lookup(f.Path)
				if err != nil {
					return fail(err, tok)
				}
				f.file = file
			}
			nrFile++
		}
		state, kernel = stateAction, false
	}
	if state != stateAction {
		return fail(uapi.EINVAL, "")
	}
	return filters, nrFile, nil
}

// kernPath is kern_path(path, LOOKUP_FOLLOW) and the S_ISREG check: every
// path exists in the model's file system; a device (/dev/...) is no
// regular file.
func (k *Kernel) kernPath(path string) (*mm.File, error) {
	if k.S == nil || k.S.FS == nil {
		return nil, uapi.ENOENT
	}
	if strings.HasPrefix(path, "/dev/") || path == "/dev" {
		return nil, uapi.EINVAL
	}
	return k.S.FS.Lookup(path), nil
}

// perfEventSetAddrFilter installs a filter string on e, under ctx->mutex
// (held by perf_ioctl): parse, let the driver validate, splice the new list
// in place of the old, then resolve the ranges of the event and each of its
// children (perf_event_for_each_child(), under child_mutex).
// kernel/events/core.c: perf_event_set_addr_filter()
func (k *Kernel) perfEventSetAddrFilter(t *sched.Task, e *Event, s string) error {
	if e.parent != nil { // WARN_ON_ONCE(event->parent)
		return uapi.EINVAL
	}
	e.af.setting++
	defer func() { e.af.setting-- }()
	taskCtx := e.ctx != nil && e.ctx.task != nil
	filters, nrFile, err := parseAddrFilter(s, taskCtx, k.kernPath, func() bool { return k.shouldFail(t, "perf_event_parse_addr_filter") })
	if err != nil {
		e.af.head.nrFileFilters = 0 // fail_clear_files
		return err.(*AddrFilterError).Errno
	}
	e.af.head.nrFileFilters += nrFile
	if err := e.pmu.(AddrFilterPMU).AddrFiltersValidate(filters); err != nil {
		e.af.head.nrFileFilters = 0
		return err
	}
	e.af.head.list = filters // perf_addr_filters_splice()
	t.Step("perf_event_set_addr_filter:spliced")
	k.S.MutexLock(t, &e.childMutex)
	k.perfEventAddrFiltersApply(t, e)
	for _, ch := range append([]*Event(nil), e.childList...) {
		k.perfEventAddrFiltersApply(t, ch)
	}
	k.S.MutexUnlock(t, &e.childMutex)
	return nil
}

// perfEventAddrFiltersApply resolves e's ranges against its task's current
// mappings (a kernel filter is its own range; before 52a44f83fc2d, knob
// addr-filter-range, a kernel filter's range stayed {0, 0}), bumps the
// generation and restarts e if ACTIVE.
// kernel/events/core.c: perf_event_addr_filters_apply()
func (k *Kernel) perfEventAddrFiltersApply(t *sched.Task, e *Event) {
	ctx := e.ctx
	if ctx == nil || ctx.dead { // TASK_TOMBSTONE
		return
	}
	ifh := e.addrFilters()
	var m *mm.MM
	if ifh.nrFileFilters > 0 {
		if ctx.task == nil || ctx.task.MM == nil { // get_task_mm() == NULL
			k.perfEventStop(t, e, true)
			return
		}
		m = ctx.task.MM
	}
	old := k.KnobIs("addr-filter-range", "pre-c60f83b813e5")
	for i, f := range ifh.list {
		if i >= len(e.af.ranges) {
			break
		}
		fr := &e.af.ranges[i]
		if f.Path != "" {
			*fr = AddrFilterRange{}
			if m != nil {
				perfAddrFilterApply(&f, m, fr, old)
			}
		} else if !k.KnobIs("addr-filter-range", "pre-52a44f83fc2d") {
			*fr = AddrFilterRange{Start: f.Offset, Size: f.Size}
		} else {
			*fr = AddrFilterRange{}
		}
	}
	k.afRestart(t, e, "perf_event_addr_filters_apply:gen-bumped")
}

// perfAddrFilterApply finds the first file mapping of mm the filter
// matches and sets fr from it.
// kernel/events/core.c: perf_addr_filter_apply()
func perfAddrFilterApply(f *AddrFilter, m *mm.MM, fr *AddrFilterRange, old bool) {
	for _, v := range m.VMAs {
		if v.File == nil {
			continue
		}
		if perfAddrFilterVMAAdjust(f, v, fr, old, false) {
			return
		}
	}
}

// perfAddrFilterMatch: the filter names v's file and its region overlaps
// or touches [off, off+size) of the file.
// kernel/events/core.c: perf_addr_filter_match()
func perfAddrFilterMatch(f *AddrFilter, file *mm.File, off, size uint64, nullDeref bool) bool {
	if f.file == nil && f.Path == "" && nullDeref {
		// before 7f635ff187ab: d_inode(filter->path.dentry) of a kernel filter
		panicCrash("BUG: kernel NULL pointer dereference, address: 0000000000000030: perf_addr_filter_match() d_inode(NULL) for a kernel address filter (perf_event_mmap -> __perf_addr_filters_adjust)")
	}
	// "d_inode(NULL) won't be equal to any mapped user-space file"
	if f.file == nil || file != f.file {
		return false
	}
	if f.Offset > off+size {
		return false
	}
	if f.Offset+f.Size < off {
		return false
	}
	return true
}

// perfAddrFilterVMAAdjust sets fr to where the filter's part of the file
// is mapped by v. Before c60f83b813e5 (knob addr-filter-range) the range was
// the mapping's start plus the filter's file offset, whatever v's vm_pgoff,
// with the filter's size.
// kernel/events/core.c: perf_addr_filter_vma_adjust()
func perfAddrFilterVMAAdjust(f *AddrFilter, v *mm.VMA, fr *AddrFilterRange, old, nullDeref bool) bool {
	vmaSize := v.Len()
	off := v.Pgoff * mm.PageSize
	if !perfAddrFilterMatch(f, v.File, off, vmaSize, nullDeref) {
		return false
	}
	if old {
		// addr_filters_offs[count] = vma->vm_start; the driver added filter->offset
		*fr = AddrFilterRange{Start: v.Start + f.Offset, Size: f.Size}
		return true
	}
	if f.Offset < off {
		fr.Start = v.Start
		fr.Size = min(vmaSize, f.Size-(off-f.Offset))
	} else {
		fr.Start = v.Start + f.Offset - off
		fr.Size = min(v.End-fr.Start, f.Size)
	}
	return true
}

// perfEventAddrFiltersExec clears the ranges of the file filters of every
// event of t's context at exec ("they'll have to be re-instated when/if
// these objects are mmapped again") and restarts those that had any.
// kernel/events/core.c: perf_event_exec() -> perf_event_addr_filters_exec()
func (k *Kernel) perfEventAddrFiltersExec(t *sched.Task) {
	ctx := k.taskCtx[t]
	if ctx == nil || ctx.dead {
		return
	}
	for _, e := range append([]*Event(nil), ctx.events...) { // perf_iterate_ctx(ctx, ..., all)
		if !hasAddrFilter(e) {
			continue
		}
		restart := 0
		for i, f := range e.addrFilters().list {
			if f.Path != "" && i < len(e.af.ranges) {
				e.af.ranges[i] = AddrFilterRange{}
				restart++
			}
		}
		if restart == 0 {
			continue
		}
		k.afRestart(t, e, "perf_event_addr_filters_exec:gen-bumped")
	}
}

// perfAddrFiltersAdjust points the file filters of t's events at a new
// executable mapping of their file (the last mapping wins) and restarts the
// events whose ranges moved. Only when some event records mmaps
// (perf_event_mmap() returns early without nr_mmap_events).
// kernel/events/core.c: perf_event_mmap() -> perf_addr_filters_adjust() -> __perf_addr_filters_adjust()
func (k *Kernel) perfAddrFiltersAdjust(t *sched.Task, v *mm.VMA) {
	if k.nrMmapEvents == 0 || v.Flags&mm.VM_EXEC == 0 || v.File == nil {
		return
	}
	ctx := k.taskCtx[t]
	if ctx == nil || ctx.dead {
		return
	}
	old := k.KnobIs("addr-filter-range", "pre-c60f83b813e5")
	nullDeref := k.KnobIs("addr-filter-kernel-match", "pre-7f635ff187ab")
	for _, e := range append([]*Event(nil), ctx.events...) {
		if !hasAddrFilter(e) {
			continue
		}
		restart := 0
		for i, f := range e.addrFilters().list {
			if i < len(e.af.ranges) && perfAddrFilterVMAAdjust(&f, v, &e.af.ranges[i], old, nullDeref) {
				restart++
			}
		}
		if restart == 0 {
			continue
		}
		k.afRestart(t, e, "perf_addr_filters_adjust:gen-bumped")
	}
}

// afRestart publishes e's new ranges: addr_filters_gen++ (the driver
// re-syncs at its next start), then perf_event_stop(event, 1) restarts it.
// kernel/events/core.c: perf_event_addr_filters_apply(), perf_event_addr_filters_exec(), __perf_addr_filters_adjust()
func (k *Kernel) afRestart(t *sched.Task, e *Event, step string) {
	e.af.gen++
	k.afStats.genBumps++
	t.Step(step)
	k.perfEventStop(t, e, true)
}

// afStats counts what the address filter code did (observables).
type afStats struct {
	syncs, genBumps, setFilters uint64
}

func init() {
	KnobSpecs = append(KnobSpecs, sim.KnobSpec{
		Name:    "addr-filter-clone",
		Values:  []string{"today", "pre-18736eef1213"},
		Implies: map[string][]string{"pre-18736eef1213": closeFputPreV66}, // v5.1
		Help: "perf_event_alloc() of an inherited event with address filters: today it copies the parent's addr_filter_ranges (valid until exec); " +
			"before, the child's ranges were all {0, 0}, so its first sync loaded empty file ranges and the child traced nothing until an exec or an mmap of the file",
		Source:  "18736eef1213 perf: Copy parent's address filter offsets on clone (Fixes 375637bc5249)",
		Package: "pmu",
	}, sim.KnobSpec{
		Name:    "addr-filter-range",
		Values:  []string{"today", "pre-52a44f83fc2d", "pre-c60f83b813e5"},
		Implies: map[string][]string{"pre-52a44f83fc2d": closeFputPreV66, "pre-c60f83b813e5": closeFputPreV66}, // v5.1, v5.0
		Help: "how a filter becomes a range: today perf_addr_filter_vma_adjust() takes the mapping's vm_pgoff into account and a kernel filter is its own range; " +
			"pre-52a44f83fc2d (after c60f83b813e5): a kernel filter's range stays {0, 0}; pre-c60f83b813e5: a file filter's range starts at vm_start + the filter's file offset " +
			"(off by vm_pgoff pages for a text mapping at a non-zero file offset)",
		Source:  "c60f83b813e5 perf, pt, coresight: Fix address filters for vmas with non-zero offset; 52a44f83fc2d perf/core: Fix the address filtering fix",
		Package: "pmu",
	}, sim.KnobSpec{
		Name:    "addr-filter-kernel-match",
		Values:  []string{"today", "pre-7f635ff187ab"},
		Implies: map[string][]string{"pre-7f635ff187ab": closeFputPreV66}, // v4.18
		Help: "perf_addr_filter_match() on a kernel filter (no path): today it matches no file; before the fix it dereferenced d_inode(NULL), " +
			"so an executable mmap (perf_event_mmap() -> __perf_addr_filters_adjust()) of a task whose event had a kernel address filter oopsed",
		Source:  "7f635ff187ab perf/core: Fix crash when using HW tracing kernel filters (Mathieu Poirier; Fixes 9511bce9fe8e perf/core: Fix bad use of igrab())",
		Package: "pmu",
	})
	RegisterStepHelp(map[string]string{
		"perf_event_set_addr_filter:spliced":       "kernel/events/core.c: perf_event_set_addr_filter(): the new filter list spliced in (perf_addr_filters_splice()), the ranges not yet resolved (perf_event_addr_filters_apply())",
		"perf_event_addr_filters_apply:gen-bumped": "kernel/events/core.c: perf_event_addr_filters_apply(): addr_filter_ranges resolved and addr_filters_gen bumped, before perf_event_stop(event, 1) restarts the ACTIVE event on its CPU so its start syncs them",
		"perf_event_addr_filters_exec:gen-bumped":  "kernel/events/core.c: perf_event_addr_filters_exec(): at exec, the file filters' ranges cleared and addr_filters_gen bumped, before perf_event_stop(event, 1)",
		"perf_addr_filters_adjust:gen-bumped":      "kernel/events/core.c: __perf_addr_filters_adjust(): a new executable mapping of a filter's file set its range and bumped addr_filters_gen, before perf_event_stop(event, 1)",
	})
	RegisterObservable("addr-filter.syncs", "perf_event_addr_filters_sync() calls that ran pmu->addr_filters_sync (the generation had moved)",
		func(k *Kernel) int64 { return int64(k.afStats.syncs) })
	RegisterObservable("addr-filter.gen-bumps", "addr_filters_gen increments (SET_FILTER's apply, exec, mmap of a filter's file)",
		func(k *Kernel) int64 { return int64(k.afStats.genBumps) })
	RegisterObservable("addr-filter.set", "PERF_EVENT_IOC_SET_FILTER calls that installed address filters",
		func(k *Kernel) int64 { return int64(k.afStats.setFilters) })
}

// ImageSymbol is the address of the function name in the user image
// (kernel false) or the kernel's: where pmu/image.go placed it, placing it
// now if no program ran there yet (every function a program names is in the
// images).
func (k *Kernel) ImageSymbol(name string, kernel bool) uint64 { return k.fakeIP(name, kernel) }

// File is the inode a file filter names (d_inode(filter->path.dentry)).
func (f *AddrFilter) File() *mm.File { return f.file }
