package perftool

import (
	"reflect"
	"testing"
)

// TestRecordClone: a clone equals the parsed record and shares nothing a
// session changes (evsels, target lists, snapshot, threads).
func TestRecordClone(t *testing.T) {
	for _, argv := range [][]string{
		{"-e", "cycles:pp", "-g", "-c", "3000", "--", "work"},
		{"-e", "{intel_pt/aux-action=start-paused/k,syscalls:sys_enter_newuname/aux-action=resume/,cycles/period=1500,aux-action=pause/}", "-m", "8,8", "--", "uname"},
		{"-a", "-C", "0,1", "-e", "sched:sched_switch", "--", "x"},
		{"-e", "intel_pt//", "-S", "--", "x"},
	} {
		r, err := Parse(argv, DefaultOptions())
		if err != nil {
			t.Fatalf("%q: %v", argv, err)
		}
		c := r.Clone()
		if !reflect.DeepEqual(r, c) {
			t.Errorf("%q: the clone differs:\n%+v\n%+v", argv, r, c)
		}
		want := r.Clone()
		c.Evsels[0].Attr.SamplePeriod++
		c.Evsels[0].Filter = "changed"
		c.Argv[0] = "changed"
		if c.Target.CPUList != nil {
			c.Target.CPUList[0] = 7
		}
		if c.Snapshot != nil {
			c.Snapshot.Size = 12345
		}
		if !reflect.DeepEqual(r, want) {
			t.Errorf("%q: changing the clone changed the record", argv)
		}
	}
}
