package sim

import (
	"fmt"
	"hash/fnv"
	"io"
	"strings"
)

// Kind says what a trace record is.
type Kind uint8

// Trace record kinds.
const (
	KStep    Kind = iota // a step point taken (only when Trace.Steps)
	KEnter               // a context entered (irq, nmi) on a CPU
	KExit                // a context left
	KSwitch              // a context switch: Name is prev, Detail is next
	KMigrate             // a task moved to another CPU's run queue
	KWake                // a task woken
	KTimer               // a timed event fired
	KChoice              // a decision taken (N is the choice, Name what was decided)
	KNote                // anything a model wants to say (Name: who, Detail: what)
	KOops                // a model crash
)

var kindNames = [...]string{"step", "enter", "exit", "switch", "migrate", "wake", "timer", "choice", "note", "oops"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind%d", k)
}

// Record is one thing that happened.
type Record struct {
	T      Time
	CPU    int
	Kind   Kind
	Name   string
	Detail string
	N      int64
}

// String formats the record as one line of the text trace.
func (r *Record) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s cpu%d %-7s %s", r.T.Stamp(), r.CPU, r.Kind, r.Name)
	if r.Detail != "" {
		b.WriteString(" ")
		b.WriteString(r.Detail)
	}
	if r.N != 0 {
		fmt.Fprintf(&b, " %d", r.N)
	}
	return b.String()
}

// Observer sees every record as it happens: invariants live here, apart from the
// models they judge. The record is the observer's only during Observe (Trace
// reuses it): keep a copy, not the pointer.
type Observer interface {
	Observe(r *Record)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(r *Record)

// Observe implements Observer.
func (f ObserverFunc) Observe(r *Record) { f(r) }

// Trace is the record of everything that happened in a run.
type Trace struct {
	// Keep stores records in Records; without it records only go to observers.
	Keep bool
	// Steps emits a record for every step point taken (slow; for debugging and for
	// the determinism tests).
	Steps     bool
	Records   []Record
	Observers []Observer

	scratch Record // the record observers see (Add without an allocation)
	adding  bool   // an Add is notifying the observers
}

// On reports whether anything consumes records.
func (t *Trace) On() bool { return t.Keep || len(t.Observers) > 0 }

// Add records r.
func (t *Trace) Add(r Record) {
	p := &t.scratch
	if t.adding {
		p = &Record{} // an observer adding a record: not over the one it is seeing
	}
	*p = r
	t.adding = true
	for _, o := range t.Observers {
		o.Observe(p)
	}
	t.adding = p != &t.scratch
	if t.Keep {
		t.Records = append(t.Records, *p)
	}
	if p == &t.scratch {
		t.scratch = Record{} // no strings kept alive
	}
}

// WriteText writes the trace, one record a line.
func (t *Trace) WriteText(w io.Writer) error {
	for i := range t.Records {
		if _, err := fmt.Fprintln(w, t.Records[i].String()); err != nil {
			return err
		}
	}
	return nil
}

// Text returns the trace as text.
func (t *Trace) Text() string {
	var b strings.Builder
	_ = t.WriteText(&b)
	return b.String()
}

// Hash returns a 64-bit FNV-1a hash of the text trace (for determinism checks).
func (t *Trace) Hash() uint64 {
	h := fnv.New64a()
	_ = t.WriteText(h)
	return h.Sum64()
}
