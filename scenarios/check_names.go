package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// unknown builds `unknown kernel knob "x"; known kernel knobs: a, b` or, for long
// lists, a did-you-mean suggestion.
func (c *checker) unknown(kind Kind, name string) string {
	names := c.reg.Names(kind)
	msg := fmt.Sprintf("unknown %s %s", kind, quote(name))
	switch {
	case len(names) == 0:
		return msg + fmt.Sprintf(" (no %s are known)", kindNames[kind][1])
	case len(names) <= 12:
		return msg + fmt.Sprintf("; known %s: %s", kindNames[kind][1], strings.Join(names, ", "))
	}
	if best := closest(name, names); best != "" {
		return msg + fmt.Sprintf("; did you mean %s?", quote(best))
	}
	msg += fmt.Sprintf(" (%d %s are known", len(names), kindNames[kind][1])
	if arg, ok := namesArg[kind]; ok {
		msg += "; simrun names " + arg + " lists them"
	}
	return msg + ")"
}

// namesArg is the simrun names argument that lists a kind.
var namesArg = map[Kind]string{Verbs: "actions", Observables: "observables", Invariants: "invariants",
	StepPoints: "steps", Syscalls: "syscalls", PMUs: "PMUs"}

// Closest returns the name of names nearest to s within an edit distance of
// 3, or "": the "did you mean" of an unknown name.
func Closest(s string, names []string) string { return closest(s, names) }

// didYouMean is "; did you mean "x"?" for the name nearest to s, or "".
func didYouMean(s string, names []string) string {
	if best := closest(s, names); best != "" && best != s {
		return fmt.Sprintf("; did you mean %s?", quote(best))
	}
	return ""
}

// closest returns the name within edit distance 3 of s that is nearest, or "".
func closest(s string, names []string) string {
	best, bestD := "", 4
	for _, n := range names {
		if d := EditDistance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// EditDistance is the Levenshtein distance of a and b (99 past 64 bytes):
// the "did you mean" of the checker and of perf record's option errors.
func EditDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// valueOK reports whether v matches one of allowed (literal values or the Any*
// patterns); an empty list allows anything.
func valueOK(allowed []string, v string) bool {
	if len(allowed) == 0 {
		return true
	}
	for _, a := range allowed {
		switch a {
		case v:
			return true
		case AnyInt:
			if _, err := parseUint(v); err == nil {
				return true
			}
		case AnySize:
			if _, err := ParseSize(v); err == nil {
				return true
			}
		case AnyDuration:
			if _, err := ParseDuration(v); err == nil {
				return true
			}
		}
	}
	return false
}

func describeValues(allowed []string) string {
	r := strings.NewReplacer(AnyInt, "a number", AnySize, "a size like 4K", AnyDuration, "a duration like 5us")
	parts := make([]string, len(allowed))
	for i, a := range allowed {
		parts[i] = r.Replace(a)
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
