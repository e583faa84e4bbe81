package perftool

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// recordOpts mirrors the parts of struct record_opts / callchain_param that
// the command line sets (tools/perf/util/record.h, builtin-record.c).
type recordOpts struct {
	events        []string
	userInterval  uint64 // -c (ULLONG_MAX in perf: unset)
	userIntervalS bool   // user_interval != ULLONG_MAX
	userFreq      uint32 // -F (UINT_MAX in perf: unset)
	userFreqS     bool   // user_freq != UINT_MAX
	target        Target
	noInherit     bool
	noInheritSet  bool // -i given (OPT_BOOLEAN_SET: opts->no_inherit_set)
	mmapPages     int  // -m (0: unset, perf's UINT_MAX)
	auxPages      int  // -m ,N
	auxSet        bool
	messages      []Message // what option parsing printed
	maxRate       uint32    // perf_event_max_sample_rate (-F max)
	overwrite     bool
	snapshot      *string // -S[opts]
	auxSample     *string // --aux-sample[=opts]
	callgraph     *callchain
	sampleAddress bool // -d
	inheritStat   bool // -s/--stat: opts->inherit_stat
	sampleDataSrc bool
	rawSamples    bool // -R
	sampleCPU     bool // --sample-cpu
	// noSampleTime is --no-timestamp (opts->sample_time false);
	// sampleTimeSet that -T or --no-timestamp was given (opts->sample_time_set).
	noSampleTime, sampleTimeSet bool
	sampleIdentifier            bool  // --sample-identifier
	switchEvents                bool  // --switch-events: attr.context_switch on the tracking event
	noBPFEvent                  bool  // --no-bpf-event
	buildIDMmap                 *bool // --[no-]buildid-mmap; nil: the tool's default
	noBuildID                   bool  // -B/--no-buildid
	noBuildIDCache              bool  // -N/--no-buildid-cache
	buildIDAll                  bool  // --buildid-all
	recordCgroup                bool  // --all-cgroups
	strictFreq                  bool
	output                      string      // -o
	cgroups                     []cgroupOpt // -G, in order (cgroup.go)
	filters                     []cmdFilter // --filter, each after len(events) -e options
	verbose                     int         // -v, counted (verbose > 0: perf's pr_debug and ui__warning lines)
	quiet                       bool        // -q: verbose = -1, pr_info() silent
	allUser, allKernel          bool        // --all-user, --all-kernel
	noBuffering                 bool        // --no-buffering: a wakeup per sample
	runningTime                 bool        // --running-time
	period, periodSet           bool        // -P/--period, --no-period (opts->period_set)
	affinity                    string      // --affinity: "node", "cpu"; "" is sys
	delay                       *string     // -D, as given
	delayOpt                    string      // the option as written, for its error
}

// option is one perf record option this model understands.
type option struct {
	short  byte
	long   string
	arg    int // 0 none, 1 required, 2 optional (only with = / attached)
	handle func(o *recordOpts, val string, opt string) error
}

// buildIDMmapOn is rec->buildid_mmap: perf 6.1 defaults it off, today's
// perf on (record.buildid_mmap = true).
func (ro *recordOpts) buildIDMmapOn(t61 bool) bool {
	if ro.buildIDMmap != nil {
		return *ro.buildIDMmap
	}
	return !t61
}

func boolOpt(set func(o *recordOpts)) func(*recordOpts, string, string) error {
	return func(o *recordOpts, _ string, _ string) error { set(o); return nil }
}

// recordOptions lists the supported options (tools/perf/builtin-record.c: __record_options).
var recordOptions = []option{
	{'e', "event", 1, func(o *recordOpts, v, _ string) error { o.events = append(o.events, v); return nil }},
	{0, "filter", 1, func(o *recordOpts, v, opt string) error {
		if len(o.events) == 0 { // parse_filter(), an option callback: perf prints the usage and exits 129
			return errf(opt, "--filter option should follow a -e tracepoint or HW tracer option")
		}
		o.filters = append(o.filters, cmdFilter{afterEvents: len(o.events), str: v})
		return nil
	}},
	{'c', "count", 1, func(o *recordOpts, v, opt string) error {
		// OPT_U64: parse-options.c get_value(): strtoull(arg, &s, 10),
		// which saturates at ULLONG_MAX, perf's "unset"
		if strings.HasPrefix(v, "-") {
			return optError(opt, "expects an unsigned numerical value")
		}
		n, rest := strtoull(v)
		if rest != "" {
			return optError(opt, "expects a numerical value")
		}
		o.userInterval, o.userIntervalS = n, n != math.MaxUint64
		if n == 0 {
			o.messages = append(o.messages, Message{Option: opt, Note: true,
				Text: "-c 0 sets no sample period: perf samples at its default frequency instead (4000 Hz, as -F 4000), without a word"})
		}
		return nil
	}},
	{'F', "freq", 1, func(o *recordOpts, v, opt string) error {
		// builtin-record.c: record__parse_freq(): "max" is the sysctl,
		// anything else atoi() into an unsigned int (UINT_MAX: unset)
		if strings.EqualFold(v, "max") {
			o.userFreq, o.userFreqS = o.maxRate, o.maxRate != math.MaxUint32
			o.messages = append(o.messages, Message{Option: opt, Text: fmt.Sprintf("info: Using a maximum frequency rate of %d Hz", int32(o.maxRate))})
			return nil
		}
		n := uint32(atoi(v))
		o.userFreq, o.userFreqS = n, n != math.MaxUint32
		return nil
	}},
	{'a', "all-cpus", 0, boolOpt(func(o *recordOpts) { o.target.SystemWide = true })},
	{'G', "cgroup", 1, parseCgroupOpt},
	{'C', "cpu", 1, func(o *recordOpts, v, opt string) error {
		cpus, err := parseCPUList(v)
		if err != nil {
			return errf(opt, "%v", err)
		}
		o.target.CPUList = cpus
		return nil
	}},
	{0, "per-thread", 0, boolOpt(func(o *recordOpts) { o.target.PerThread = true })},
	{'i', "no-inherit", 0, boolOpt(func(o *recordOpts) { o.noInherit, o.noInheritSet = true, true })},
	// -p/-t: perf takes pids and tids; a scenario names tasks (perftool.Target.PID/TID)
	{'p', "pid", 1, func(o *recordOpts, v, opt string) error { return setTaskTarget(&o.target.PID, v, opt) }},
	{'t', "tid", 1, func(o *recordOpts, v, opt string) error { return setTaskTarget(&o.target.TID, v, opt) }},
	{'s', "stat", 0, boolOpt(func(o *recordOpts) { o.inheritStat = true })}, // "per thread counts"
	{'m', "mmap-pages", 1, func(o *recordOpts, v, opt string) error {
		// builtin-record.c: record__parse_mmap_pages(): "DATA[,AUX]", each
		// parsed (and rounded, with a message) as it is read
		data, aux, hasAux := strings.Cut(v, ",")
		var printed []string // this -m's rounding lines, which perf prints before a refusal too
		for i, part := range []string{data, aux} {
			if i == 0 && part == "" || i == 1 && !hasAux {
				continue
			}
			n, warn, err := parsePages(part)
			if warn != "" {
				printed = append(printed, warn)
			}
			if pe := (*Error)(nil); errors.As(err, &pe) && len(printed) > 0 {
				// perf 6.1 here: "rounding mmap pages size to 524288G
				// (137438953472 pages)", then "Invalid argument for
				// --mmap_pages/-m" (testdata/perf61-options.txt)
				return &Error{Option: pe.Option, Reason: strings.Join(append(printed, pe.Reason), "\n")}
			}
			if warn != "" {
				o.messages = append(o.messages, Message{Option: opt, Text: warn})
			}
			if err != nil {
				return err
			}
			if i == 0 {
				o.mmapPages = n
			} else {
				o.auxPages, o.auxSet = n, true
			}
		}
		return nil
	}},
	{0, "overwrite", 0, boolOpt(func(o *recordOpts) { o.overwrite = true })},
	{'S', "snapshot", 2, func(o *recordOpts, v, _ string) error { o.snapshot = &v; return nil }},
	{0, "aux-sample", 2, func(o *recordOpts, v, _ string) error { o.auxSample = &v; return nil }},
	{'g', "", 0, func(o *recordOpts, _, opt string) error {
		// builtin-record.c: record_callchain_opt(): -g is --call-graph fp
		cc, err := parseCallchain("fp", opt)
		o.callgraph = cc
		return err
	}},
	{0, "call-graph", 1, func(o *recordOpts, v, opt string) error {
		cc, err := parseCallchain(v, opt)
		if err != nil {
			return err
		}
		o.callgraph = cc
		if cc.mode == callchainDWARF {
			// record_opts__parse_callchain(): "Enable data address sampling for DWARF unwind."
			o.sampleAddress, o.sampleDataSrc = true, true
		}
		return nil
	}},
	// -d: sample_address; cmd_record() (perf 6.1: evsel__config() on
	// sample_address) adds PERF_SAMPLE_DATA_SRC: "-d implies --mem-info".
	{'d', "data", 0, boolOpt(func(o *recordOpts) { o.sampleAddress, o.sampleDataSrc = true, true })},
	{'R', "raw-samples", 0, boolOpt(func(o *recordOpts) { o.rawSamples = true })},
	{0, "sample-cpu", 0, boolOpt(func(o *recordOpts) { o.sampleCPU = true })},
	// OPT_BOOLEAN_SET('T', "timestamp", &opts.sample_time, &opts.sample_time_set): parse-options
	// takes its negation --no-timestamp too
	{'T', "timestamp", 0, boolOpt(func(o *recordOpts) { o.noSampleTime, o.sampleTimeSet = false, true })},
	{0, "no-timestamp", 0, boolOpt(func(o *recordOpts) { o.noSampleTime, o.sampleTimeSet = true, true })},
	{0, "sample-identifier", 0, boolOpt(func(o *recordOpts) { o.sampleIdentifier = true })},
	{0, "switch-events", 0, boolOpt(func(o *recordOpts) { o.switchEvents = true })},
	{0, "no-bpf-event", 0, boolOpt(func(o *recordOpts) { o.noBPFEvent = true })},
	{0, "buildid-mmap", 0, boolOpt(func(o *recordOpts) { o.buildIDMmap = new(true) })},
	{0, "no-buildid-mmap", 0, boolOpt(func(o *recordOpts) { o.buildIDMmap = new(false) })},
	{'B', "no-buildid", 0, boolOpt(func(o *recordOpts) { o.noBuildID = true })},
	{'N', "no-buildid-cache", 0, boolOpt(func(o *recordOpts) { o.noBuildIDCache = true })},
	{0, "buildid-all", 0, boolOpt(func(o *recordOpts) { o.buildIDAll = true })},
	{0, "all-cgroups", 0, boolOpt(func(o *recordOpts) { o.recordCgroup = true })},
	{0, "strict-freq", 0, boolOpt(func(o *recordOpts) { o.strictFreq = true })},
	{'o', "output", 1, func(o *recordOpts, v, _ string) error { o.output = v; return nil }},
	{'q', "quiet", 0, boolOpt(func(o *recordOpts) { o.quiet = true })},
	// PARSE_OPT_EXCLUSIVE: the second of the two is perf's usage error
	{0, "all-user", 0, func(o *recordOpts, _, opt string) error {
		o.allUser = true
		return exclusive(opt, o.allKernel, "all-kernel")
	}},
	{0, "all-kernel", 0, func(o *recordOpts, _, opt string) error {
		o.allKernel = true
		return exclusive(opt, o.allUser, "all-user")
	}},
	{0, "no-buffering", 0, boolOpt(func(o *recordOpts) { o.noBuffering = true })},
	{0, "running-time", 0, boolOpt(func(o *recordOpts) { o.runningTime = true })},
	// -P/--period is OPT_BOOLEAN_SET: --no-period clears PERIOD even under -F
	{'P', "period", 0, boolOpt(func(o *recordOpts) { o.period, o.periodSet = true, true })},
	{0, "no-period", 0, boolOpt(func(o *recordOpts) { o.period, o.periodSet = false, true })},
	// record__parse_affinity(): node or cpu (any case); anything else
	// leaves perf's default, sys, without a word
	{0, "affinity", 1, func(o *recordOpts, v, _ string) error {
		switch strings.ToLower(v) {
		case "node", "cpu":
			o.affinity = strings.ToLower(v)
		}
		return nil
	}},
	// perf 6.1's OPT_INTEGER, today's callback (str_to_delay(), or time
	// ranges): read in config, which knows the perf version (initialDelay)
	{'D', "delay", 1, func(o *recordOpts, v, opt string) error { o.delay, o.delayOpt = &v, opt; return nil }},
	{'v', "verbose", 0, boolOpt(func(o *recordOpts) { o.verbose++ })},
}

// exclusive is parse_options_step()'s PARSE_OPT_EXCLUSIVE check: opt after
// the other option of its set, already given, is refused (perf prints its
// usage and exits 129).
// tools/lib/subcmd/parse-options.c: get_value()
func exclusive(opt string, otherSet bool, other string) error {
	if !otherSet {
		return nil
	}
	return errf(opt, "option `%s' cannot be used with %s", strings.TrimPrefix(opt, "--"), other)
}

// known perf record options this model does not implement: named in the error.
var unsupported = map[string]bool{
	"uid": true, "u": true,
	"branch-filter": true, "b": true, "branch-any": true, "j": true, "intr-regs": true, "I": true,
	"user-regs": true, "clockid": true, "k": true, "cgroup": true, "G": true,
	"transaction": true, "weight": true, "W": true, "phys-data": true, "namespaces": true,
	"N": true, "inherit-stat": true,
	"switch-output": true, "aio": true, "threads": true, "mmap-flush": true,
	"user-callchains": true, "kernel-callchains": true, "exclude-perf": true,
	"n": true, "r": true, "z": true, // --no-samples, --realtime, --compression-level
}

func parseCPUList(s string) ([]int, error) {
	// tools/lib/perf/cpumap.c: perf_cpu_map__new() ("0-3,5")
	var out []int
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("invalid cpu list '%s'", s)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("invalid cpu list '%s'", s)
			}
		}
		if b-a > 4096 {
			return nil, fmt.Errorf("invalid cpu list '%s'", s)
		}
		for c := a; c <= b; c++ {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	// the map is sorted
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out, nil
}

func findLong(name string) *option {
	for i := range recordOptions {
		if recordOptions[i].long == name && name != "" {
			return &recordOptions[i]
		}
	}
	return nil
}

func findShort(c byte) *option {
	for i := range recordOptions {
		if recordOptions[i].short == c && c != 0 {
			return &recordOptions[i]
		}
	}
	return nil
}

// parseArgs models tools/lib/subcmd/parse-options.c: parse_options() with
// PARSE_OPT_STOP_AT_NON_OPTION, as cmd_record() calls it.
func parseArgs(args []string, maxRate uint32) (*recordOpts, error) {
	o := &recordOpts{maxRate: maxRate}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			o.target.Workload = append([]string(nil), args[i+1:]...)
			return o, nil
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			opt := findLong(name)
			if opt == nil && !unsupported[name] {
				// parse-options.c parse_long_opt(): a unique abbreviation
				full, err := abbreviation(name)
				if err != nil {
					return nil, err
				}
				name, opt = full, findLong(full)
			}
			if opt == nil {
				if unsupported[name] || slices.Contains(perfLongOptions, name) {
					return nil, errf("--"+name, "option not supported by the simulator")
				}
				return nil, errf("--"+name, "unknown option%s", didYouMean("--"+name, optionNames()))
			}
			switch opt.arg {
			case 0:
				if hasVal {
					return nil, errf("--"+name, "takes no value")
				}
			case 1:
				if !hasVal {
					if i+1 >= len(args) {
						return nil, errf("--"+name, "requires a value")
					}
					i++
					val = args[i]
				}
			}
			if err := opt.handle(o, val, "--"+name); err != nil {
				return nil, err
			}
		case len(a) > 1 && a[0] == '-':
			// bundled short options: -ag, -c1000, -m 16, -S (optional arg attached only)
			for j := 1; j < len(a); j++ {
				c := a[j]
				opt := findShort(c)
				name := "-" + string(c)
				if opt == nil {
					if unsupported[string(c)] {
						return nil, errf(name, "option not supported by the simulator")
					}
					return nil, errf(name, "unknown switch")
				}
				val := ""
				switch opt.arg {
				case 1:
					if j+1 < len(a) {
						val = a[j+1:]
					} else if i+1 < len(args) {
						i++
						val = args[i]
					} else {
						return nil, errf(name, "requires a value")
					}
					j = len(a)
				case 2:
					val = a[j+1:]
					j = len(a)
				}
				if err := opt.handle(o, val, name); err != nil {
					return nil, err
				}
			}
		default:
			o.target.Workload = append([]string(nil), args[i:]...)
			return o, nil
		}
	}
	return o, nil
}

// perfLongOptions are perf record's long options in the order of its table
// (perf 6.1: perf record --list-opts), which decides how abbreviations
// resolve and which ones are ambiguous.
var perfLongOptions = strings.Fields(`event filter exclude-perf pid tid realtime no-buffering raw-samples
	all-cpus cpu count output no-inherit tail-synthesize overwrite no-bpf-event strict-freq freq mmap-pages
	mmap-flush group call-graph verbose quiet stat data phys-data data-page-size code-page-size sample-cpu
	sample-identifier timestamp period no-samples no-buildid-cache no-buildid cgroup delay kcore uid
	branch-any branch-filter weight transaction per-thread intr-regs user-regs running-time clockid snapshot
	aux-sample proc-map-timeout namespaces all-cgroups switch-events all-kernel all-user kernel-callchains
	user-callchains clang-path clang-opt vmlinux buildid-all buildid-mmap timestamp-filename
	timestamp-boundary switch-output switch-output-event switch-max-files dry-run aio affinity
	compression-level max-size num-thread-synthesize control synth debuginfod threads off-cpu`)

// abbreviation resolves a long option given by a prefix, as parse_long_opt()
// does: one option it starts is that option; two or more are "Ambiguous
// option" (naming the last two in table order); none leaves name as it is.
func abbreviation(name string) (string, error) {
	var matches []string
	for _, l := range perfLongOptions {
		if strings.HasPrefix(l, name) && name != "" {
			matches = append(matches, l)
		}
	}
	switch len(matches) {
	case 0:
		return name, nil
	case 1:
		return matches[0], nil
	}
	n := len(matches)
	return "", errf("--"+name, "Ambiguous option: %s (could be --%s or --%s)", name, matches[n-2], matches[n-1])
}

// optError is parse-options.c opterror(): "switch `c' expects a numerical
// value" for a short option, "option `count' ..." for a long one.
func optError(opt, reason string) *Error {
	if name, ok := strings.CutPrefix(opt, "--"); ok {
		return errf(opt, "option `%s' %s", name, reason)
	}
	return errf(opt, "switch `%s' %s", strings.TrimPrefix(opt, "-"), reason)
}

// cNumberStart skips what strtol() and strtoull() skip before the digits:
// isspace() blanks and one sign; it returns where the digits start.
func cNumberStart(s string) (i int, neg bool) {
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	return i, neg
}

// strtoull is C's strtoull(s, &end, 10): leading blanks, a sign (a minus
// negates modulo 2^64), digits, saturating at ULLONG_MAX; rest is what is
// left after the number (all of s when there are no digits).
func strtoull(s string) (v uint64, rest string) {
	i, neg := cNumberStart(s)
	start, sat := i, false
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if v > (math.MaxUint64-d)/10 {
			sat = true
		}
		v = v*10 + d
	}
	if i == start {
		return 0, s
	}
	switch {
	case sat:
		v = math.MaxUint64
	case neg:
		v = -v
	}
	return v, s[i:]
}

// strtol is C's strtol(s, NULL, 10): like strtoull, saturating at
// LONG_MIN and LONG_MAX.
func strtol(s string) int64 {
	i, neg := cNumberStart(s)
	var v uint64 // saturates at 1<<63
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if v > (1<<63)/10 {
			v = 1 << 63
			continue
		}
		v = min(v*10+uint64(s[i]-'0'), 1<<63)
	}
	switch {
	case neg:
		return -int64(min(v, 1<<63-1)) - int64(v>>63)
	case v > math.MaxInt64:
		return math.MaxInt64
	}
	return int64(v)
}

// atoi is glibc's atoi(): (int)strtol(s, NULL, 10), the long cut to 32 bits.
func atoi(s string) int32 { return int32(strtol(s)) }

// setTaskTarget parses -p/-t's value: comma-separated names (perf's
// thread_map__new_str() takes comma-separated numbers; a scenario names
// the tasks). Given twice, the last one counts (OPT_STRING).
func setTaskTarget(dst *[]string, v, opt string) error {
	var names []string
	for n := range strings.SplitSeq(v, ",") {
		if n == "" {
			return errf(opt, "invalid task list '%s': want NAME[,NAME...] (the simulated tasks' names)", v)
		}
		if !slices.Contains(names, n) { // intlist__new(): a set, a pid named twice is one
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return errf(opt, "invalid task list '%s': want NAME[,NAME...] (the simulated tasks' names)", v)
	}
	*dst = names
	return nil
}
