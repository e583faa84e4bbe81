package scenarios

import "strings"

// An observable may be indexed by one of a session's events, named as perf
// names the evsel (evsel__name(): what `perf script -F event` prints and
// `perf report --stats` heads its counts with): r.perf.samples[context-switches],
// r.perf.samples[syscalls:sys_enter_close], perf.samples[cpu-clock/period=1000/].
// The index is written as it is, ':', '/', '=', ',' and '.' included; only a
// blank, a bracket or # (a comment) cannot be in it. The registry lists such
// an observable with the placeholder EventPlaceholder; which events a session
// has is known once its record line is parsed, so the runtime checks the
// names (runner: checkEventIndexes).

// EventPlaceholder stands for the event in the name of an indexed observable
// (SESSION.perf.samples[EVENT]).
const EventPlaceholder = "EVENT"

// eventIndexEnd returns the offset just past the "]" that closes the event
// index opening at s[open] == '[', or where it goes wrong and why.
func eventIndexEnd(s string, open int) (end int, bad string) {
	for k := open + 1; k < len(s); k++ {
		switch c := s[k]; {
		case c == ']':
			if k == open+1 {
				return k, "an event index names an event: [ ] is empty"
			}
			return k + 1, ""
		case c == '[':
			return k, "an event index holds one event's name: a second [ in it"
		case isBlank(c) || c == '#':
			return k, "an event index ends with ] before any blank or #: the event's name as perf script -F event prints it"
		case c >= 0x80 || c < 0x20:
			return k, "an event index holds an event's name in ASCII"
		}
	}
	return open, "an event index needs a ] to close this ["
}

// CutEventIndex splits an indexed observable's name into the name before its
// index and the event it names: "r.perf.samples[cs]" is "r.perf.samples" and
// "cs". ok is false for a name without an index.
func CutEventIndex(name string) (base, event string, ok bool) {
	i := strings.IndexByte(name, '[')
	if i < 0 || !strings.HasSuffix(name, "]") {
		return name, "", false
	}
	return name[:i], name[i+1 : len(name)-1], true
}

// EventPattern is name with its event index replaced by EventPlaceholder,
// the name the registry lists it by; a name without an index is returned as
// it is.
func EventPattern(name string) string {
	base, _, ok := CutEventIndex(name)
	if !ok {
		return name
	}
	return base + "[" + EventPlaceholder + "]"
}
