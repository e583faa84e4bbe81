package explore

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/scenarios"
)

// CPU masks of any width: on 65 CPUs a task pinned to cpu64 stays there in
// every schedule (a 64-bit mask would lose bit 64 and unpin it).
func TestExploreWideMaskPinned(t *testing.T) {
	src := `scenario wide
cpus 65
task app cpu64
  syscall getpid
  compute 1us
record -e syscalls:sys_enter_getpid -- app
always perf.samples == 1
always task.app.cpu == 64
`
	f, err := scenarios.Parse("wide.sim", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ex, err := Explore(f, Options{Strategy: "random", Runs: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range ex.Outcomes {
		got = append(got, c.Verdict)
	}
	if diff := cmp.Diff([]string{"Always", "Always"}, got); diff != "" || ex.Found != nil {
		t.Errorf("verdicts (-want +got):\n%s found %v", diff, ex.Found != nil)
	}
}
