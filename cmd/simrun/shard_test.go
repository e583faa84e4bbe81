package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// shardScenario is small enough for bounded to exhaust: every schedule.
const shardScenario = `scenario shard-migrate
cpus 2
kernel sched-balance=off    # a and b on cpu0: CFS placement's tree passes the 100000-schedule cap at budget 6
task a
  syscall getpid
  compute 2us
  syscall getpid
task b
  syscall getpid
record -e syscalls:sys_enter_getpid -- a b
always perf.error == 0
sometimes perf.samples >= 2
`

// explore --shard i/n for every i, then merge, equals one unsharded explore
// (through the same entry point as the command line): the same schedules,
// outcome counts, coverage, claims and violation. For a search that finds a
// violation the shards run past it, so only the violation is compared.
func TestShardMergeEqualsOneRun(t *testing.T) {
	dir := t.TempDir()
	sim := filepath.Join(dir, "shard-migrate.sim")
	if err := os.WriteFile(sim, []byte(shardScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		shards int
		code   int
		// drop: JSON fields that differ by construction
		drop []string
	}{
		// random, sparse and pct: each shard keeps its own tree of the
		// schedules it ran (explore/memo.go), so a schedule another shard
		// ran is not a repeat in it: repeats differ by construction.
		{"random", []string{"aux-pause-resume-nmi", "--runs", "40"}, 4, exitOK, []string{"repeats"}},
		{"sparse", []string{"pmu-overflow-vs-sched-out", "--strategy", "sparse", "--runs", "30"}, 3, exitOK, []string{"repeats"}},
		// every shard runs all 7 schedules: the merge claims exhaustive as the one run does
		{"random-exhaustive", []string{"pmu-overflow-vs-sched-out", "--runs", "400"}, 4, exitOK, []string{"repeats"}},
		// bounded numbers schedules per shard: the first schedule of a pair
		// is not the unsharded one's.
		{"bounded", []string{sim, "--strategy", "bounded", "--budget", "6"}, 3, exitOK, []string{"coverage.first", "coverage.new_pair_schedules"}},
		{"pct-violation", []string{"aux-pause-resume-nmi", "--strategy", "pct", "--depth", "2", "--runs", "40", "--kernel", "aux-pause-guard=off"}, 4, exitFailed,
			[]string{"schedules", "outcomes", "coverage", "failed", "repeats"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			one := filepath.Join(dir, tc.name+".json")
			common := []string{"--jobs", "1", "--corpus", "off", "-q", "--out", filepath.Join(dir, tc.name+".replay")}
			var so, se bytes.Buffer
			cov := filepath.Join(dir, tc.name+".coverage")
			if code := run(append(append([]string{"explore"}, tc.args...), append(common, "--json", one, "--coverage", cov)...), &so, &se); code != tc.code {
				t.Fatalf("unsharded: exit %d\n%s%s", code, so.String(), se.String())
			}
			var files []string
			for i := range tc.shards {
				p := filepath.Join(dir, fmt.Sprintf("%s-%d.json", tc.name, i))
				files = append(files, p)
				so.Reset()
				se.Reset()
				code := run(append(append([]string{"explore"}, tc.args...), append(common, "--json", p, "--shard", fmt.Sprintf("%d/%d", i, tc.shards))...), &so, &se)
				if code != exitOK && code != exitFailed {
					t.Fatalf("shard %d: exit %d\n%s%s", i, code, so.String(), se.String())
				}
			}
			merged := filepath.Join(dir, tc.name+"-merged.json")
			so.Reset()
			se.Reset()
			if code := run(append([]string{"merge", "--json", merged}, files...), &so, &se); code != tc.code {
				t.Fatalf("merge: exit %d\n%s%s", code, so.String(), se.String())
			}
			want, got := readJSONMap(t, one), readJSONMap(t, merged)
			if tc.name == "random-exhaustive" && (want["exhausted"] != true || want["distinct_schedules"] != float64(7)) {
				t.Errorf("one run: exhausted %v, distinct_schedules %v; want true, 7 (the scenario's schedules)", want["exhausted"], want["distinct_schedules"])
			}
			if got["merged_shards"] != float64(tc.shards) {
				t.Errorf("merged_shards %v, want %d", got["merged_shards"], tc.shards)
			}
			delete(got, "merged_shards")
			for _, m := range []map[string]any{want, got} {
				for _, k := range tc.drop {
					dropPath(m, k)
				}
				if f, ok := m["found"].(map[string]any); ok {
					delete(f, "shard")
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("merge of %d shards vs one run (-one +merged):\n%s", tc.shards, diff)
			}
		})
	}
}

func readJSONMap(t *testing.T, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// dropPath deletes a.b from m.
func dropPath(m map[string]any, path string) {
	for i := 0; i < len(path); i++ {
		if path[i] == '.' {
			if sub, ok := m[path[:i]].(map[string]any); ok {
				dropPath(sub, path[i+1:])
			}
			return
		}
	}
	delete(m, path)
}

// The shard comes from --shard, else a Kubernetes Indexed Job's index with
// SIMRUN_SHARDS, else a Slurm array task (its id counted from
// SLURM_ARRAY_TASK_MIN); a half-set environment is an error.
func TestShardOf(t *testing.T) {
	type res struct {
		I, N int
		Err  bool
	}
	for _, tc := range []struct {
		name string
		flag string
		env  map[string]string
		want res
	}{
		{"none", "", nil, res{0, 0, false}},
		{"flag", "2/5", map[string]string{"JOB_COMPLETION_INDEX": "1", "SIMRUN_SHARDS": "3"}, res{2, 5, false}},
		{"flag-bad", "5/5", nil, res{0, 0, true}},
		{"flag-junk", "a/b", nil, res{0, 0, true}},
		{"k8s", "", map[string]string{"JOB_COMPLETION_INDEX": "3", "SIMRUN_SHARDS": "8"}, res{3, 8, false}},
		{"k8s-no-count", "", map[string]string{"JOB_COMPLETION_INDEX": "3"}, res{0, 0, true}},
		{"slurm", "", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, res{2, 4, false}},
		{"slurm-from-1", "", map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "4"}, res{3, 4, false}},
		{"slurm-out-of-range", "", map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4"}, res{0, 0, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i, n, err := shardOf(tc.flag, func(k string) string { return tc.env[k] })
			if diff := cmp.Diff(tc.want, res{i, n, err != nil}); diff != "" {
				t.Errorf("(-want +got):\n%s (err %v)", diff, err)
			}
		})
	}
}
