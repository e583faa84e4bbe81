package perftool

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/uapi"
)

// TestMmapFailed: perf 6.1's words when mapping the rings fails
// (record__mmap_evlist()), the errno still underneath.
func TestMmapFailed(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{uapi.ENOMEM, "failed to mmap with 12 (Cannot allocate memory)"},
		{uapi.EINVAL, "failed to mmap with 22 (Invalid argument)"},
		{uapi.EPERM, "Permission error mapping pages.\nConsider increasing /proc/sys/kernel/perf_event_mlock_kb,\n" +
			"or try again with a smaller value of -m/--mmap_pages.\n(current value: 128,16)"},
	} {
		got := mmapFailed(tc.err, 128, 16)
		if d := cmp.Diff(tc.want, got.Error()); d != "" {
			t.Errorf("%v (-want +got):\n%s", tc.err, d)
		}
		if !errors.Is(got, tc.err) {
			t.Errorf("%v: the errno is not underneath", tc.err)
		}
	}
}
