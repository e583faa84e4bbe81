package runner

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/scenarios"
)

// TestTaskVarObservable: an outcome judges what a call returned through
// task.TASK.var.NAME (signed: -errno), and check refuses a name the
// task's program does not bind, with its position.
func TestTaskVarObservable(t *testing.T) {
	const src = `scenario vars
cpus 1
task main cpu0
  syscall openat AT_FDCWD "/var/tmp/v" O_RDWR|O_CREAT 0600 as fd
  repeat 2
    syscall lseek fd 4096 SEEK_CUR as pos
  syscall lseek fd -1 SEEK_SET as bad
always task.main.var.pos == 8192
always task.main.var.bad == -22
`
	_, res := runQuiet(t, "vars.sim", src)
	var got []string
	for _, o := range res.Outcomes {
		got = append(got, o.Status+" "+o.Outcome)
	}
	want := []string{"held always task.main.var.pos == 8192", "held always task.main.var.bad == -22"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("outcomes (-want +got):\n%s", d)
	}

	f, err := scenarios.Parse("vars.sim", []byte(strings.Replace(src, "var.bad ==", "var.nope ==", 1)))
	if err != nil {
		t.Fatal(err)
	}
	errs := scenarios.Check(f, NewRegistry(f, nil))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `vars.sim:9:8: unknown observable or invariant "task.main.var.nope"`) {
		t.Errorf("check of an unbound name: %v", errs)
	}
}
