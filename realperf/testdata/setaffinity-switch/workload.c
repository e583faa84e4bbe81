/* setaffinity-switch: N times, move to the other CPU with
 * sched_setaffinity(0, {other}) (the paired case setaffinity-switch). The
 * task runs when it calls it, so the kernel moves it through its CPU's
 * stopper: it waits in D for migration_cpu_stop() and is switched out
 * asleep, not preempted. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;
	cpu_set_t set;

	for (int i = 0; i < n; i++) {
		CPU_ZERO(&set);
		CPU_SET((sched_getcpu() + 1) % 2, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	return 0;
}
