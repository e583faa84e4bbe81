package explore

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// ReplayFile is what `simrun replay` reads: the identity of the run (the
// scenario and a hash of its text, every knob's value and their hash, the
// version that wrote it), the question of every decision, the violation and
// its signature, and the decision list. Format, one item a line, '#'
// comments:
//
//	# perfsim replay file: simrun replay FILE re-runs this schedule exactly
//	format: 3
//	simrun: 0.2.0
//	scenario: aux-pause-resume-nmi
//	file: builtin/aux-pause-resume-nmi.sim
//	scenario-sha256: 64 hex digits
//	kernel: aux-pause-guard=off            (an override; repeatable)
//	knob: aux-pause-guard=off              (every knob's resolved value; repeatable)
//	knobs-sha256: 64 hex digits
//	strategy: random
//	seed: 28
//	limit: 10s
//	limit-sha256: 64 hex digits            (of the limit line's value: an edit is refused)
//	violation: invariant pmu-pause-resume-exclusive at 11.25us: ...
//	signature: invariant pmu-pause-resume-exclusive
//	decisions: 102                         (the decisions the run made)
//	questions-sha256: 64 hex digits        (of every decision's question and option count)
//	question: 2 tie                        (the distinct questions: options, label; repeatable)
//	question-ids: base64url of the deflated uvarint stream of each decision's question
//	token: s2....
//
// A file without a format line is format 1, written before the identity was
// recorded: it has scenario, file, kernel, strategy, seed, limit, violation
// and token lines. In a format 2 file the limit and limit-sha256 lines may be
// missing (files written before the limit was hashed): Replay notes that an
// edit of the limit cannot be told. Format 3 requires both.
type ReplayFile struct {
	Format         int    // 1, 2 or ReplayFormat
	Version        string // the simrun version that wrote it (format 2 on)
	Scenario       string
	File           string // the scenario's file: a path, or builtin/NAME.sim
	ScenarioSHA256 string
	Kernel         []string // the knob overrides, NAME=VALUE
	Knobs          []string // every knob's resolved value, NAME=VALUE, sorted
	KnobsSHA256    string
	Strategy       string
	Seed           uint64
	Limit          sim.Time // 0: the default
	// LimitSHA256 is LimitSHA256(Limit), "" in a file written before the
	// limit was part of its identity.
	LimitSHA256 string
	Violation   string
	Signature   string // the violation's signature (explore's shrinking keeps it)
	// Questions is every decision's question (nil in a format 1 file);
	// QuestionsSHA256 its hash.
	Questions       *Questions
	QuestionsSHA256 string
	// Disturbing is written as comment lines, for people: the disturbing
	// choices as trace lines. It is not read back.
	Disturbing []string
	Decisions  []int

	name  string
	lines map[string]int // the line of each key (its first occurrence)
}

// WriteTo writes the file.
func (f *ReplayFile) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	kv := func(k, v string) { fmt.Fprintf(&b, "%s: %s\n", k, strings.ReplaceAll(v, "\n", " ")) }
	b.WriteString("# perfsim replay file: simrun replay FILE re-runs this schedule exactly\n")
	if f.Format >= 2 {
		kv("format", strconv.Itoa(f.Format))
		kv("simrun", f.Version)
	}
	kv("scenario", f.Scenario)
	kv("file", f.File)
	if f.Format >= 2 {
		kv("scenario-sha256", f.ScenarioSHA256)
	}
	for _, k := range f.Kernel {
		kv("kernel", k)
	}
	if f.Format >= 2 {
		for _, k := range f.Knobs {
			kv("knob", k)
		}
		kv("knobs-sha256", f.KnobsSHA256)
	}
	kv("strategy", f.Strategy)
	kv("seed", strconv.FormatUint(f.Seed, 10))
	if f.Limit > 0 {
		kv("limit", scenarios.FormatDuration(time.Duration(f.Limit)))
		// a format 2 file read without one writes none (an empty one
		// would not parse back)
		if f.Format >= 3 || f.Format == 2 && f.LimitSHA256 != "" {
			kv("limit-sha256", f.LimitSHA256)
		}
	}
	kv("violation", f.Violation)
	if f.Format >= 2 {
		kv("signature", f.Signature)
	}
	if len(f.Disturbing) > 0 {
		b.WriteString("# disturbing choices:\n")
		for _, l := range f.Disturbing {
			fmt.Fprintf(&b, "#   %s\n", strings.ReplaceAll(l, "\n", " "))
		}
	}
	if f.Format >= 2 {
		q := f.Questions
		if q == nil {
			q = &Questions{}
		}
		kv("decisions", strconv.Itoa(q.Len()))
		kv("questions-sha256", f.QuestionsSHA256)
		for _, x := range q.Table {
			kv("question", fmt.Sprintf("%d %s", x.N, x.What))
		}
		kv("question-ids", q.encodeIDs())
	}
	kv("token", sim.EncodeToken(f.Decisions))
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// Line is the line of key in the file that was parsed (0: none).
func (f *ReplayFile) Line(key string) int { return f.lines[key] }

// Name is the name the file was parsed as.
func (f *ReplayFile) Name() string { return f.name }

// errorf is an error at the line of key: "FILE:LINE: ...".
func (f *ReplayFile) errorf(key, format string, args ...any) error {
	if l := f.lines[key]; l > 0 {
		return fmt.Errorf("%s:%d: %s", f.name, l, fmt.Sprintf(format, args...))
	}
	return fmt.Errorf("%s: %s", f.name, fmt.Sprintf(format, args...))
}

// replayKeys are the keys of a replay file; true: it may repeat.
var replayKeys = map[string]bool{
	"format": false, "simrun": false, "scenario": false, "file": false, "scenario-sha256": false,
	"kernel": true, "knob": true, "knobs-sha256": false, "strategy": false, "seed": false, "limit": false, "limit-sha256": false,
	"violation": false, "signature": false, "decisions": false, "questions-sha256": false,
	"question": true, "question-ids": false, "token": false,
}

// format2Keys are required in a file of format 2 or later, and allowed only
// there; format3Keys are required from format 3 on (explore always writes a
// limit), so a file whose limit lines were both deleted is refused.
var (
	format2Keys = []string{"simrun", "scenario", "file", "scenario-sha256", "knobs-sha256", "signature",
		"decisions", "questions-sha256", "question-ids", "token"}
	format3Keys = []string{"limit", "limit-sha256"}
)

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// ParseReplayFile reads a replay file. Its errors name the line: "NAME:LINE: ...".
func ParseReplayFile(name string, r io.Reader) (*ReplayFile, error) {
	f := &ReplayFile{Format: 1, name: name, lines: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	line := 0
	numDecisions, ids, tok := -1, "", ""
	q := &Questions{}
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		k, v, ok := strings.Cut(s, ":")
		if !ok {
			return nil, fmt.Errorf("%s:%d: expected \"key: value\", found %q", name, line, s)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		repeats, known := replayKeys[k]
		if !known {
			return nil, fmt.Errorf("%s:%d: unknown key %q", name, line, k)
		}
		if first, dup := f.lines[k]; dup && !repeats {
			return nil, fmt.Errorf("%s:%d: a second %q line (the first is line %d)", name, line, k, first)
		}
		if _, dup := f.lines[k]; !dup {
			f.lines[k] = line
		}
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s: %s", name, line, k, fmt.Sprintf(format, args...))
		}
		switch k {
		case "format":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return nil, bad("expected a format number, found %q", v)
			}
			if n > ReplayFormat {
				return nil, bad("format %d is newer than this simrun's (%d, version %s): replay it with the simrun that wrote it", n, ReplayFormat, Version)
			}
			if line != firstKeyLine(f) {
				return nil, bad("the format line must come first")
			}
			f.Format = n
		case "simrun":
			f.Version = v
		case "scenario":
			f.Scenario = v
		case "file":
			f.File = v
		case "scenario-sha256", "knobs-sha256", "questions-sha256", "limit-sha256":
			if !sha256Hex.MatchString(v) {
				return nil, bad("expected 64 lowercase hex digits, found %q", v)
			}
			switch k {
			case "scenario-sha256":
				f.ScenarioSHA256 = v
			case "knobs-sha256":
				f.KnobsSHA256 = v
			case "limit-sha256":
				f.LimitSHA256 = v
			default:
				f.QuestionsSHA256 = v
			}
		case "kernel", "knob":
			if _, _, err := runner.ParseKnobArg(v); err != nil {
				return nil, bad("%v", err)
			}
			if k == "kernel" {
				f.Kernel = append(f.Kernel, v)
			} else {
				f.Knobs = append(f.Knobs, v)
			}
		case "strategy":
			f.Strategy = v
		case "seed":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return nil, bad("expected a number, found %q", v)
			}
			f.Seed = n
		case "limit":
			d, err := scenarios.ParseDuration(v)
			if err != nil || d <= 0 {
				return nil, bad("expected a duration like 20ms, found %q", v)
			}
			f.Limit = sim.Time(d)
		case "violation":
			f.Violation = v
		case "signature":
			f.Signature = v
		case "decisions":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > maxQuestions {
				return nil, bad("expected a number of decisions (at most %d), found %q", maxQuestions, v)
			}
			numDecisions = n
		case "question":
			ns, what, _ := strings.Cut(v, " ")
			n, err := strconv.Atoi(ns)
			what = strings.TrimSpace(what)
			if err != nil || n < 2 || what == "" {
				return nil, bad("expected \"OPTIONS QUESTION\" (at least 2 options), found %q", v)
			}
			if _, dup := q.index[Question{what, n}]; dup {
				return nil, bad("%q with %d options is listed twice", what, n)
			}
			q.Add(n, what)
			q.ids = q.ids[:0]
		case "question-ids":
			ids = v
		case "token":
			tok = v
			d, err := sim.DecodeToken(v)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, line, err)
			}
			f.Decisions = d
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", name, line+1, err)
	}
	if f.Format == 1 {
		for k := range f.lines {
			if !replayKeyV1(k) {
				return nil, f.errorf(k, "%s in a file without a \"format: %d\" line", k, ReplayFormat)
			}
		}
		if f.lines["token"] == 0 {
			return nil, fmt.Errorf("%s:%d: expected a \"token: s2....\" line", name, line+1)
		}
		return f, nil
	}
	// The limit is the run's as much as its knobs are: a shorter one stops
	// the replay at it, a longer one would replay a run the file never had.
	// (Before the required lines: a hash left without its limit line is
	// named at the hash's line.)
	if f.lines["limit-sha256"] > 0 && f.lines["limit"] == 0 {
		// even the hash of no limit (0ns): WriteTo would not write it back
		return nil, f.errorf("limit-sha256", "limit-sha256 without a limit line: the file was edited")
	}
	if f.lines["limit-sha256"] > 0 && LimitSHA256(f.Limit) != f.LimitSHA256 {
		return nil, f.errorf("limit-sha256", "limit-sha256 is not the hash of the limit line (line %d): the file was edited", f.lines["limit"])
	}
	required := format2Keys
	if f.Format >= 3 {
		required = append(required[:len(required):len(required)], format3Keys...)
	}
	for _, k := range required {
		if f.lines[k] == 0 {
			return nil, fmt.Errorf("%s:%d: expected a %q line (format %d)", name, line+1, k, f.Format)
		}
	}
	if tok != "" && !strings.HasPrefix(tok, "s2.") {
		// Only s2 tokens carry their length and a checksum.
		return nil, f.errorf("token", "token: format %d carries s2 tokens, which a cut or a typo cannot turn into another schedule; found %.6q...", f.Format, tok)
	}
	if KnobsSHA256(f.Knobs) != f.KnobsSHA256 {
		return nil, f.errorf("knobs-sha256", "knobs-sha256 is not the hash of the knob lines: the file was edited")
	}
	var err error
	if q.ids, err = decodeIDs(ids, numDecisions, len(q.Table)); err != nil {
		return nil, f.errorf("question-ids", "question-ids: %v", err)
	}
	f.Questions = q
	if q.SHA256() != f.QuestionsSHA256 {
		return nil, f.errorf("questions-sha256", "questions-sha256 is not the hash of the questions: the file was edited")
	}
	if len(f.Decisions) > q.Len() {
		return nil, f.errorf("token", "token: %d decisions, but the run recorded %d", len(f.Decisions), q.Len())
	}
	for i, d := range f.Decisions {
		if w := q.At(i); d >= w.N {
			return nil, f.errorf("token", "token: decision #%d takes option %d, but its question %s has %d options", i, d, w.What, w.N)
		}
	}
	return f, nil
}

// replayKeyV1 reports whether a format 1 file may have key.
func replayKeyV1(k string) bool {
	switch k {
	case "scenario", "file", "kernel", "strategy", "seed", "limit", "violation", "token":
		return true
	}
	return false
}

// firstKeyLine is the first line holding a key.
func firstKeyLine(f *ReplayFile) int {
	first := 0
	for _, l := range f.lines {
		if first == 0 || l < first {
			first = l
		}
	}
	return first
}
