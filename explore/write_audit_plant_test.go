package explore

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sim"
)

// auditPlant is the state of TestWriteAuditCatchesPlantedWrite's thread.
type auditPlant struct {
	a, b, c int
	inner   *auditPlant
}

func init() {
	cpu.DeclareComplete("write-audit:annotated", "write-audit:planted", "write-audit:inner")
}

// TestWriteAuditCatchesPlantedWrite: a thread's fragments write a field
// annotated (no violation), one unannotated in a declared fragment (the
// violation, named by its path), one in an undeclared fragment (no
// violation: listed as what a declaration would need), and one in an
// object behind a pointer whose holder alone is annotated (a violation:
// an annotation covers its own object, not what it points to).
func TestWriteAuditCatchesPlantedWrite(t *testing.T) {
	m := cpu.NewMachine(cpu.Config{CPUs: 1}, sim.NewRandom(1))
	defer m.Close()
	obj := &auditPlant{inner: &auditPlant{}}
	audit := newWriteAudit([]any{obj})
	th := m.NewThread("planter", func(th *cpu.Thread) {
		th.Step("write-audit:annotated")
		th.CPU().Access(obj, "plant->a", cpu.PlainWrite, "test")
		obj.a++
		th.Step("write-audit:planted")
		obj.b++ // the planted write: no annotation
		th.Step("write-audit:undeclared")
		obj.c++
		th.Step("write-audit:inner")
		th.CPU().Access(obj, "plant->inner", cpu.PlainRead, "test")
		th.CPU().Access(obj, "plant->a", cpu.PlainWrite, "test")
		obj.inner.a++
		th.Step("write-audit:end")
		for {
			th.Idle()
		}
	})
	m.CPUs[0].Start(th)
	m.OnSegments(audit)
	if err := m.Run(sim.Never); err != nil {
		t.Fatal(err)
	}
	audit.finish()
	want := []string{
		"fragment write-audit:planted: root0->.b changed with no write annotated",
		"fragment write-audit:inner: root0->.inner->.a changed with no write annotated",
	}
	if diff := cmp.Diff(want, audit.Violations); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	// start:planter: every thread's first fragment is declared
	// (sched/footprint_switch.go); the piece of it between the engine's two
	// resume boundaries (before its timers fire, before the thread resumes)
	// runs no code of the thread's; the rest reaches the mark NewThread puts
	// at its body (cpu.Machine.InitThread) and is not checked.
	if diff := cmp.Diff(map[string]int{"start:planter": 1, "write-audit:annotated": 1, "write-audit:planted": 1, "write-audit:inner": 1}, audit.Checked); diff != "" {
		t.Errorf("declared fragments checked (-want +got):\n%s", diff)
	}
	if got := audit.Changed["write-audit:undeclared"]; !cmp.Equal(got, map[string]int{"root0->.c": 1}) {
		t.Errorf("undeclared fragment's changes = %v, want root0->.c once", got)
	}
}
