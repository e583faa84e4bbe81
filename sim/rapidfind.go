package sim

import (
	"flag"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"pgregory.net/rapid"
)

// RapidFind runs prop under rapid.Check expecting that it may fail: a search for
// a failing schedule rather than a test. It returns rapid's report of the shrunk
// failure, or "" when every check passed. The prop should keep the decisions of
// the last failing run: rapid re-runs the minimal failing case last.
//
// The search is deterministic: rapid starts from a seed derived from name
// (whatever -rapid.seed or RAPID_SEED say for property tests), so a test that
// expects rapid to find a bug does not depend on the luck of a random seed.
func RapidFind(name string, prop func(*rapid.T)) string {
	_ = flag.Set("rapid.nofailfile", "true") // an expected failure is not a test failure to save
	if f := flag.Lookup("rapid.seed"); f != nil {
		old := f.Value.String()
		h := fnv.New64a()
		h.Write([]byte(name))
		_ = flag.Set("rapid.seed", strconv.FormatUint(h.Sum64()|1, 10))
		defer flag.Set("rapid.seed", old)
	}
	tb := &findTB{name: name}
	rapid.Check(tb, prop)
	if !tb.failed {
		return ""
	}
	return strings.Join(tb.msgs, "\n")
}

// findTB is a rapid.TB that records failures instead of failing a test.
type findTB struct {
	name   string
	failed bool
	msgs   []string
}

func (f *findTB) Helper()                           {}
func (f *findTB) Name() string                      { return f.name }
func (f *findTB) Logf(format string, args ...any)   {}
func (f *findTB) Log(args ...any)                   {}
func (f *findTB) Skipf(format string, args ...any)  {}
func (f *findTB) Skip(args ...any)                  {}
func (f *findTB) SkipNow()                          {}
func (f *findTB) Errorf(format string, args ...any) { f.fail(fmt.Sprintf(format, args...)) }
func (f *findTB) Error(args ...any)                 { f.fail(fmt.Sprint(args...)) }
func (f *findTB) Fatalf(format string, args ...any) { f.fail(fmt.Sprintf(format, args...)) }
func (f *findTB) Fatal(args ...any)                 { f.fail(fmt.Sprint(args...)) }
func (f *findTB) FailNow()                          { f.failed = true }
func (f *findTB) Fail()                             { f.failed = true }
func (f *findTB) Failed() bool                      { return f.failed }

func (f *findTB) fail(msg string) {
	f.failed = true
	f.msgs = append(f.msgs, msg)
}
