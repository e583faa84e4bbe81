package explore

import (
	"reflect"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"perfsim/scenarios"
)

// auditCache shares one write audit run among the tests that audit the
// same scenario under the same seed: the audit of a run is a function of
// the scenario and the seed alone (a seeded schedule of a deterministic
// model; the declarations and auditSkip are fixed by init), and the tests
// that share it each check their own starts on it (close-vs-sample is
// audited by TestWriteAuditRelease, Overflow, Open and FuncCall,
// rb-data-head-backwards by Output, Release, Overflow and RecordLoop, ...).
// The *writeAudit handed out is shared: read it, never change it.
var auditCache sync.Map // auditKey -> *auditEntry

// auditKey: the scenario's file name and text, and the seed.
type auditKey struct {
	name, text string
	seed       uint64
}

type auditEntry struct {
	once sync.Once
	f    *scenarios.File // the first file loaded with this key, before its run
	a    *writeAudit
	err  error
}

// sameParse compares two parses of one text: every field, unexported
// ones too, but texts (each outcome's text, keyed by the outcome's
// address: Outcomes holds them, compared).
var sameParse = []cmp.Option{cmp.Exporter(func(reflect.Type) bool { return true }), cmpopts.IgnoreFields(scenarios.File{}, "texts")}

// auditRunFile is runWriteAudit shared through auditCache. A file whose
// text matches an earlier one's but whose parse differs (another loader:
// scenarios.Parse against runner.Load) fails rather than share its run.
func auditRunFile(t *testing.T, f *scenarios.File, seed uint64) *writeAudit {
	t.Helper()
	v, _ := auditCache.LoadOrStore(auditKey{f.Name, f.Text(), seed}, &auditEntry{})
	e := v.(*auditEntry)
	first := false
	e.once.Do(func() {
		first = true
		e.f = f
		e.a, e.err = runWriteAudit(f, seed, true)
		if e.a != nil {
			e.a.dropState()
		}
	})
	if e.err != nil {
		t.Fatal(e.err)
	}
	if !first {
		if diff := cmp.Diff(e.f, f, sameParse...); diff != "" {
			t.Fatalf("%s: the write audit cache holds a run of the same text parsed otherwise (-cached +this):\n%s", f.Name, diff)
		}
	}
	return e.a
}

// dropState lets go of what an audit needed while its run went on (the
// model it walked, its last snapshot, its memos), keeping what it found:
// auditCache holds the audits for the whole test binary.
func (a *writeAudit) dropState() {
	a.roots, a.leaves, a.seen, a.fields, a.skipTypes = nil, leafTable{}, nil, nil, nil
	a.task, a.irq, a.until, a.writes = nil, nil, nil, nil
}
