/* forkexit.c MODE N: what task creation and teardown cost, in ns of CPU
 * time per operation (the thread and process CPU clocks, so other load does
 * not count). Each figure has the cost of its clock reads taken off (a
 * pair of clock_gettime() with nothing between, "clock.pair").
 *
 *   fork:   N times fork() a child that _exit(0)s at once; the parent waits
 *           for it to be a zombie without reaping it (waitid(WNOWAIT)), then
 *           reaps it with waitpid(). Prints
 *             fork.parent   the parent's CPU time in fork() (kernel_clone():
 *                           copy_process() with dup_mm(), wake_up_new_task())
 *             fork.child    each child's whole CPU time (getrusage(
 *                           RUSAGE_CHILDREN) / N: ret_from_fork, the
 *                           exit_group() entry, do_exit() with exit_mmap(),
 *                           the last switch away)
 *             wait4.reap    the parent's CPU time in a waitpid() that finds
 *                           the zombie (do_wait() -> wait_task_zombie() ->
 *                           release_task())
 *   thread: N times pthread_create() a thread that returns at once, then
 *           pthread_join() it. Prints
 *             thread.create the creator's CPU time in pthread_create() (its
 *                           stack from glibc's cache after the first: mostly
 *                           clone3(CLONE_VM|CLONE_THREAD|...))
 *             thread.life   each thread's whole CPU time (the process clock
 *                           less the main thread's, / N: ret_from_fork, the
 *                           start routine's return, exit(), do_exit() of a
 *                           thread, the last switch away)
 *   exec:   N times fork() a child that execv()s TARGET (argv[3], default
 *           /usr/bin/true) and wait for it; prints nothing of its own
 *           (execsplit.sh times the execve() between its tracepoints)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long clk(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *nothing(void *arg) { return arg; }

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 10000;
	long long pair = 0, a, b;

	for (int i = 0; i < n; i++) {
		a = clk(CLOCK_THREAD_CPUTIME_ID);
		b = clk(CLOCK_THREAD_CPUTIME_ID);
		pair += b - a;
	}
	printf("clock.pair %.1f\n", (double)pair / n);
	if (argc > 1 && !strcmp(argv[1], "thread")) {
		long long create = 0, p0 = clk(CLOCK_PROCESS_CPUTIME_ID), t0 = clk(CLOCK_THREAD_CPUTIME_ID);

		for (int i = 0; i < n; i++) {
			pthread_t th;

			a = clk(CLOCK_THREAD_CPUTIME_ID);
			pthread_create(&th, NULL, nothing, NULL);
			b = clk(CLOCK_THREAD_CPUTIME_ID);
			create += b - a - pair / n;
			pthread_join(th, NULL);
		}
		long long p = clk(CLOCK_PROCESS_CPUTIME_ID) - p0, t = clk(CLOCK_THREAD_CPUTIME_ID) - t0;
		printf("thread.create %.1f\n", (double)create / n);
		printf("thread.life %.1f\n", (double)(p - t) / n);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "exec")) {
		char *target = argc > 3 ? argv[3] : "/usr/bin/true";

		for (int i = 0; i < n; i++) {
			pid_t pid = fork();

			if (pid == 0) {
				char *av[] = {target, NULL};

				execv(target, av);
				_exit(127);
			}
			waitpid(pid, NULL, 0);
		}
		return 0;
	}
	long long fork_ns = 0, reap = 0;
	for (int i = 0; i < n; i++) {
		siginfo_t si;
		pid_t pid;

		a = clk(CLOCK_THREAD_CPUTIME_ID);
		pid = fork();
		if (pid == 0)
			_exit(0);
		b = clk(CLOCK_THREAD_CPUTIME_ID);
		fork_ns += b - a - pair / n;
		waitid(P_PID, pid, &si, WEXITED | WNOWAIT);
		a = clk(CLOCK_THREAD_CPUTIME_ID);
		waitpid(pid, NULL, 0);
		b = clk(CLOCK_THREAD_CPUTIME_ID);
		reap += b - a - pair / n;
	}
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	long long child = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
	printf("fork.parent %.1f\n", (double)fork_ns / n);
	printf("fork.child %.1f\n", (double)child / n);
	printf("wait4.reap %.1f\n", (double)reap / n);
	return 0;
}
