// The probe timer-slack (probe-kv.txt): a task's timer_slack_ns as
// prctl(PR_GET_TIMERSLACK) reads it: its default (init_task's 50000, every
// process's unless an ancestor set another), after PR_SET_TIMERSLACK, after
// a set of 0 (back to default_timer_slack_ns). A forked child's (its
// parent's, and its default too) is judged in sched's TestTimerSlack
// (sched/testdata/timerslack): a scenario observes only its file's tasks.
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

static long get(void) { return prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0); }

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "default";
	if (!strcmp(mode, "default")) {
		printf("default %ld\n", get());
	} else if (!strcmp(mode, "set")) {
		prctl(PR_SET_TIMERSLACK, 1000000, 0, 0, 0);
		printf("set %ld\n", get());
	} else if (!strcmp(mode, "reset")) {
		prctl(PR_SET_TIMERSLACK, 7, 0, 0, 0);
		prctl(PR_SET_TIMERSLACK, 0, 0, 0, 0);
		printf("reset %ld\n", get());
	}
	return 0;
}
