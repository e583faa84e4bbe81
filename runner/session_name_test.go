package runner

import (
	"testing"

	"perfsim/scenarios"
)

// TestSessionNamedLikeObservables: a session called cs does not hide the
// session observables cs.snapshot.*; they still read (and sum over sessions)
// instead of having "no value in this run".
func TestSessionNamedLikeObservables(t *testing.T) {
	src := "scenario shadow\ncpus 4\npmu cs_etm sink=etr rate=300M\ntask dd cpu0\n  compute 1ms\n" +
		"record cs: -e cs_etm// -S -m ,4M -- dd\nalways cs.snapshot.count == 0\n"
	f, err := Load(&scenarios.Source{Name: "shadow.sim", Src: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	_, res, err := RunOnce(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if o := res.Outcomes[0]; o.Status != Held {
		t.Errorf("%s: %s %s", o.Outcome, o.Status, o.Error)
	}
}
