/* stat-runtime-clock: pin to CPU 0, then N times: spin about 20 us, then
 * clock_gettime() of a CPU-time clock, alternately CLOCK_THREAD_CPUTIME_ID
 * and CLOCK_PROCESS_CPUTIME_ID (the paired case stat-runtime-clock: each
 * enters the kernel, the vDSO does not answer these clocks, and
 * task_sched_runtime() runs update_curr(): one sched_stat_runtime). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50;
	cpu_set_t set;
	struct timespec ts;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (int i = 0; i < n; i++) {
		for (unsigned long j = 0; j < 20000; j++)
			sink += j;
		clock_gettime(i & 1 ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID, &ts);
	}
	return 0;
}
