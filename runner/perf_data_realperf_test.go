package runner

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"perfsim/perftool"
	"perfsim/scenarios"
	"perfsim/uapi"
)

var realPerfAll = flag.Bool("realperf.all", false,
	"TestRealPerfReadsBuiltins: every built-in (default: realPerfSubset)")

// realPerfSubset is what TestRealPerfReadsBuiltins runs by default: one
// built-in of each kind of perf.data (tracepoints and a counter, software
// clocks, --overwrite, deferred callchains, intel_pt full trace, intel_pt
// sample mode, lost samples, -o /dev/null is too slow). No cs_etm snapshot:
// through the AArch64 images perf's default --itrace walks every atom of
// its millions (coresight-snapshot-sched-out: minutes here);
// TestRealPerfDecodesCoreSight and TestRealPerfFollowsCoreSightImages read
// coresight-sink-smaller-than-aux by default, -realperf.all every one.
var realPerfSubset = []string{
	"rb-nested-nmi-output", "cpu-clock-refresh-lockup", "rb-backward-read-race", "deferred-callchain-stitch",
	"pt-full-buffer-zero-size", "pt-sample-vs-stop", "pmu-pause-output-rb-check",
}

// TestRealPerfReadsBuiltins writes the perf.data of built-ins as perf 6.1
// (perf-version=6.1) and has the real perf 6.1 read each with perf script,
// perf report --stdio and perf script -D: every command exits 0, and its
// stderr holds nothing but the warnings the real perf prints for what the
// file holds (lost chunks, lost samples, AUX data lost and intel_pt's "Lost
// trace data" error for each truncated AUX record, no samples, AUX records
// whose data a snapshot no longer holds), each checked against the file's
// records; and where the run saw the hardware overwrite unread trace
// (aux-no-overwrite-unread: pt-reset-markers-carry's upstream bug), more
// instruction trace errors than truncated records: the torn stream. intel_pt
// files are decoded with --itrace=b and --itrace=i0ns too.
// Skipped without a perf 6.1 on the PATH. -realperf.all runs every built-in
// (minutes: the cs_etm snapshots decode through the images); by default
// realPerfSubset (about 8 s).
func TestRealPerfReadsBuiltins(t *testing.T) {
	perf := perf61(t, "the real perf is the judge of the simulated perf.data files (written as perf 6.1 writes them)")
	names := realPerfSubset
	if *realPerfAll {
		names = nil
		for _, b := range scenarios.Builtins() {
			names = append(names, b.Name)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			f, err := Open(name)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			r, res, err := RunOnce(f, Options{Knobs: map[string]string{perftool.PerfVersionKnob.Name: "6.1"}, PerfDataDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			paths, err := r.WritePerfData(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(paths) == 0 {
				why := "no perf record session"
				for _, m := range res.Messages {
					if strings.Contains(m, "perf record exited with status 129") && strings.Contains(m, "aux-action") {
						why = "no file: perf 6.1 exits 129 on aux-action (unknown term), as the real one"
					}
				}
				t.Logf("%s\tperf 6.1\t%s", name, why)
			}
			for _, p := range paths {
				if p == os.DevNull {
					t.Logf("%s\tperf 6.1\t-o /dev/null: no file, as perf", name)
					continue
				}
				// The hardware overwrote unread trace (the upstream bug of
				// pt-reset-markers-carry): the stream perf reads is torn, and
				// its decoder says so.
				torn := slices.ContainsFunc(res.Violations, func(v Violation) bool { return v.Invariant == "aux-no-overwrite-unread" })
				res := checkRealPerf(t, perf, p, torn)
				t.Logf("%s\tperf 6.1\t%s", name, res)
			}
		})
	}
}

// dataContent is what a perf.data holds that perf warns about.
type dataContent struct {
	samples, lost, lostSamples int
	aux, auxTruncated          int
	auxPartial, auxCollision   int
	csETM, intelPT             bool
	uncoveredAux               map[uint64]bool // cs_etm AUX records (aux_offset) no AUXTRACE holds
}

// readContent reads the records of the perf.data at path.
func readContent(t *testing.T, path string) dataContent {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := perftool.ReadDataFile(b)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	var c dataContent
	var st uint64
	if len(f.Attrs) > 0 {
		a := f.Attrs[0].Attr
		st = le.Uint64(a[24:])
		c.csETM = le.Uint32(a) == perftool.TypeCSETM
		c.intelPT = le.Uint32(a) == perftool.TypeIntelPT
	}
	type auxtrace struct{ off, size, cpu uint64 }
	type auxRec struct{ off, size, flags, cpu uint64 }
	var ats []auxtrace
	var auxs []auxRec
	for _, rec := range f.Records {
		switch le.Uint32(rec) {
		case uapi.PERF_RECORD_SAMPLE:
			c.samples++
		case uapi.PERF_RECORD_LOST:
			c.lost++
		case uapi.PERF_RECORD_LOST_SAMPLES:
			c.lostSamples++
		case perftool.RecordAuxtrace:
			ats = append(ats, auxtrace{le.Uint64(rec[8:]), 0, uint64(le.Uint32(rec[40:]))})
			ats[len(ats)-1].off, ats[len(ats)-1].size = le.Uint64(rec[16:]), le.Uint64(rec[8:])
		case uapi.PERF_RECORD_AUX:
			c.aux++
			a := auxRec{off: le.Uint64(rec[8:]), size: le.Uint64(rec[16:]), flags: le.Uint64(rec[24:]), cpu: ^uint64(0)}
			if st&uapi.PERF_SAMPLE_CPU != 0 { // sample_id: ..., cpu, res[, identifier]
				back := 8
				if st&uapi.PERF_SAMPLE_IDENTIFIER != 0 {
					back += 8
				}
				a.cpu = uint64(le.Uint32(rec[len(rec)-back:]))
			}
			auxs = append(auxs, a)
			if a.flags&uapi.PERF_AUX_FLAG_TRUNCATED != 0 {
				c.auxTruncated++
			}
			if a.flags&uapi.PERF_AUX_FLAG_PARTIAL != 0 {
				c.auxPartial++
			}
			if a.flags&uapi.PERF_AUX_FLAG_COLLISION != 0 {
				c.auxCollision++
			}
		}
	}
	// tools/perf/util/cs-etm.c: cs_etm__queue_aux_records_cb(),
	// cs_etm__queue_aux_fragment(): an AUX record of size > 0 whose bytes
	// (overwrite: the aux_size bytes before aux_offset) no AUXTRACE of its
	// CPU holds.
	c.uncoveredAux = map[uint64]bool{}
	for _, a := range auxs {
		if !c.csETM || a.size == 0 {
			continue
		}
		start := a.off
		if a.flags&uapi.PERF_AUX_FLAG_OVERWRITE != 0 {
			start -= a.size
		}
		if !slices.ContainsFunc(ats, func(x auxtrace) bool {
			return x.cpu == a.cpu && start >= x.off && start+a.size <= x.off+x.size
		}) {
			c.uncoveredAux[a.off] = true
		}
	}
	return c
}

// checkRealPerf runs the real perf on path and checks its exit status and
// stderr against what the file holds. It returns the result for the table.
func checkRealPerf(t *testing.T, perf, path string, torn bool) string {
	c := readContent(t, path)
	allowed := []struct {
		re *regexp.Regexp
		ok bool
	}{
		{regexp.MustCompile(`^(Warning:|Error:)?$`), true},
		{regexp.MustCompile(`^The .* data has no samples!$`), c.samples == 0},
		{regexp.MustCompile(`^Processed \d+ events and lost ` + fmt.Sprint(c.lost) + ` chunks!$`), c.lost > 0},
		{regexp.MustCompile(`^Check IO/CPU overload!$`), c.lost > 0},
		// util/unwind-libunwind.c: unwind__prepare_access(): an x86 perf
		// without libunwind for aarch64 says so at an aarch64 file's first
		// thread map (cs_etm sessions run on the simulated arm64 machine).
		{regexp.MustCompile(`^unwind: target platform=arm64 is not supported$`), c.csETM},
		{regexp.MustCompile(`^Processed \d+ samples and lost [0-9.]+%!$`), c.lostSamples > 0},
		{regexp.MustCompile(fmt.Sprintf(`^AUX data lost %d times out of %d!$`, c.auxTruncated, c.aux)), c.auxTruncated > 0},
		{regexp.MustCompile(fmt.Sprintf(`^AUX data had gaps in it %d times out of %d!$`, c.auxPartial, c.aux)), c.auxPartial > 0},
		{regexp.MustCompile(fmt.Sprintf(`^AUX data detected collision  %d times out of %d!$`, c.auxCollision, c.aux)), c.auxCollision > 0},
		// intel-pt.c: intel_pt_lost(): a truncated AUX record is an error of type "Lost trace data"
		{regexp.MustCompile(fmt.Sprintf(`^%d instruction trace errors$`, c.auxTruncated)), c.intelPT && c.auxTruncated > 0},
	}
	tornErrors := regexp.MustCompile(`^(\d+) instruction trace errors$`)
	csUncovered := regexp.MustCompile(`^CS ETM: Couldn't find auxtrace buffer for aux_offset: (0x[0-9a-f]+) tid: -?\d+ cpu: -?\d+$`)
	var warned []string
	runs := [][]string{{"script"}, {"report", "--stdio"}, {"script", "-D"}}
	if c.intelPT {
		runs = append(runs, []string{"script", "--itrace=b"}, []string{"script", "--itrace=i0ns"})
	}
	for _, args := range runs {
		// --symfs: the synthetic images WritePerfData wrote next to the file
		cmd := exec.Command(perf, append(args, "-f", "-i", path, "--symfs", filepath.Dir(path))...)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = nil, &stderr
		err := cmd.Run()
		name := "perf " + strings.Join(args, " ")
		if err != nil {
			t.Errorf("%s -i %s: %v\n%s", name, path, err, stderr.String())
			continue
		}
	lines:
		for _, l := range strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n") {
			l = strings.TrimSpace(l)
			for _, a := range allowed {
				if a.re.MatchString(l) {
					if !a.ok {
						t.Errorf("%s: %q, which the file's records do not call for (%+v)", name, l, c)
					} else if l != "" && !strings.HasSuffix(l, ":") && !slices.Contains(warned, l) {
						warned = append(warned, l)
					}
					continue lines
				}
			}
			if m := tornErrors.FindStringSubmatch(l); m != nil && torn && c.intelPT {
				if n, _ := strconv.Atoi(m[1]); n > c.auxTruncated {
					if w := l + " (torn: unread trace overwritten)"; !slices.Contains(warned, w) {
						warned = append(warned, w)
					}
					continue
				}
			}
			if m := csUncovered.FindStringSubmatch(l); m != nil {
				var off uint64
				fmt.Sscanf(m[1], "0x%x", &off)
				if !c.uncoveredAux[off] {
					t.Errorf("%s: %q, but an AUXTRACE holds that AUX record's data", name, l)
				}
				continue
			}
			t.Errorf("%s -i %s: unexpected %q", name, path, l)
		}
	}
	if len(c.uncoveredAux) > 0 {
		warned = append(warned, fmt.Sprintf("CS ETM: %d AUX records not in the snapshot", len(c.uncoveredAux)))
	}
	if len(warned) == 0 {
		return "clean"
	}
	return "clean but for: " + strings.Join(warned, "; ")
}

// TestPTBuiltinsDecode: the intel_pt trace of every built-in, run on
// today's kernel and perf, decodes as Intel PT packets (pt.Decode, the
// simulator's decoder) with no error, but where the hardware overwrote
// unread trace (aux-no-overwrite-unread, the upstream bug
// pt-reset-markers-carry shows): there the stream is torn. (Built-ins using
// aux-action cannot be read by the perf 6.1 here: TestRealPerfReadsBuiltins.)
func TestPTBuiltinsDecode(t *testing.T) {
	n := 0
	for _, b := range scenarios.Builtins() {
		f, err := Open(b.Name)
		if err != nil {
			t.Fatal(err)
		}
		r, res, err := RunOnce(f, Options{MaxWall: -1}) // no wall limit: the result must not depend on load
		if err != nil {
			t.Fatal(err)
		}
		p, ok := r.Perf.(*pmuRun)
		if !ok {
			continue
		}
		torn := slices.ContainsFunc(res.Violations, func(v Violation) bool { return v.Invariant == "aux-no-overwrite-unread" })
		for i, ss := range p.sessions {
			if !ss.Data.Kept() || !slices.ContainsFunc(ss.R.Evsels, func(e perftool.Evsel) bool { return e.PMU == "intel_pt" }) {
				continue
			}
			n++
			bs, bad := ss.Data.ItraceBranches()
			if (bad != 0) != torn {
				t.Errorf("%s session %d: %d trace starts, %d decoding errors (unread trace overwritten: %v)", b.Name, i, len(bs), bad, torn)
			}
		}
	}
	if n < 10 {
		t.Errorf("%d intel_pt sessions among the built-ins, want more", n)
	}
}
