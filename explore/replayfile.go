package explore

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"perfsim/sim"
)

// ReplayFile is what `simrun replay` reads: the run's identity (scenario, knobs,
// seed, strategy: free-form key/value lines the caller sets) and its decision list.
// Format, one item a line, '#' comments:
//
//	# perfsim replay file
//	scenario: aux-pause-resume-nmi
//	kernel: aux-pause-guard=off
//	token: s1.AAk
type ReplayFile struct {
	Fields    []Field
	Decisions []int
}

// Field is one key: value line; keys may repeat (several kernel knobs).
type Field struct{ Key, Value string }

// Get returns the first value of key.
func (f *ReplayFile) Get(key string) (string, bool) {
	for _, x := range f.Fields {
		if x.Key == key {
			return x.Value, true
		}
	}
	return "", false
}

// All returns every value of key in order.
func (f *ReplayFile) All(key string) []string {
	var out []string
	for _, x := range f.Fields {
		if x.Key == key {
			out = append(out, x.Value)
		}
	}
	return out
}

// Add appends a field.
func (f *ReplayFile) Add(key, value string) { f.Fields = append(f.Fields, Field{key, value}) }

// WriteTo writes the file.
func (f *ReplayFile) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	b.WriteString("# perfsim replay file: simrun replay FILE re-runs this schedule exactly\n")
	for _, x := range f.Fields {
		fmt.Fprintf(&b, "%s: %s\n", x.Key, strings.ReplaceAll(x.Value, "\n", " "))
	}
	fmt.Fprintf(&b, "token: %s\n", sim.EncodeToken(f.Decisions))
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// ParseReplayFile reads a replay file; errors name the line.
func ParseReplayFile(name string, r io.Reader) (*ReplayFile, error) {
	f := &ReplayFile{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	line, haveToken := 0, false
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		k, v, ok := strings.Cut(s, ":")
		if !ok {
			return nil, fmt.Errorf("%s:%d:1: expected \"key: value\", found %q", name, line, s)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "token" {
			d, err := sim.DecodeToken(v)
			if err != nil {
				return nil, fmt.Errorf("%s:%d:%d: %v", name, line, len(k)+3, err)
			}
			f.Decisions, haveToken = d, true
			continue
		}
		f.Add(k, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if !haveToken {
		return nil, fmt.Errorf("%s:%d:1: expected a \"token: s1....\" line", name, line+1)
	}
	return f, nil
}
