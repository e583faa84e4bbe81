package runner

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/scenarios"
)

// eventsScenario records four events of one task in session r (the
// question of a user who wrote record r: -e context-switches,cpu-clock and
// wanted the context switches alone), and one of them again in session q.
const eventsScenario = `cpus 1
task w
  repeat 3
    syscall close 1000
    nanosleep 1ms
record r: -e cs,syscalls:sys_enter_close,syscalls:sys_exit_close,cpu-clock/period=10000/ -- w
record q: -e syscalls:sys_enter_close -p w
always perf.error == 0
`

// TestEventSampleCounts: SESSION.perf.samples[EVENT] counts the samples of
// each of a session's events, named as perf names them, and they add up to
// SESSION.perf.samples; perf.samples[EVENT] sums the sessions that record
// EVENT; the run lists every one of them among its observables.
func TestEventSampleCounts(t *testing.T) {
	f, err := Load(&scenarios.Source{Name: "events.sim", Src: []byte(eventsScenario)})
	if err != nil {
		t.Fatal(err)
	}
	r, res, err := RunOnce(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed {
		t.Fatalf("the run failed: %+v", res.Outcomes)
	}
	tests := []struct {
		name string
		want int64
	}{
		// w's three sleeps switch it out three times
		{"r.perf.samples[cs]", 3},
		{"r.perf.samples[syscalls:sys_enter_close]", 3},
		{"r.perf.samples[syscalls:sys_exit_close]", 3},
		// the CPU time w runs after its exec (the exec's tail, the closes), every 10 us
		{"r.perf.samples[cpu-clock/period=10000/]", 11},
		{"r.perf.samples", 20},
		{"q.perf.samples[syscalls:sys_enter_close]", 3},
		{"perf.samples[syscalls:sys_enter_close]", 6},
		{"perf.samples[cs]", 3},
	}
	got, want := map[string]int64{}, map[string]int64{}
	for _, tc := range tests {
		want[tc.name] = tc.want
		if v, ok := r.Observe(tc.name); ok {
			got[tc.name] = v
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("per-event samples (-want +got):\n%s", diff)
	}
	var sum int64
	for _, e := range []string{"cs", "syscalls:sys_enter_close", "syscalls:sys_exit_close", "cpu-clock/period=10000/"} {
		sum += got["r.perf.samples["+e+"]"]
	}
	if sum != got["r.perf.samples"] {
		t.Errorf("r's events' samples add up to %d, r.perf.samples is %d", sum, got["r.perf.samples"])
	}
	for name, v := range want {
		if ov, ok := res.Observables[name]; !ok || ov != v {
			t.Errorf("the run's observables have %s = %d (listed: %v), want %d", name, ov, ok, v)
		}
	}
	if _, ok := res.Observables["q.perf.samples[cs]"]; ok {
		t.Error("the run lists q.perf.samples[cs]; session q does not record cs")
	}
}

// TestEventIndexRefused: an outcome naming an event its session does not
// record is refused before the run, at the event's name, with the
// session's events as perf names them; the sum over the sessions with
// every session's.
func TestEventIndexRefused(t *testing.T) {
	src := eventsScenario + "always q.perf.samples[cs] == 0\nnever perf.samples[context-switches] > 0\n"
	f, err := Load(&scenarios.Source{Name: "events.sim", Src: []byte(src)})
	if err != nil {
		t.Fatalf("the checker refused it (the runtime checks the event names): %v", err)
	}
	_, err = Validate(f, Options{})
	var list scenarios.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("Validate = %v, want an ErrorList", err)
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Error())
	}
	want := []string{
		`events.sim:9:23: session q does not record an event named "cs"; its events, as perf script -F event names them: syscalls:sys_enter_close`,
		`events.sim:10:20: no session records an event named "context-switches"; the sessions' events, as perf script -F event names them: ` +
			`cs, syscalls:sys_enter_close, syscalls:sys_exit_close, cpu-clock/period=10000/`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
