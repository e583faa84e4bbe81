package scenarios

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Unit is the kind of suffix a number carries.
type Unit int

const (
	NoUnit   Unit = iota
	SizeUnit      // K, M, G: powers of 1024 bytes
	TimeUnit      // ns, us, ms, s
)

var (
	sizeSuffixes = map[string]int64{"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
	timeSuffixes = map[string]int64{"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
)

var (
	errNotNumber = errors.New("not a number")
	errTooLarge  = errors.New("number too large")
	errSuffix    = errors.New("unknown suffix")
)

// parseUint parses a decimal (digits and '_' separators, like 3_000_000) or
// hexadecimal (0x...) non-negative integer.
func parseUint(s string) (int64, error) {
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return 0, errNotNumber
	}
	base := 10
	digits := s
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		base, digits = 16, s[2:]
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(digits, "_", ""), base, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return 0, errTooLarge
		}
		return 0, errNotNumber
	}
	return v, nil
}

// splitNumber splits "5us" into "5" and "us". A hexadecimal number has no suffix.
func splitNumber(s string) (num, suffix string) {
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		return s, ""
	}
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '_') {
		i++
	}
	return s[:i], s[i:]
}

// parseNumber parses an integer with an optional size or duration suffix and
// returns its value in bytes or nanoseconds.
func parseNumber(s string) (int64, Unit, error) {
	num, suffix := splitNumber(s)
	v, err := parseUint(num)
	if err != nil {
		return 0, NoUnit, err
	}
	if suffix == "" {
		return v, NoUnit, nil
	}
	unit := SizeUnit
	mul, ok := sizeSuffixes[suffix]
	if !ok {
		unit = TimeUnit
		if mul, ok = timeSuffixes[suffix]; !ok {
			return 0, NoUnit, errSuffix
		}
	}
	if v > math.MaxInt64/mul {
		return 0, unit, errTooLarge
	}
	return v * mul, unit, nil
}

// ParseDuration parses a virtual time like 5us, 2ms, 1s or 250ns (an integer and
// one of the units ns, us, ms, s).
func ParseDuration(s string) (time.Duration, error) {
	v, unit, err := parseNumber(s)
	if err == nil && unit != TimeUnit {
		err = errSuffix
	}
	if err == errTooLarge {
		return 0, fmt.Errorf("duration %q is too long", s)
	}
	if err != nil {
		return 0, fmt.Errorf("expected a duration like 5us or 2ms, found %q", s)
	}
	return time.Duration(v), nil
}

// ParseSize parses a size in bytes like 4096, 4K, 1M or 2G (K, M and G are
// powers of 1024, as in perf record -m).
func ParseSize(s string) (int64, error) {
	v, unit, err := parseNumber(s)
	if err == nil && unit == TimeUnit {
		err = errSuffix
	}
	if err == errTooLarge {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	if err != nil {
		return 0, fmt.Errorf("expected a size like 4096, 4K or 1M, found %q", s)
	}
	return v, nil
}

// maxCPU bounds CPU numbers so a typo cannot ask for a huge machine.
const maxCPU = 4095

// ParseCPUNumber parses "2" or "cpu2".
func ParseCPUNumber(s string) (int, bool) {
	s = strings.TrimPrefix(s, "cpu")
	if s == "" || strings.ContainsAny(s, "_xX") {
		return 0, false
	}
	v, err := parseUint(s)
	if err != nil || v > maxCPU {
		return 0, false
	}
	return int(v), true
}

// parseCPUList parses "0-3,5" into a sorted list without duplicates.
func parseCPUList(s string) ([]int, bool) {
	seen := map[int]bool{}
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, ok := ParseCPUNumber(lo)
		if !ok || strings.HasPrefix(lo, "cpu") {
			return nil, false
		}
		b := a
		if isRange {
			if b, ok = ParseCPUNumber(hi); !ok || strings.HasPrefix(hi, "cpu") || b < a {
				return nil, false
			}
		}
		for c := a; c <= b; c++ {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	sort.Ints(out)
	return out, true
}
