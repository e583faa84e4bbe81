// closeloop.c N: seed 002's benchmark, N close(-1) calls. Prints the CPU time
// the loop took in nanoseconds (user + system, getrusage(RUSAGE_SELF), so
// other load on the machine does not count) and its wall time.
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

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

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 3000000;
	long long c0 = cpu_ns(), w0 = wall_ns();
	for (long i = 0; i < n; i++)
		close(-1);
	long long c1 = cpu_ns(), w1 = wall_ns();
	printf("cpu_ns %lld wall_ns %lld\n", c1 - c0, w1 - w0);
	return 0;
}
