package perftool

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"perfsim/pmu"
	"perfsim/uapi"
)

func mustParse(t *testing.T, args string, opts Options) *Record {
	t.Helper()
	r, err := Parse(strings.Fields(args), opts)
	if err != nil {
		t.Fatalf("Parse(%q): %v", args, err)
	}
	return r
}

const (
	stIP, stTID, stTIME, stCPU, stPERIOD = uapi.PERF_SAMPLE_IP, uapi.PERF_SAMPLE_TID, uapi.PERF_SAMPLE_TIME, uapi.PERF_SAMPLE_CPU, uapi.PERF_SAMPLE_PERIOD
	rfIDLost                             = uapi.PERF_FORMAT_ID | uapi.PERF_FORMAT_LOST
)

// trackingWorkload is today's first event for a forked workload.
func trackingWorkload(a pmu.Attr) pmu.Attr {
	a.Size = uapi.AttrSize
	a.Disabled, a.Inherit, a.EnableOnExec, a.SampleIDAll = true, true, true, true
	a.Mmap, a.Comm, a.Task, a.Mmap2, a.CommExec, a.Ksymbol, a.BPFEvent = true, true, true, true, true, true, true
	a.BuildID = true // record.buildid_mmap defaults to true today
	a.ReadFormat |= rfIDLost
	return a
}

// TestToday checks the attrs of today's tool where it differs from perf 6.1
// (the golden files cover 6.1) and the parts the machine here cannot run.
func TestToday(t *testing.T) {
	opts := DefaultOptions()
	tests := []struct {
		name string
		args string
		want []pmu.Attr
	}{{
		name: "no exclude_guest by default (35c8d21371e9), size 136",
		args: "-e cpu-clock -- true",
		want: []pmu.Attr{trackingWorkload(pmu.Attr{Type: 1, SamplePeriod: 4000, Freq: true,
			SampleType: stIP | stTID | stTIME | stPERIOD})},
	}, {
		name: ":u does not set exclude_guest today; :H does",
		args: "-e cpu-clock:uH -- true",
		want: []pmu.Attr{trackingWorkload(pmu.Attr{Type: 1, SamplePeriod: 4000, Freq: true,
			SampleType: stIP | stTID | stTIME | stPERIOD, ExcludeKernel: true, ExcludeHV: true, ExcludeGuest: true})},
	}, {
		name: "cycles:P: precise_max -> precise_ip 3",
		args: "-e cycles:P -- true",
		want: []pmu.Attr{trackingWorkload(pmu.Attr{Type: 0, SamplePeriod: 4000, Freq: true, PreciseIP: 3,
			SampleType: stIP | stTID | stTIME | stPERIOD})},
	}, {
		name: "fp,defer: defer_callchain + defer_output (27ddc1d7a6b7)",
		args: "--call-graph fp,defer -e cycles -- true",
		want: []pmu.Attr{trackingWorkload(pmu.Attr{Type: 0, SamplePeriod: 4000, Freq: true,
			SampleType: stIP | stTID | stTIME | uapi.PERF_SAMPLE_CALLCHAIN | stPERIOD, DeferCallchain: true, DeferOutput: true})},
	}, {
		name: "-a: inherit 0, tracking moves to dummy:u",
		args: "-a -e cpu-clock -- true",
		want: []pmu.Attr{
			{Type: 1, Size: 136, SamplePeriod: 4000, Freq: true, Disabled: true, SampleIDAll: true,
				SampleType: stIP | stTID | stTIME | stCPU | stPERIOD | uapi.PERF_SAMPLE_IDENTIFIER, ReadFormat: rfIDLost},
			{Type: 1, Size: 136, Config: uapi.PERF_COUNT_SW_DUMMY, SamplePeriod: 1, SampleIDAll: true,
				ExcludeKernel: true, ExcludeHV: true, ExcludeGuest: true,
				Mmap: true, Comm: true, Task: true, Mmap2: true, CommExec: true, Ksymbol: true, BPFEvent: true, BuildID: true,
				SampleType: stIP | stTID | stTIME | stCPU | uapi.PERF_SAMPLE_IDENTIFIER, ReadFormat: rfIDLost},
		},
	}, {
		name: "--no-buildid-mmap: no attr.build_id",
		args: "--no-buildid-mmap -e cpu-clock -- true",
		want: []pmu.Attr{func() pmu.Attr {
			a := trackingWorkload(pmu.Attr{Type: 1, SamplePeriod: 4000, Freq: true, SampleType: stIP | stTID | stTIME | stPERIOD})
			a.BuildID = false
			return a
		}()},
	}, {
		name: "group sample read keeps inherit, adds TID and FORMAT_ID",
		args: "-e {cpu-clock,task-clock}:S -- true",
		want: []pmu.Attr{
			trackingWorkload(pmu.Attr{Type: 1, SamplePeriod: 4000, Freq: true,
				SampleType: stIP | stTID | stTIME | uapi.PERF_SAMPLE_READ | uapi.PERF_SAMPLE_ID | stPERIOD, ReadFormat: uapi.PERF_FORMAT_GROUP}),
			{Type: 1, Size: 136, Config: 1, Inherit: true, SampleIDAll: true,
				SampleType: stIP | stTID | stTIME | uapi.PERF_SAMPLE_READ | uapi.PERF_SAMPLE_ID | stPERIOD, ReadFormat: rfIDLost | uapi.PERF_FORMAT_GROUP},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustParse(t, tt.args, opts)
			var got []pmu.Attr
			for _, e := range r.Evsels {
				got = append(got, e.Attr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("attrs (-want +got):\n%s", diff)
			}
			for i := range got {
				if err := pmu.CheckOpen(&got[i], 1, 0, -1, uapi.PERF_FLAG_FD_CLOEXEC, pmu.Sysctl{Paranoid: -1, MaxSampleRate: 100000, MaxStack: 127, NrCPUIDs: 2}); err != nil {
					t.Errorf("evsel %d: the kernel would refuse: %v", i, err)
				}
			}
		})
	}
}

func TestTargetsAndOpens(t *testing.T) {
	opts := DefaultOptions()
	tests := []struct {
		args string
		want []Open
	}{
		{"-e {cpu-clock,task-clock} -- true", []Open{
			{0, PIDWorkload, 0, -1, 8}, {0, PIDWorkload, 1, -1, 8}, {1, PIDWorkload, 0, 0, 8}, {1, PIDWorkload, 1, 1, 8}}},
		{"--per-thread -e cpu-clock -- true", []Open{{0, PIDWorkload, -1, -1, 8}}},
		// today: with -C the tracking dummy:u covers all CPUs (record__tracking_system_wide)
		{"-C 1 -e cpu-clock -- true", []Open{{0, -1, 1, -1, 8}, {1, -1, 0, -1, 8}, {1, -1, 1, -1, 8}}},
	}
	for _, tt := range tests {
		r := mustParse(t, tt.args, opts)
		if diff := cmp.Diff(tt.want, r.Opens(opts.NrCPUs)); diff != "" {
			t.Errorf("%s opens (-want +got):\n%s", tt.args, diff)
		}
	}
}

func TestAuxPMUs(t *testing.T) {
	opts := DefaultOptions()
	type view struct {
		Names    []string
		Leaders  []int
		Config   uint64
		AuxPages int
		Aux      []uint32 // aux_action per evsel
		AuxSz    []uint32
		Snapshot *Snapshot
		// aux_watermark of the AUX event: a quarter of the area in
		// intel_pt full-trace mode, else 0 (the kernel's half)
		Watermark uint32
	}
	viewOf := func(r *Record) view {
		v := view{Config: r.Evsels[0].Attr.Config, AuxPages: r.AuxPages, Snapshot: r.Snapshot, Watermark: r.Evsels[0].Attr.AuxWatermark}
		for _, e := range r.Evsels {
			v.Names = append(v.Names, e.Name)
			v.Leaders = append(v.Leaders, e.Leader)
			v.Aux = append(v.Aux, e.Attr.AuxAction())
			v.AuxSz = append(v.AuxSz, e.Attr.AuxSampleSize)
		}
		return v
	}
	tests := []struct {
		args string
		want view
	}{
		{"-e intel_pt//u -- uname", view{Names: []string{"intel_pt//:u", "dummy:u"}, Leaders: []int{0, 1},
			Config: 0x300e601, AuxPages: 1024, Aux: []uint32{0, 0}, AuxSz: []uint32{0, 0}, Watermark: 1 << 20}},
		// test_intel_pt.sh test_pause_resume: separate -e options join the AUX group
		{"-e intel_pt/aux-action=start-paused/u -e instructions/period=50000,aux-action=resume,name=Resume/u -e instructions/period=100000,aux-action=pause,name=Pause/u -- uname",
			view{Names: []string{"intel_pt/aux-action=start-paused/:u", "Resume", "Pause", "dummy:u"}, Leaders: []int{0, 0, 0, 3},
				Config: 0x300e601, AuxPages: 1024, Aux: []uint32{1, 4, 2, 0}, AuxSz: []uint32{0, 0, 0, 0}, Watermark: 1 << 20}},
		{"-e intel_pt/tsc=0,cyc,psb_period=0/ -m ,64 -S -- ls", view{Names: []string{"intel_pt/tsc=0,cyc,psb_period=0/", "dummy:u"},
			Leaders: []int{0, 1}, Config: 0xe203, AuxPages: 64, Aux: []uint32{0, 0}, AuxSz: []uint32{0, 0}, Snapshot: &Snapshot{}}},
		// -S's PMU-agnostic 'e': a snapshot on exit, then intel_pt's size
		{"-e intel_pt// -m ,64 -Se4096 -- ls", view{Names: []string{"intel_pt//", "dummy:u"},
			Leaders: []int{0, 1}, Config: 0x300e601, AuxPages: 64, Aux: []uint32{0, 0}, AuxSz: []uint32{0, 0}, Snapshot: &Snapshot{Size: 4096, OnExit: true}}},
		// test_intel_pt.sh test_sample
		// sample mode is full_auxtrace too (the tracking dummy); psb_period=0 and
		// the AUX area sized from the sample (auxtrace_sample_test.go)
		{"--aux-sample=8192 -e {intel_pt//u,branch-misses:u} -- true", view{Names: []string{"intel_pt//:u", "branch-misses:u", "dummy:u"},
			Leaders: []int{0, 0, 2}, Config: 0xe601, AuxPages: 2, Aux: []uint32{0, 0, 0}, AuxSz: []uint32{0, 8192, 0}}},
		{"-e cs_etm/@sink/u -- true", view{}},
		{"-e cs_etm//u --per-thread -- true", view{Names: []string{"cs_etm//:u", "dummy:u"}, Leaders: []int{0, 1},
			AuxPages: 1024, Aux: []uint32{0, 0}, AuxSz: []uint32{0, 0}}},
	}
	for _, tt := range tests {
		r, err := Parse(strings.Fields(tt.args), opts)
		if tt.want.Names == nil {
			if err == nil {
				t.Errorf("%s: want an error", tt.args)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.args, err)
			continue
		}
		if diff := cmp.Diff(tt.want, viewOf(r)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.args, diff)
		}
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		args   string
		tool   Tool
		option string
		reason string
	}{
		{"-S -e cpu-clock -- true", ToolToday, "-S", "No AUX area tracing to snapshot"},
		{"--aux-sample -e cpu-clock -- true", ToolToday, "--aux-sample", "No AUX area event to sample"},
		{"--overwrite -e intel_pt// -- true", ToolToday, "--overwrite", "cannot be used with AUX area tracing (intel_pt)"},
		{"-c 10 -F 10 -e cpu-clock -- true", ToolToday, "-c/-F", "cannot set frequency and period at the same time"},
		{"-e cpu-clock:pppp -- true", ToolToday, "-e cpu-clock:pppp", "event syntax error: maximum combined precise value is 3"},
		{"-e nosuch -- true", ToolToday, "-e nosuch", "event syntax error: 'nosuch'"},
		{"-e {cpu-clock,{task-clock}} -- true", ToolToday, "-e {cpu-clock,{task-clock}}", "event syntax error: '{cpu-clock,{task-clock}}'"},
		// no ':' between a term list and its modifiers: perf 6.1's parser error here (perf record -e 'cpu-clock/period=100000/:u' -- true)
		{"-e cpu-clock/period=100000/:u -- true", ToolToday, "-e cpu-clock/period=100000/:u", "event syntax error: 'cpu-clock/period=100000/:u'"},
		{"-e sched:sched_kthread_stop -- true", ToolToday, "-e sched:sched_kthread_stop", "unknown tracepoint 'sched:sched_kthread_stop' (not in the simulator's catalogue)"},
		{"-e cpu-clock/aux-action=pause/ -- true", ToolToday, "aux-action=pause", "cpu-clock/aux-action=pause/: requires an AUX area event as group leader"},
		{"--call-graph bogus -- true", ToolToday, "--call-graph", "callchain: Unknown --call-graph option value: bogus"},
		{"--call-graph dwarf,70000 -- true", ToolToday, "--call-graph", "callchain: Incorrect stack dump size (max 65528): 70000"},
		{"-C 5 -e cpu-clock -- true", ToolToday, "-C", "Failed to initialize parallel data streaming masks (cpu 5: the machine has 2 CPUs)"},
		{"-C 1-0 -e cpu-clock -- true", ToolToday, "-C", "invalid cpu list '1-0'"},
		{"-u 0 -e cpu-clock", ToolToday, "-u", "option not supported by the simulator"},
		{"-z -e cpu-clock -- true", ToolToday, "-z", "option not supported by the simulator"}, // perf 6.1's --compression-level: a real switch, not an unknown one
		{"-n -e cpu-clock -- true", ToolToday, "-n", "option not supported by the simulator"},
		{"-r -e cpu-clock -- true", ToolToday, "-r", "option not supported by the simulator"},
		{"-p a,,b -e cpu-clock", ToolToday, "-p", "invalid task list 'a,,b': want NAME[,NAME...] (the simulated tasks' names)"},
		{"--bogus -- true", ToolToday, "--bogus", "unknown option"},
		{"--mmap-page 3x -e cpu-clock -- true", ToolToday, "-m", "Invalid argument for --mmap_pages/-m"}, // --mmap-pages, abbreviated
		{"--per -e cpu-clock -- true", ToolToday, "--per", "Ambiguous option: per (could be --period or --per-thread)"},
		{"--clockid=mono -e cpu-clock -- true", ToolToday, "--clockid", "option not supported by the simulator"},
		{"--dry -e cpu-clock -- true", ToolToday, "--dry-run", "option not supported by the simulator"},
		{"--eventt=cycles -- true", ToolToday, "--eventt", "unknown option; did you mean '--event'?"},
		{"-e cpu-clock", ToolToday, "<command>", "no workload and no -a/-C target"},
		{"-m 3k -e cpu-clock -- true", ToolToday, "-m", "Invalid argument for --mmap_pages/-m"}, // tags are upper case
		{"-m 9999999999 -e cpu-clock -- true", ToolToday, "-m", "rounding mmap pages size to 65536G (17179869184 pages)\nInvalid argument for --mmap_pages/-m"},
		// perf prints the rounding, then the refusal (perf 6.1's: testdata/perf61-options.txt)
		{"-m 99999999999 -e cpu-clock -- true", ToolToday, "-m", "rounding mmap pages size to 524288G (137438953472 pages)\nInvalid argument for --mmap_pages/-m"},
		{"-c abc -e cpu-clock -- true", ToolToday, "-c", "switch `c' expects a numerical value"},
		// perf 6.1 here: " Error: option `all-kernel' cannot be used with all-user", usage, exit 129
		{"--all-user --all-kernel -e cpu-clock -- true", ToolPerf61, "--all-kernel", "option `all-kernel' cannot be used with all-user"},
		{"--all-kernel --all-user -e cpu-clock -- true", ToolToday, "--all-user", "option `all-user' cannot be used with all-kernel"},
		{"-c -1 -e cpu-clock -- true", ToolToday, "-c", "switch `c' expects an unsigned numerical value"},
		{"--count=0x10 -e cpu-clock -- true", ToolToday, "--count", "option `count' expects a numerical value"}, // base 10
		{"-F 0 -e cpu-clock -- true", ToolToday, "-c/-F", "frequency and count are zero, aborting"},
		{"-F abc -e cpu-clock -- true", ToolToday, "-c/-F", "frequency and count are zero, aborting"}, // atoi("abc") == 0
		{"--strict-freq -F 1000000000 -e cpu-clock -- true", ToolToday, "-F", "error: Maximum frequency rate (100000 Hz) exceeded.\n" +
			"       Please use -F freq option with a lower value or consider\n       tweaking /proc/sys/kernel/perf_event_max_sample_rate."},
	}
	for _, tt := range tests {
		opts := DefaultOptions()
		opts.Tool = tt.tool
		_, err := Parse(strings.Fields(tt.args), opts)
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("%s: err = %v, want *Error", tt.args, err)
			continue
		}
		if diff := cmp.Diff([]string{tt.option, tt.reason}, []string{e.Option, e.Reason}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.args, diff)
		}
	}
}

// TestPerf61AuxActionExits: perf 6.1 does not know aux-action; it gives up
// with the message of the event's kind (a PMU's lists its sysfs formats in
// readdir order, twice), and the scenario is not refused: Parse returns a
// Record whose Exit the session fails with. (The tracepoint and legacy
// messages are checked against the real perf in TestOptionMessagesMatchRealPerf.)
func TestPerf61AuxActionExits(t *testing.T) {
	opts := DefaultOptions()
	opts.Tool = ToolPerf61
	r, err := Parse([]string{"-e", "intel_pt/aux-action=start-paused/u", "--", "true"}, opts)
	if err != nil || r.Exit == nil {
		t.Fatalf("Parse = %v, %v; want a Record with Exit", r, err)
	}
	one := "event syntax error: 'intel_pt/aux-action=start-paused/u'\n" +
		"                              \\___ unknown term 'aux-action' for pmu 'intel_pt'\n\n" +
		"valid terms: ptw,event,cyc_thresh,pt,notnt,branch,tsc,pwr_evt,fup_on_ptw,cyc,noretcomp,mtc,psb_period,mtc_period," + perf61ConfigTerms + "\n"
	want := &ExitError{Status: 129, Text: one + "\nInitial error:\n" + one + "Run 'perf list' for a list of valid events\n"}
	if diff := cmp.Diff(want, r.Exit); diff != "" {
		t.Errorf("perf 6.1's exit (-want +got):\n%s", diff)
	}
	if r, err := Parse([]string{"-e", "intel_pt/aux-action=start-paused/u", "--", "true"}, DefaultOptions()); err != nil || r.Exit != nil {
		t.Errorf("today's perf: Parse = %v, %v; want the record", r, err)
	}
}

// TestKernfsNameHash: the readdir() order of sysfs directories on this
// machine's 6.18 kernel, as ls -f lists them.
func TestKernfsNameHash(t *testing.T) {
	for _, want := range [][]string{
		{"uevent", "power", "perf_event_mux_interval_ms", "type", "subsystem"}, // /sys/bus/event_source/devices/breakpoint
		{"ref_ctr_offset", "retprobe"},                                         // /sys/bus/event_source/devices/uprobe/format
	} {
		got := sysfsOrder(slices.Clone(want))
		slices.Reverse(got)
		got = sysfsOrder(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("sysfs order (-ls -f +model):\n%s", diff)
		}
	}
}

func TestMmapPages(t *testing.T) {
	tests := []struct {
		args      string
		data, aux int
		warnings  []string
	}{
		{"-e cpu-clock -- true", 128, 0, nil},
		{"-m 3 -e cpu-clock -- true", 4, 0, []string{"rounding mmap pages size to 16K (4 pages)"}},
		{"-m 1M -e cpu-clock -- true", 256, 0, nil},
		{"-m 8,16 -e intel_pt// -- true", 8, 16, nil},
		{"-m ,4M -e intel_pt// -- true", 128, 1024, nil},
		// perf 6.1 on this machine prints the same lines:
		{"-m 0 -e cpu-clock -- true", 1, 0, []string{"rounding mmap pages size to 4K (1 pages)"}},
		{"-m 200 -e cpu-clock -- true", 256, 0, []string{"rounding mmap pages size to 1024K (256 pages)"}},
		{"-m 1000000 -e cpu-clock -- true", 1 << 20, 0, []string{"rounding mmap pages size to 4G (1048576 pages)"}},
		{"-m K -e cpu-clock -- true", 1, 0, []string{"rounding mmap pages size to 4K (1 pages)"}},
		{"-m -1 -e cpu-clock -- true", 1, 0, []string{"rounding mmap pages size to 4K (1 pages)"}},
		{"-m 5B -e cpu-clock -- true", 1, 0, nil},
		{"-m 3,5 -e cpu-clock -- true", 4, 0, []string{"rounding mmap pages size to 16K (4 pages)", "rounding mmap pages size to 32K (8 pages)"}},
		{"-m 3,5 -e intel_pt// -- true", 4, 8, []string{"rounding mmap pages size to 16K (4 pages)", "rounding mmap pages size to 32K (8 pages)"}},
	}
	for _, tt := range tests {
		r := mustParse(t, tt.args, DefaultOptions())
		got := []any{r.MmapPages, r.AuxPages, r.Warnings}
		if diff := cmp.Diff([]any{tt.data, tt.aux, tt.warnings}, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s [data aux warnings] (-want +got):\n%s", tt.args, diff)
		}
	}
}

// TestFreq pins -F and -c as perf 6.1 on this machine takes them (perf
// record -F ... -e cpu-clock -- true, with perf_event_max_sample_rate at
// 100000): atoi() for -F (wrapping to 32 bits; UINT_MAX is "unset"),
// strtoull() for -c (ULLONG_MAX is "unset"), and perf's warnings, word for word.
func TestFreq(t *testing.T) {
	throttle := func(from string) string {
		return "warning: Maximum frequency rate (100000 Hz) exceeded, throttling from " + from + " Hz to 100000 Hz.\n" +
			"         The limit can be raised via /proc/sys/kernel/perf_event_max_sample_rate.\n" +
			"         The kernel will lower it when perf's interrupts take too long.\n" +
			"         Use --strict-freq to disable this throttling, refusing to record."
	}
	tests := []struct {
		args     string
		freq     bool
		period   uint64
		messages []Message
	}{
		{"-e cpu-clock -- true", true, 4000, nil},
		{"-F 1000 -e cpu-clock -- true", true, 1000, nil},
		{"-F 1000000000 -e cpu-clock -- true", true, 100000, []Message{{Option: "-F", Text: throttle("1000000000")}}},
		{"-F 10000000000 -e cpu-clock -- true", true, 100000, []Message{{Option: "-F", Text: throttle("1410065408")}}},
		{"-F -5 -e cpu-clock -- true", true, 100000, []Message{{Option: "-F", Text: throttle("4294967291")}}},
		{"-F 4294967295 -e cpu-clock -- true", true, 4000, nil}, // UINT_MAX: as if -F was not given
		{"-F max -e cpu-clock -- true", true, 100000, []Message{{Option: "-F", Text: "info: Using a maximum frequency rate of 100000 Hz"}}},
		{"-c 1000 -e cpu-clock -- true", false, 1000, nil},
		{"-c 99999999999999999999 -e cpu-clock -- true", true, 4000, nil}, // ULLONG_MAX: as if -c was not given
		{"-c 0 -e cpu-clock -- true", true, 4000, []Message{{Option: "-c", Note: true,
			Text: "-c 0 sets no sample period: perf samples at its default frequency instead (4000 Hz, as -F 4000), without a word"}}},
	}
	for _, tt := range tests {
		r := mustParse(t, tt.args, DefaultOptions())
		a := r.Evsels[0].Attr
		got := []any{a.Freq, a.SamplePeriod, r.Messages}
		if diff := cmp.Diff([]any{tt.freq, tt.period, tt.messages}, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s [freq period messages] (-want +got):\n%s", tt.args, diff)
		}
	}
}

// TestPerf61ShortOptionsKnown: every one-letter option perf 6.1's perf
// record has (`perf record -h` on this machine) is one the parser knows,
// implemented or named as not supported: none is an "unknown switch",
// which perf would not say of it.
func TestPerf61ShortOptionsKnown(t *testing.T) {
	for _, c := range "abBcCdDeFgGIijkmNnoPpqRrSstTuvWz" {
		opt := "-" + string(c)
		_, err := Parse([]string{opt, "1", "-e", "cpu-clock", "--", "true"}, DefaultOptions())
		if e, ok := err.(*Error); ok && e.Option == opt && e.Reason == "unknown switch" {
			t.Errorf("%s: unknown switch", opt)
		}
	}
}

// TestTracepointTerms: a tracepoint takes only config_term_tracepoint()'s
// terms; perf 6.1 refuses period= with this text (perf record -e
// 'syscalls:sys_enter_close/period=3/' on this machine, exit 129), today's
// tool refuses it as a bad -e; call-graph= is taken.
func TestTracepointTerms(t *testing.T) {
	opts := DefaultOptions()
	opts.Tool = ToolPerf61
	r, err := Parse([]string{"-e", "syscalls:sys_enter_close/period=3/", "--", "true"}, opts)
	if err != nil || r.Exit == nil {
		t.Fatalf("Parse = %v, %v; want a Record with Exit", r, err)
	}
	want := &ExitError{Status: 129, Text: "event syntax error: '..nter_close/period=3/'\n" +
		"                                  \\___ unknown term\n\nvalid terms: call-graph,stack-size\n\nRun 'perf list' for a list of valid events\n"}
	if diff := cmp.Diff(want, r.Exit); diff != "" {
		t.Errorf("perf 6.1's exit (-want +got):\n%s", diff)
	}
	if _, err := Parse([]string{"-e", "syscalls:sys_enter_close/period=3/", "--", "true"}, DefaultOptions()); err == nil || !strings.Contains(err.Error(), "not a term of a tracepoint") {
		t.Errorf("today's perf: %v, want the term refused", err)
	}
	if _, err := Parse([]string{"-e", "syscalls:sys_enter_close/call-graph=fp/", "--", "true"}, DefaultOptions()); err != nil {
		t.Errorf("call-graph= on a tracepoint: %v", err)
	}
}

// TestPerf61EventErrors: perf 6.1's words for an -e it cannot parse, as it
// printed them on this machine (exit 129, before its usage).
func TestPerf61EventErrors(t *testing.T) {
	opts := DefaultOptions()
	opts.Tool = ToolPerf61
	for _, tc := range []struct{ event, want string }{
		{"cpu-clock:pppp", "event syntax error: 'cpu-clock:pppp'\n                               \\___ Bad modifier\nRun 'perf list' for a list of valid events\n"},
		{"cpu-clock/foo=1/", "event syntax error: 'cpu-clock/foo=1/'\n                               \\___ unknown term\n\n" +
			"valid terms: " + perf61ConfigTerms + "\nRun 'perf list' for a list of valid events\n"},
	} {
		r, err := Parse([]string{"-e", tc.event, "--", "true"}, opts)
		if err != nil || r.Exit == nil {
			t.Errorf("%s: Parse = %v, %v; want perf's exit", tc.event, r, err)
			continue
		}
		if d := cmp.Diff(&ExitError{Status: 129, Text: tc.want}, r.Exit); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.event, d)
		}
	}
}
