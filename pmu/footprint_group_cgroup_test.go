package pmu

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// startMarks is a cpu.SegmentListener that keeps, per fragment start, the
// UNAUDITED marks its fragments made.
type startMarks struct {
	cur   string
	marks map[string][]string
}

func (s *startMarks) Boundary(_ *cpu.CPU, _ cpu.BoundaryKind, _ cpu.Context, _ *cpu.Thread, label string) {
	s.cur = label
}

func (s *startMarks) Touch(obj any, _ string, _ bool) {
	if strings.HasPrefix(fmt.Sprintf("%T", obj), "cpu.Unaudited") {
		s.marks[s.cur] = append(s.marks[s.cur], string(obj.(cpu.Unaudited)))
	}
}

// TestGroupAttachCgroupMember: a cgroup event joining a cgroup group (cpu0,
// opened there: a local call) has its attach's last fragment marked where
// __perf_install_in_context() goes on into perf_cgroup_match()
// (markGroupAttachReturn); the other two fragments are not marked.
func TestGroupAttachCgroupMember(t *testing.T) {
	m, s, k, cg := cgTree(t, Knobs{})
	l := &startMarks{marks: map[string][]string{}}
	m.OnSegments(l)
	s.Spawn("tracer", sched.MaskOf(0), sched.Call(func(tr *sched.Task) {
		open := func(group int) int {
			a := Attr{Type: uapi.PERF_TYPE_SOFTWARE, Config: uapi.PERF_COUNT_SW_CPU_CLOCK}
			cgfd, _ := tr.Files.Install(s.FS.Lookup(cg["a"].Dir()), uapi.O_RDONLY)
			fd, err := k.PerfEventOpen(tr, &a, cgfd, 0, group, uapi.PERF_FLAG_PID_CGROUP)
			if err != nil {
				t.Errorf("open: %v", err)
			}
			return fd
		}
		open(open(-1))
	}))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, start := range []string{"perf_group_attach:list_add_tail", "perf_group_attach:nr_siblings", "perf_group_attach:header_size"} {
		got[start] = l.marks[start]
	}
	want := map[string][]string{
		"perf_group_attach:list_add_tail": nil,
		"perf_group_attach:nr_siblings":   nil,
		"perf_group_attach:header_size":   {"perf_cgroup_match"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the marks of the attach's fragments (-want +got):\n%s", d)
	}
}
