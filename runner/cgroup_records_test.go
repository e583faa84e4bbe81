package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/rb"
	"perfsim/uapi"
)

// TestCgroupRecords: perf record --all-cgroups. perf synthesizes a
// PERF_RECORD_CGROUP per cgroup at its start; a cgroup made later gets one
// from the kernel (perf_cgroup_css_online() -> perf_event_cgroup()), on
// the CPU that runs the mkdir, to the events with attr.cgroup that hear that
// CPU's side band: a CPU-wide event (-a) does; a task event of a workload
// on another CPU does not. Each sample's cgroup id is current's cgroup:
// the workload's first in /box, then in /late after the move.
func TestCgroupRecords(t *testing.T) {
	const body = `
cpus 2
cgroup box workload
task workload cpu1
  compute 3ms
`
	type cg struct {
		Path  string
		Synth bool
	}
	for _, tc := range []struct {
		name    string
		record  string
		at      string // the mkdir and the move, 1 ms and 2 ms after the workload starts
		records []cg
		samples map[string]int
	}{
		{"system-wide", "record --all-cgroups -a -C 1 -e cpu-clock -c 500000 -- workload",
			"at 1ms cgroup-mkdir late\nat 2ms cgroup-attach workload late\n", // -C 1: one CPU's rings, mapped before the workload starts
			[]cg{{"/", true}, {"/box", true}, {"/late", false}},
			map[string]int{"/box": 3, "/late": 3}},
		{"workload", "record --all-cgroups -e cpu-clock -c 500000 -- workload",
			"at 1400us cgroup-mkdir late\nat 2400us cgroup-attach workload late\n", // after perf maps four rings (0.42 ms)
			[]cg{{"/", true}, {"/box", true}},
			// the task's event cannot name /late: no CGROUP record reached it
			map[string]int{"/box": 3, "": 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, r := runSrc(t, "scenario cg\n"+body+tc.at+tc.record+"\n")
			d := r.Perf.(*pmuRun).sessions[0].Data
			tracking := 0 // attr.cgroup is on the tracking event only (-a: perf's dummy)
			for i := range d.Attrs {
				if d.Attrs[i].Attr.SampleType&uapi.PERF_SAMPLE_CGROUP == 0 {
					t.Errorf("attr %d: sample_type %#x without PERF_SAMPLE_CGROUP", i, d.Attrs[i].Attr.SampleType)
				}
				if d.Attrs[i].Attr.Cgroup {
					tracking++
				}
			}
			if tracking != 1 {
				t.Errorf("%d attrs with attr.cgroup, want 1", tracking)
			}
			a := &d.Attrs[0].Attr
			names := map[uint64]string{}
			var recs []cg
			samples := map[string]int{}
			for _, rec := range d.Parsed() {
				switch rec.Header.Type {
				case uapi.PERF_RECORD_CGROUP:
					dec := rec.Dec
					if rec.Synth() {
						var err error
						if dec, err = rb.Decode(d.Data[rec.Off:rec.Off+int(rec.Header.Size)], a.SampleType, a.SampleIDAll); err != nil {
							t.Fatal(err)
						}
					}
					if dec == nil {
						t.Fatalf("CGROUP record at %d: %v", rec.Off, rec.Err)
					}
					c := dec.Sideband.(*rb.Cgroup)
					names[c.ID] = c.Path
					recs = append(recs, cg{c.Path, rec.Synth()})
				case uapi.PERF_RECORD_SAMPLE:
					samples[names[rec.Dec.Sample.Cgroup]]++
				}
			}
			if diff := cmp.Diff(tc.records, recs); diff != "" {
				t.Errorf("CGROUP records (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.samples, samples); diff != "" {
				t.Errorf("samples by cgroup (-want +got):\n%s", diff)
			}
		})
	}
}
