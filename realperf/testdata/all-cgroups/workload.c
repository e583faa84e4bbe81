// workload.c N: move into the cgroup perfsim-test (cgroup2 at
// /sys/fs/cgroup/unified on this host, /sys/fs/cgroup on a pure v2 one),
// then a user loop of N iterations (300,000,000 take about 540 ms of CPU
// here, the compute of case.sim).
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 300000000;
	const char *procs[] = {"/sys/fs/cgroup/unified/perfsim-test/cgroup.procs",
			       "/sys/fs/cgroup/perfsim-test/cgroup.procs"};
	for (int i = 0; i < 2; i++) {
		FILE *f = fopen(procs[i], "w");
		if (f) {
			fprintf(f, "%d\n", getpid());
			if (fclose(f) == 0)
				break;
		}
	}
	volatile long x = 0;
	for (long i = 0; i < n; i++)
		x += i;
	return 0;
}
