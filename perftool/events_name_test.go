package perftool

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEvselNames: each evsel is named as perf names it (evsel__name(), what
// perf evlist, perf script -F event and perf.samples[EVENT] go by). The
// names are perf 6.1's on this machine (perf record -e ...; perf evlist): a
// tracepoint is sys:name whatever its modifiers and terms
// (evsel__newtp_idx()); an event typed with terms keeps its text, modifiers
// included, without a ':' perf never wrote (parse_events__set_default_name());
// a legacy event's modifiers follow a ':'; a name= term wins; a group's
// modifier renames none of its members.
func TestEvselNames(t *testing.T) {
	tests := []struct {
		events string
		want   []string
	}{
		{"syscalls:sys_enter_close:u,cpu-clock:u,page-faults:k", []string{"syscalls:sys_enter_close", "cpu-clock:u", "page-faults:k"}},
		{"syscalls:sys_enter_close/call-graph=no/u", []string{"syscalls:sys_enter_close"}},
		{"cpu-clock/period=100000/u,cs:k,page-faults/period=1/", []string{"cpu-clock/period=100000/u", "cs:k", "page-faults/period=1/"}},
		{"cs:uk", []string{"cs:uk"}},
		{"{cs,cpu-clock}:u", []string{"cs", "cpu-clock"}},
		{"cpu-clock/period=100000,name=foo/u", []string{"foo"}},
	}
	for _, tc := range tests {
		r, err := Parse([]string{"-e", tc.events, "--", "true"}, DefaultOptions())
		if err != nil {
			t.Errorf("-e %s: %v", tc.events, err)
			continue
		}
		var got []string
		for _, e := range r.Evsels {
			if !e.toolDummy {
				got = append(got, e.Name)
			}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("-e %s (-want +got):\n%s", tc.events, diff)
		}
	}
}
