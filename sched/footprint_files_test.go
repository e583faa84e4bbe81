package sched

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// TestFdTableKeys: each fd table is named by the task it was made for
// and its number among that task's tables (Task.KeyFiles), so two
// processes' tables are two footprint objects: the machine's first
// table, fork's dup_fd() copy, a CLONE_FILES child sharing its parent's,
// and that child's exec, whose unshare_files() makes it its first own.
func TestFdTableKeys(t *testing.T) {
	m, s := newSched(t, 1, DefaultConfig())
	keys := map[string]string{}
	note := func(what string) Op {
		return Call(func(t *Task) { keys[what] = t.Files.FootprintKey() })
	}
	s.Spawn("p", CPUMask{},
		note("p"),
		Fork("child", ForkFlags, note("child")),
		Fork("sharer", ForkFlags|CLONE_FILES, note("sharer before exec"),
			Call(func(t *Task) { s.Exec(t, "/bin/true") })),
		Call(func(t *Task) { // wait4() for both: the table stays shared while the sharer execs
			for range 2 {
				s.Syscall(t, "wait4", func(t *Task) {
					if _, err := s.wait4(t); err != nil {
						panic(err)
					}
				})
			}
		}),
	)
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	sharer := s.Tasks[2]
	keys["sharer after exec"] = sharer.Files.FootprintKey()
	want := map[string]string{
		"p":                  "files#1@tid101",
		"child":              "files#1@tid102",
		"sharer before exec": "files#1@tid101",
		"sharer after exec":  "files#1@tid103", // its first own table
	}
	if d := cmp.Diff(want, keys); d != "" {
		t.Errorf("fd table keys (-want +got):\n%s", d)
	}
}
