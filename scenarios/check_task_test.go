package scenarios

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCheckTaskLife: the task-life statements' errors, each at its
// file:line:col, and the clean forms.
func TestCheckTaskLife(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"clean", "task p\n  fork c\n    compute 1us\n    exit\n  thread w\n    futex wait f\n  futex wake f 2\n  pipe write q 8\n  wait\n  yield\n  nanosleep 1us\n  exit_group\n" +
			"task r\n  pipe read q 4\n", nil},
		{"named program", "program worker\n  compute 1us\ntask p\n  fork worker\n  thread worker\n  wait\n", nil},
		{"unknown program", "task p\n  fork nope\n", []string{
			"c.sim:2:3: fork nope: there is no program nope; give its program as an indented block under \"fork nope\", or declare it with \"program nope\""}},
		{"unknown thread program", "task p\n  thread nope\n", []string{
			"c.sim:2:3: thread nope: there is no program nope; give its program as an indented block under \"thread nope\", or declare it with \"program nope\""}},
		{"a program that forks itself", "program p\n  fork p\ntask t\n  compute 1us\n", []string{
			"c.sim:2:3: fork p: program p starts itself (p -> p), so its children would fork without end; a program may start only programs that do not start it"}},
		{"programs that start each other", "program p\n  repeat 2\n    thread q\nprogram q\n  fork p\ntask t\n  thread p\n", []string{
			"c.sim:5:3: fork p: program p starts itself (p -> q -> p), so its children would fork without end; a program may start only programs that do not start it"}},
		{"a block that starts its own program", "program p\n  fork c\n    thread p\ntask t\n  fork p\n  wait\n", []string{
			"c.sim:3:5: thread p: program p starts itself (p -> p), so its children would fork without end; a program may start only programs that do not start it"}},
		{"a program started twice, no cycle", "program leaf\n  compute 1us\nprogram p\n  fork leaf\n  thread leaf\ntask t\n  fork p\n  fork leaf\n", nil},
		{"after exit", "task p\n  exit\n  compute 1us\n", []string{
			"c.sim:3:3: compute after exit on line 2: the task has exited there"}},
		{"exit twice", "task p\n  exit_group\n  exit\n", []string{
			"c.sim:3:3: exit after exit_group on line 2: the task has exited there"}},
		{"exit twice in a child", "task p\n  fork c\n    exit\n    exit\n  wait\n", []string{
			"c.sim:4:5: exit after exit on line 3: the task has exited there"}},
		{"exit in a repeat", "task p\n  repeat 3\n    exit\n", []string{
			"c.sim:2:3: repeat 3 contains an exit: the task exits in the first round"}},
		{"wait without fork", "task p\n  wait\n", []string{
			"c.sim:2:3: wait with no child: no fork before it in this program (wait4() would fail with ECHILD)"}},
		{"a thread is no child", "task p\n  thread t\n    compute 1us\n  wait\n", []string{
			"c.sim:4:3: wait with no child: no fork before it in this program (wait4() would fail with ECHILD)"}},
		{"one wait too many", "task p\n  fork c\n    compute 1us\n  wait\n  wait\n", []string{
			"c.sim:5:3: wait with no child left: 1 fork(s) before it, already waited for by 1 wait(s) (wait4() would fail with ECHILD)"}},
		{"repeat waits more than it forks", "task p\n  fork a\n    exit\n  repeat 3\n    wait\n", []string{
			"c.sim:4:3: repeat 3 waits for 1 child(ren) a round but forks 0: a later round has no child to wait for (wait4() would fail with ECHILD)"}},
		{"repeat balanced", "task p\n  repeat 3\n    fork a\n      exit\n  repeat 3\n    wait\n", nil},
		{"join", "task p\n  thread w\n    compute 1us\n  join w\n", nil},
		{"join in a repeat", "task p\n  repeat 4\n    thread w\n      compute 1us\n    join w\n", nil},
		{"join without a thread", "task p\n  join w\n", []string{
			`c.sim:2:3: join w with no thread w: no "thread w" before it in this program (pthread_join() would fail with ESRCH)`}},
		{"a child process is no thread", "task p\n  fork w\n    compute 1us\n  join w\n", []string{
			`c.sim:4:3: join w with no thread w: no "thread w" before it in this program (pthread_join() would fail with ESRCH)`}},
		{"one join too many", "task p\n  thread w\n    compute 1us\n  join w\n  join w\n", []string{
			"c.sim:5:3: join w with no thread w left: 1 created before it, already joined by 1 join(s) (pthread_join() would fail with ESRCH)"}},
		{"another thread's name", "task p\n  thread w\n    compute 1us\n  thread v\n    compute 1us\n  join v\n  join v\n", []string{
			"c.sim:7:3: join v with no thread v left: 1 created before it, already joined by 1 join(s) (pthread_join() would fail with ESRCH)"}},
		{"repeat joins more than it creates", "task p\n  thread w\n    exit\n  repeat 3\n    join w\n", []string{
			"c.sim:4:3: repeat 3 joins 1 thread(s) w a round but creates 0: a later round has none to join (pthread_join() would fail with ESRCH)"}},
		{"duplicate program", "program a\n  compute 1us\nprogram a\n  compute 1us\n", []string{
			"c.sim:3:1: duplicate program a (the first is on line 1)"}},
		{"program named like a task", "task a\nprogram a\n  compute 1us\n", []string{
			"c.sim:2:1: program a has the name of the task on line 1; give it another name"}},
	}
	for _, tt := range tests {
		got := checkMessages(t, tt.src, nil)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestParseTaskLifeErrors: malformed statements are parse errors at the word.
func TestParseTaskLifeErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"task p\n  fork\n", "c.sim:2:7: expected the child's program name like worker after fork, found end of line"},
		{"task p\n  pipe send q\n", `c.sim:2:8: expected write or read after pipe, found "send"`},
		{"task p\n  pipe read\n", "c.sim:2:12: expected a pipe name like p after pipe read, found end of line"},
		{"task p\n  pipe write q 0\n", `c.sim:2:16: expected a byte count from 1 to 1048576 after pipe write q, found "0"`},
		{"task p\n  futex post f\n", `c.sim:2:9: expected wait or wake after futex, found "post"`},
		{"task p\n  futex wake f zero\n", `c.sim:2:16: expected how many waiters to wake (1 or more) after futex wake f, found "zero"`},
		{"task p\n  futex wait f 3\n", `c.sim:2:16: unexpected "3" after the futex name (a comment starts with #)`},
		{"task p\n  wait 3\n", `c.sim:2:8: unexpected "3" after wait (a comment starts with #)`},
		{"task p\n  join\n", "c.sim:2:7: expected the thread's program name like worker after join, found end of line"},
		{"task p\n  join w x\n", `c.sim:2:10: unexpected "x" after the thread's name (a comment starts with #)`},
		{"program\n", "c.sim:1:8: expected a program name like worker after program, found end of line"},
		{"program w\n", "c.sim:1:1: program w needs an indented block of statements under it"},
	}
	for _, tt := range tests {
		_, err := Parse("c.sim", []byte(tt.src))
		if err == nil {
			t.Errorf("%q: no error, want %s", tt.src, tt.want)
			continue
		}
		el, ok := err.(ErrorList)
		if !ok || len(el) == 0 {
			t.Errorf("%q: err %T %v", tt.src, err, err)
			continue
		}
		if got := el[0].Error(); !cmp.Equal(firstLine(got), tt.want) {
			t.Errorf("%q:\n got %s\nwant %s", tt.src, firstLine(got), tt.want)
		}
	}
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
