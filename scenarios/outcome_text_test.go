package scenarios

import "testing"

// TestOutcomeTextKept: the outcome texts Parse keeps are those OutcomeText
// builds from the source, for every outcome of every built-in; an outcome
// Parse did not make is built from the source too.
func TestOutcomeTextKept(t *testing.T) {
	n := 0
	for _, b := range Builtins() {
		f, err := Parse(b.Name+".sim", b.Src)
		if err != nil {
			t.Fatalf("%s: %v", b.Name, err)
		}
		for _, o := range f.Outcomes {
			if got, want := f.OutcomeText(o), f.outcomeText(o); got != want || got == "" {
				t.Errorf("%s:%d: kept %q, built %q", b.Name, o.Pos.Line, got, want)
			}
			c := *o // not Parse's: built
			c.Quant = Never
			if got, want := f.OutcomeText(&c), f.outcomeText(&c); got != want {
				t.Errorf("%s:%d: a copy: %q, want %q", b.Name, o.Pos.Line, got, want)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no outcomes in the built-ins")
	}
}
