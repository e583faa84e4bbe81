// workload.c N: a user loop of N iterations (3,000,000,000 take about 5.4 s
// of CPU here), far longer than the second perf record runs before its ^C.
// It first takes nice -20 (setpriority(), root), so that the other jobs on
// this 2-CPU machine take little of its CPU (a nice 0 task weighs 1024 to
// its 88761): the simulated machine runs nothing else.
#include <stdlib.h>
#include <sys/resource.h>

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 3000000000;
	volatile long x = 0;
	if (setpriority(PRIO_PROCESS, 0, -20))
		return 1;
	for (long i = 0; i < n; i++)
		x += i;
	return 0;
}
