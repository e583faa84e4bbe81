// timing.h: what every calibration workload prints, the CPU time (user +
// system, getrusage(RUSAGE_SELF): other load on the machine does not count)
// and the wall time of the part it measures, in nanoseconds.
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

static long long cpu_ns(void) {
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

static long long wall_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void report(long long c0, long long w0) {
	printf("cpu_ns %lld wall_ns %lld\n", cpu_ns() - c0, wall_ns() - w0);
}
