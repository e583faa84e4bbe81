package perftool

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// cloneMutations change, in a clone, each thing Clone promises not to share
// (record_clone.go): every slice element, pointed-to value and nested
// slice of the Record and its Target that a session may write. Fields a
// record does not have (nil) are skipped.
var cloneMutations = map[string]func(c *Record){
	"Evsels": func(c *Record) {
		if len(c.Evsels) > 0 {
			c.Evsels[0].Attr.SamplePeriod++
			c.Evsels[0].Filter = "changed"
			c.Evsels[0].Name = "changed"
		}
	},
	"SideBand": func(c *Record) {
		if len(c.SideBand) > 0 {
			c.SideBand[0].Attr.Config++
			c.SideBand[0].Name = "changed"
		}
	},
	"Target.Workload": func(c *Record) {
		if len(c.Target.Workload) > 0 {
			c.Target.Workload[0] = "changed"
		}
	},
	"Target.CPUList": func(c *Record) {
		if len(c.Target.CPUList) > 0 {
			c.Target.CPUList[0] = 7
		}
	},
	"Target.PID": func(c *Record) {
		if len(c.Target.PID) > 0 {
			c.Target.PID[0] = "changed"
		}
	},
	"Target.TID": func(c *Record) {
		if len(c.Target.TID) > 0 {
			c.Target.TID[0] = "changed"
		}
	},
	"Snapshot": func(c *Record) {
		if c.Snapshot != nil {
			c.Snapshot.Size = 12345
			c.Snapshot.OnExit = !c.Snapshot.OnExit
		}
	},
	"Exit": func(c *Record) {
		if c.Exit != nil {
			c.Exit.Status++
			c.Exit.Text = "changed"
		}
	},
	"Argv": func(c *Record) {
		if len(c.Argv) > 0 {
			c.Argv[0] = "changed"
		}
	},
	"Warnings": func(c *Record) {
		if len(c.Warnings) > 0 {
			c.Warnings[0] = "changed"
		}
	},
	"Messages": func(c *Record) {
		if len(c.Messages) > 0 {
			c.Messages[0].Text = "changed"
			c.Messages[0].Option = "changed"
			c.Messages[0].Note = !c.Messages[0].Note
		}
	},
	"Threads": func(c *Record) {
		if len(c.Threads) > 0 {
			c.Threads[0] = -7
		}
	},
}

// TestRecordClone: a clone equals the parsed record and shares nothing a
// session changes: changing each of the clone's evsels, side-band evsels,
// target lists (-p/-t too), snapshot, exit, argv, warnings, messages and
// threads leaves the record as it was.
func TestRecordClone(t *testing.T) {
	perf61 := DefaultOptions()
	perf61.Tool = ToolPerf61
	lowRate := DefaultOptions()
	lowRate.Sysctl.MaxSampleRate = 1000
	for _, tc := range []struct {
		name    string
		argv    []string
		opts    Options
		threads []int // what the session sets when perf starts a -p/-t target
		// has are the fields of cloneMutations the record must have
		// (non-nil, non-empty), so each case changes what it is about.
		has []string
	}{
		{name: "workload", argv: []string{"-e", "cycles:pp", "-g", "-c", "3000", "--", "work"}, opts: DefaultOptions(),
			has: []string{"Evsels", "SideBand", "Target.Workload", "Argv"}},
		{name: "aux-action", argv: []string{"-e", "{intel_pt/aux-action=start-paused/k,syscalls:sys_enter_newuname/aux-action=resume/,cycles/period=1500,aux-action=pause/}", "-m", "8,8", "--", "uname"}, opts: DefaultOptions(),
			has: []string{"Evsels", "Target.Workload"}},
		{name: "cpu-list", argv: []string{"-a", "-C", "0,1", "-e", "sched:sched_switch", "--", "x"}, opts: DefaultOptions(),
			has: []string{"Evsels", "Target.CPUList"}},
		{name: "snapshot", argv: []string{"-e", "intel_pt//", "-Se", "--", "x"}, opts: DefaultOptions(),
			has: []string{"Evsels", "Snapshot"}},
		{name: "pid", argv: []string{"-p", "worker,other", "-e", "cycles"}, opts: DefaultOptions(), threads: []int{10, 11, 12},
			has: []string{"Evsels", "SideBand", "Target.PID", "Target.TID", "Threads"}},
		{name: "tid-overrides-cpu", argv: []string{"-t", "loop", "-C", "0", "-e", "cycles"}, opts: DefaultOptions(), threads: []int{20},
			has: []string{"Target.TID", "Threads", "Warnings", "Messages"}},
		{name: "lowered-rate", argv: []string{"-F", "4000", "-e", "cycles", "--", "x"}, opts: lowRate,
			has: []string{"Warnings", "Messages"}},
		{name: "perf61-exit", argv: []string{"-e", "intel_pt/aux-action=start-paused/", "--", "x"}, opts: perf61,
			has: []string{"Exit", "Argv"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Parse(tc.argv, tc.opts)
			if err != nil {
				t.Fatalf("%q: %v", tc.argv, err)
			}
			r.Threads = slices.Clone(tc.threads)
			for _, f := range tc.has {
				if v := recordField(r, f); v.IsNil() || v.Kind() == reflect.Slice && v.Len() == 0 {
					t.Fatalf("%q: the record has no %s, the case changes nothing there", tc.argv, f)
				}
			}
			opt := cmp.Exporter(func(reflect.Type) bool { return true })
			if d := cmp.Diff(r, r.Clone(), opt); d != "" {
				t.Fatalf("%q: the clone differs (-record +clone):\n%s", tc.argv, d)
			}
			// want is parsed again, not cloned: it shares nothing with r
			// whatever Clone does.
			want, err := Parse(tc.argv, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			want.Threads = slices.Clone(tc.threads)
			for name, mutate := range cloneMutations {
				r, _ := Parse(tc.argv, tc.opts)
				r.Threads = slices.Clone(tc.threads)
				c := r.Clone()
				mutate(c)
				if d := cmp.Diff(want, r, opt); d != "" {
					t.Errorf("%q: changing the clone's %s changed the record (-before +after):\n%s", tc.argv, name, d)
				}
			}
		})
	}
}

// recordField is the field of r a cloneMutations key names ("Target.PID").
func recordField(r *Record, name string) reflect.Value {
	v := reflect.ValueOf(r).Elem()
	if rest, ok := strings.CutPrefix(name, "Target."); ok {
		return v.FieldByName("Target").FieldByName(rest)
	}
	return v.FieldByName(name)
}

// TestRecordCloneCoversFields: every slice, pointer or map of Record and
// Target is either changed by cloneMutations or shared read only by
// design, so a field added later is not shared by Clone unnoticed.
func TestRecordCloneCoversFields(t *testing.T) {
	var missing []string
	check := func(typ reflect.Type, prefix string) {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			switch f.Type.Kind() {
			case reflect.Slice, reflect.Pointer, reflect.Map:
				if _, ok := cloneMutations[prefix+f.Name]; !ok {
					missing = append(missing, prefix+f.Name)
				}
			}
		}
	}
	check(reflect.TypeOf(Record{}), "")
	check(reflect.TypeOf(Target{}), "Target.")
	if len(missing) != 0 {
		t.Errorf("Record fields Clone may share that TestRecordClone does not change: %v", missing)
	}
}
