package perftool

import (
	"perfsim/scenarios"

	"sort"
	"strings"
)

// Locate finds the argument a refusal is about in the argv it came from
// (Parse's args): the index of the word and the byte offset in it where the
// option, the event string or the term at fault starts. Only the words
// before the workload are looked at; ok is false when none matches (a
// missing workload, a conflict of the whole line).
func (e *Error) Locate(args []string) (arg, off int, ok bool) {
	opts := args
	for i, a := range args {
		if a == "--" {
			opts = args[:i]
			break
		}
	}
	best := func(found func(i int, a string) (int, bool)) (int, int, bool) {
		for i := len(opts) - 1; i >= 0; i-- { // the last one given is the one that counts
			if o, ok := found(i, opts[i]); ok {
				return i, o, true
			}
		}
		return 0, 0, false
	}
	opt := e.Option
	if ev, isEvent := strings.CutPrefix(opt, "-e "); isEvent {
		return best(func(i int, a string) (int, bool) {
			switch {
			case a == ev && i > 0 && (opts[i-1] == "-e" || opts[i-1] == "--event"):
				return 0, true
			case a == "-e"+ev:
				return 2, true
			case a == "--event="+ev:
				return len("--event="), true
			}
			return 0, false
		})
	}
	if strings.Contains(opt, "/") && strings.HasPrefix(opt, "-") { // "-c/-F": the later one
		arg, off, ok = -1, 0, false
		for _, o := range strings.Split(opt, "/") {
			if i, f, found := (&Error{Option: o}).Locate(opts); found && i > arg {
				arg, off, ok = i, f, true
			}
		}
		return arg, off, ok
	}
	if strings.HasPrefix(opt, "--") {
		return best(func(_ int, a string) (int, bool) { return 0, a == opt || strings.HasPrefix(a, opt+"=") })
	}
	if len(opt) == 2 && opt[0] == '-' {
		return best(func(_ int, a string) (int, bool) {
			if len(a) < 2 || a[0] != '-' || a[1] == '-' {
				return 0, false
			}
			// a bundle like -ag or -c1000: the letters up to one that takes a value
			for j := 1; j < len(a); j++ {
				if a[j] == opt[1] {
					return j - 1, true
				}
				if o := findShort(a[j]); o == nil || o.arg != 0 {
					break
				}
			}
			return 0, false
		})
	}
	if opt != "" && !strings.HasPrefix(opt, "<") { // a term, inside an event string
		return best(func(_ int, a string) (int, bool) {
			j := strings.Index(a, opt)
			return j, j >= 0
		})
	}
	return 0, 0, false
}

// closest returns the name of names nearest to s, within an edit distance of
// 3 (and less than half of s), or "".
func closest(s string, names []string) string {
	best, bestD := "", min(4, (len(s)+1)/2)
	for _, n := range names {
		if d := scenarios.EditDistance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// didYouMean is "; did you mean 'x'?" for the name of names nearest to s, or "".
func didYouMean(s string, names []string) string {
	if best := closest(s, names); best != "" {
		return "; did you mean '" + best + "'?"
	}
	return ""
}

// eventNames are the event names -e takes without a PMU or tracepoint
// system: the legacy hardware and software events and the AUX PMUs.
func eventNames() []string {
	var out []string
	for n := range legacyEvents {
		out = append(out, n)
	}
	for _, ap := range auxPMUs {
		out = append(out, ap.name)
	}
	sort.Strings(out)
	return out
}

// tracepointNames are the catalogue's tracepoints as system:name.
func tracepointNames() []string {
	out := make([]string, len(catalogue))
	for i := range catalogue {
		out[i] = catalogue[i].System + ":" + catalogue[i].Name
	}
	return out
}

// optionNames are the long options, with their --.
func optionNames() []string {
	var out []string
	for _, o := range recordOptions {
		if o.long != "" {
			out = append(out, "--"+o.long)
		}
	}
	return out
}
