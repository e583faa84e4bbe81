/* inherit-stat-swap: pin to CPU 0 (the children inherit the mask), then
 * fork N children one after the other; each exits at once and the parent
 * waits for it. Parent and child share CPU 0, so each switch between them
 * swaps their cloned perf contexts (perf_event_context_sched_out()) and
 * perf_event_sync_stat() swaps the inherit_stat counts. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (int i = 0; i < n; i++) {
		pid_t p = fork();

		if (p == 0)
			_exit(0);
		waitpid(p, NULL, 0);
	}
	return 0;
}
