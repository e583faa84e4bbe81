// The real side of sched's TestTimerSlack: prctl(PR_[GS]ET_TIMERSLACK) as a
// task and its forked child see it, and how long nanosleep(100us) lasts at
// the default slack and at 1ns (means of 200 sleeps, in us).
//   cc -O2 -o workload workload.c && ./workload
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static long now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000L + t.tv_nsec; }

static long sleep_mean_us(void) {
	struct timespec req = {0, 100000};
	long tot = 0;
	for (int i = 0; i < 200; i++) { long a = now(); nanosleep(&req, 0); tot += now() - a; }
	return tot / 200 / 1000;
}

int main(void) {
	int fd[2];
	printf("default %d\n", prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0));
	long def = sleep_mean_us();
	prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
	printf("set1 %d\n", prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0));
	long one = sleep_mean_us();
	printf("sleep-default-us %ld\nsleep-1ns-us %ld\nslack-effect-us %ld\n", def, one, def - one);
	prctl(PR_SET_TIMERSLACK, 1000000, 0, 0, 0);
	pipe(fd);
	if (fork() == 0) {
		int v[2];
		v[0] = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
		prctl(PR_SET_TIMERSLACK, 7, 0, 0, 0);
		prctl(PR_SET_TIMERSLACK, 0, 0, 0, 0);
		v[1] = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
		write(fd[1], v, sizeof v);
		_exit(0);
	}
	int v[2];
	read(fd[0], v, sizeof v);
	wait(0);
	printf("child-inherited %d\nchild-reset %d\n", v[0], v[1]);
	prctl(PR_SET_TIMERSLACK, 0, 0, 0, 0);
	printf("reset %d\n", prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0));
	return 0;
}
