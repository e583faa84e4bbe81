package runner

import (
	"strings"
	"testing"
)

// TestBuiltinPerfGolden compares what simrun run prints for two perf built-ins
// (seed 1) with testdata/builtin-golden: the --script output of
// rb-nested-nmi-output (the sys_enter_getpid samples with the NMI's cycles
// samples between them) and the --timeline of rb-backward-read-race (the burst on cpu0, perf's
// reading threads on cpu1).
// go test -update rewrites them.
func TestBuiltinPerfGolden(t *testing.T) {
	t.Run("script", func(t *testing.T) {
		f := loadBuiltin(t, "rb-nested-nmi-output")
		r, res, err := RunOnce(f, Options{Chooser: ScheduleChooser(1, 0)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed {
			t.Fatal("rb-nested-nmi-output failed")
		}
		var b strings.Builder
		if err := r.Script(&b); err != nil {
			t.Fatal(err)
		}
		golden(t, "testdata/builtin-golden/rb-nested-nmi-output.script.golden", b.String())
	})
	t.Run("timeline", func(t *testing.T) {
		f := loadBuiltin(t, "rb-backward-read-race")
		r, _, err := RunOnce(f, Options{Chooser: ScheduleChooser(1, 0), KeepTrace: true})
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "testdata/builtin-golden/rb-backward-read-race.timeline.golden", r.Timeline(60))
	})
}
