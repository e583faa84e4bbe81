package runner

import (
	"strings"
	"testing"
)

// TestDeferredScriptGolden is perf script on the deferred-callchain built-ins:
// the kernel samples of the long read() with the user frames of their
// PERF_RECORD_CALLCHAIN_DEFERRED stitched in, as perf script prints them.
func TestDeferredScriptGolden(t *testing.T) {
	for _, name := range []string{"deferred-callchain-stitch", "deferred-callchain-migrate"} {
		t.Run(name, func(t *testing.T) {
			f := loadBuiltin(t, name)
			r, _, err := RunOnce(f, Options{Chooser: ScheduleChooser(1, 0)})
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := r.Script(&b); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), "main+0x0") {
				t.Errorf("no stitched user frame in:\n%s", b.String())
			}
			golden(t, "testdata/run-script/"+name+".golden", b.String())
		})
	}
}
