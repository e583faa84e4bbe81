/* prctl(PR_SET_NAME) in a loop, as tools/perf/tests/backward-ring-buffer.c
 * does (111 times, "p:%d"), pinned to CPU 0 so one ring buffer holds it all. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 111;
	cpu_set_t set;
	char name[16];
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "p:%d", i);
		prctl(PR_SET_NAME, name);
	}
	return 0;
}
