package runner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStopperMigration: sched_setaffinity() of the running task moves it
// through its CPU's stopper, as the real kernel does (PREEMPT_NONE): the
// task switches out asleep in D to migration/0 (pid 18, prio 0), which fires
// sched_migrate_task in its own context and sleeps (S), and the task is
// woken on cpu1. A CPU-wide perf hears it all; perf synthesized
// migration/0's COMM, so perf script names it. perf sleeps on cpu1 while
// app's execve() runs; cpu1 idle, app's wake-up there runs from its wake
// list (swapper, ttwu_queue), and app's exit wakes perf (its parent) on
// the idle cpu0, from where perf's evlist__disable() comes back to cpu1
// (app's last switch is to it).
func TestStopperMigration(t *testing.T) {
	r, res := runQuiet(t, "stopper.sim", `scenario stopper
cpus 2
task app cpu0
  compute 5us
  migrate cpu1
  compute 5us
record -a -e sched:sched_switch,sched:sched_migrate_task,sched:sched_wakeup -- app
`)
	var b strings.Builder
	if err := r.Script(&b); err != nil {
		t.Fatal(err)
	}
	// every line but its time: perf's own moves to each CPU to enable
	// and disable (evlist__enable()/evlist__disable() with affinity) take
	// the same path
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		f := strings.Fields(l)
		got = append(got, strings.Join(append(f[:3:3], f[4:]...), " "))
	}
	want := []string{
		"perf 102 [000] sched:sched_wakeup: comm=migration/0 pid=18 prio=0 target_cpu=000",
		"perf 102 [000] sched:sched_switch: prev_comm=perf prev_pid=102 prev_prio=120 prev_state=D ==> next_comm=migration/0 next_pid=18 next_prio=0",
		"migration/0 18 [000] sched:sched_migrate_task: comm=perf pid=102 prio=120 orig_cpu=0 dest_cpu=1",
		"migration/0 18 [000] sched:sched_switch: prev_comm=migration/0 prev_pid=18 prev_prio=0 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
		"perf 102 [001] sched:sched_wakeup: comm=app pid=101 prio=120 target_cpu=000",
		"swapper 0 [000] sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app next_pid=101 next_prio=120",
		"perf 102 [001] sched:sched_switch: prev_comm=perf prev_pid=102 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120",
		"app 101 [000] sched:sched_wakeup: comm=migration/0 pid=18 prio=0 target_cpu=000",
		"app 101 [000] sched:sched_switch: prev_comm=app prev_pid=101 prev_prio=120 prev_state=D ==> next_comm=migration/0 next_pid=18 next_prio=0",
		"migration/0 18 [000] sched:sched_migrate_task: comm=app pid=101 prio=120 orig_cpu=0 dest_cpu=1",
		"swapper 0 [001] sched:sched_wakeup: comm=app pid=101 prio=120 target_cpu=001",
		"migration/0 18 [000] sched:sched_switch: prev_comm=migration/0 prev_pid=18 prev_prio=0 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
		"swapper 0 [001] sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app next_pid=101 next_prio=120",
		"app 101 [001] sched:sched_migrate_task: comm=perf pid=102 prio=120 orig_cpu=1 dest_cpu=0",
		"swapper 0 [000] sched:sched_wakeup: comm=perf pid=102 prio=120 target_cpu=000",
		"swapper 0 [000] sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=perf next_pid=102 next_prio=120",
		"app 101 [001] sched:sched_switch: prev_comm=app prev_pid=101 prev_prio=120 prev_state=Z ==> next_comm=perf next_pid=102 next_prio=120",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("perf script (-want +got):\n%s\nall:\n%s", d, b.String())
	}
	obs := map[string]int64{}
	for _, k := range []string{"task.app.migrations", "task.app.cpu"} {
		v, ok := r.Observe(k)
		if !ok {
			t.Fatalf("no observable %s", k)
		}
		obs[k] = v
	}
	if d := cmp.Diff(map[string]int64{"task.app.migrations": 1, "task.app.cpu": 1}, obs); d != "" {
		t.Errorf("observables (-want +got):\n%s", d)
	}
	if len(res.Violations) != 0 {
		t.Errorf("violations: %v", res.Violations)
	}
	var stoppers []string
	for i := range 2 {
		if st := r.S.Stopper(i); st != nil {
			stoppers = append(stoppers, fmt.Sprintf("%s pid %d prio %d kthread %v", st.Comm, st.PID, st.Prio(), st.Kthread))
		}
	}
	if d := cmp.Diff([]string{"migration/0 pid 18 prio 0 kthread true", "migration/1 pid 21 prio 0 kthread true"}, stoppers); d != "" {
		t.Errorf("stoppers (-want +got):\n%s", d)
	}
}
